//! Real build folders from Hugo, Jekyll and MkDocs (fixtures/, with the generator's own
//! sitemap.xml): sitemapgen must list exactly the URLs the generator lists.

use std::collections::BTreeSet;
use std::fs;

use xml::reader::{EventReader, XmlEvent};

use crate::harness::Site;
use crate::validate;

/// The `<loc>` texts of a generator's own sitemap.
fn generator_locs(site: &Site) -> BTreeSet<String> {
    let bytes = fs::read(site.sitemap_path()).unwrap();
    let mut locs = BTreeSet::new();
    let mut in_loc = false;
    for event in EventReader::new(bytes.as_slice()) {
        match event.unwrap() {
            XmlEvent::StartElement { name, .. } => in_loc = name.local_name == "loc",
            XmlEvent::Characters(text) if in_loc => {
                locs.insert(text.trim().to_string());
            }
            XmlEvent::EndElement { .. } => in_loc = false,
            _ => {}
        }
    }
    assert!(!locs.is_empty());
    locs
}

#[track_caller]
fn assert_same_urls(fixture: &str, base: &str, args: &[&str]) {
    let site = Site::fixture(fixture);
    let expected = generator_locs(&site);
    let ours = site.outside().join("ours.xml");
    site.command(&["-b", base, "-o"])
        .arg(&ours)
        .args(args)
        .run()
        .success();
    let urls = validate::sitemap(&ours, base);
    let got: BTreeSet<String> = urls.into_iter().map(|u| u.loc).collect();
    assert_eq!(got, expected, "{fixture}: our URLs vs the generator's");
}

#[test]
fn hugo() {
    // about-us/ is an alias: a redirect stub (noindex, refresh, canonical) that Hugo leaves
    // out of its sitemap; its head says so.
    assert_same_urls("hugo", "https://example.com/", &[]);
}

#[test]
fn jekyll() {
    // jekyll-sitemap also lists PDFs, and leaves out pages with `sitemap: false`.
    assert_same_urls(
        "jekyll",
        "https://example.com/",
        &[
            "--include",
            "*.html",
            "--include",
            "*.pdf",
            "--exclude",
            "docs/private.html",
        ],
    );
}

#[test]
fn mkdocs() {
    assert_same_urls("mkdocs", "https://example.com/docs/", &[]);
}

/// A preview counts the files as a run writing DIR/sitemap.xml does: Hugo's own sitemap.xml
/// is the file that run replaces, not a file that is not a page.
#[test]
fn a_preview_and_a_run_count_the_same_files() {
    let site = Site::fixture("hugo");
    let summary = |run: crate::harness::Run| {
        let stderr = run.success().stderr();
        stderr[stderr.find("(left out: ").expect("a summary")..].to_string()
    };
    let preview = summary(site.run(&["-o", "-"]));
    let written = summary(site.run(&[]));
    assert_eq!(preview, written);
}
