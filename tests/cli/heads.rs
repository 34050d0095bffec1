//! Reading the built pages: noindex, redirect stubs and other canonical pages are left out;
//! hreflang alternates are written, checked across the sitemap.

use std::collections::BTreeMap;
use std::fs;

use crate::harness::{BASE, Site};
use crate::validate;

fn listed(site: &Site) -> Vec<String> {
    validate::listed(&site.sitemap_path(), BASE)
}

#[test]
fn each_head_rule_leaves_out_exactly_its_pages() {
    let site = Site::fixture("heads");
    // A head longer than the cap (1 MiB) is read up to the cap; one within it is read whole.
    let style = |n: usize| format!("<head><style>{}</style>", "p{}".repeat(n / 3));
    site.write(
        "huge-head.html",
        style(600_000) + "<meta name=robots content=noindex></head>",
    );
    site.write(
        "beyond-cap.html",
        style(1_200_000) + "<meta name=robots content=noindex></head>",
    );
    let run = site.run(&["-v", "--include", "*.html", "--include", "*.pdf"]);
    run.success().stderr_has(&[
        "skip bom.html: marked noindex",
        "skip entity.html: marked noindex",
        "skip googlebot-none.html: marked noindex",
        "skip huge-head.html: marked noindex",
        "skip latin1.html: marked noindex",
        "skip noindex-upper.html: marked noindex",
        "skip noindex.html: marked noindex",
        "skip redirect.html: a redirect to https://example.com/",
        "skip canonical-other.html: its canonical URL is https://example.com/",
        "warning: canonical-form.html: its canonical URL http://example.com/canonical-form \
         differs from https://example.com/canonical-form.html only in form",
        "(9 files excluded, of which 7 noindex, 1 redirect stubs, 1 with another canonical URL)",
    ]);
    assert_eq!(
        listed(&site),
        [
            "",
            "beyond-cap.html",
            "body-meta.html",
            "canonical-form.html",
            "comment.html",
            "no-head.html",
            "paper.pdf",
            "robots-index.html",
            "robots-no-content.html",
            "script.html",
            "slow-refresh.html",
        ]
    );
    let xml = fs::read_to_string(site.sitemap_path()).unwrap();
    assert!(!xml.contains("xmlns:xhtml"), "no alternates, no namespace");

    // --strict makes the canonical mismatch an error; --no-html reads nothing.
    site.run(&["--strict"])
        .expect_code(1)
        .stderr_has(&["canonical-form.html: its canonical URL", "(--strict)"]);
    site.run(&["--no-html", "--no-default-excludes"]).success();
    let all_html = fs::read_dir(&site.root)
        .unwrap()
        .filter(|e| {
            e.as_ref()
                .unwrap()
                .file_name()
                .to_string_lossy()
                .ends_with(".html")
        })
        .count();
    assert_eq!(listed(&site).len(), all_html);
}

#[test]
fn an_unreadable_page_is_an_error_naming_it() {
    use std::os::unix::fs::PermissionsExt;
    let site = Site::with_pages(&["index.html", "secret.html"]);
    site.run(&[]).success();
    let before = fs::read(site.sitemap_path()).unwrap();
    site.open_to_everyone();
    fs::set_permissions(site.path("secret.html"), fs::Permissions::from_mode(0o000)).unwrap();
    let run = crate::harness::Cmd::unprivileged()
        .args(["-b", BASE])
        .arg(&site.root)
        .run();
    run.expect_code(1)
        .stderr_has(&["error: cannot read ", "secret.html", "Permission denied"]);
    assert_eq!(fs::read(site.sitemap_path()).unwrap(), before);
}

/// Per listed URL (relative to BASE), its alternates as (hreflang, URL relative to BASE).
fn alternates(site: &Site) -> BTreeMap<String, Vec<(String, String)>> {
    validate::sitemap(&site.sitemap_path(), BASE)
        .into_iter()
        .map(|url| {
            let alternates = url
                .alternates
                .iter()
                .map(|(lang, href)| (lang.clone(), href.strip_prefix(BASE).unwrap().to_string()))
                .collect();
            (url.loc.strip_prefix(BASE).unwrap().to_string(), alternates)
        })
        .collect()
}

#[test]
fn a_multilingual_site_lists_its_indexable_pages_with_their_alternates() {
    let site = Site::fixture("multilingual");
    let run = site.run(&["-v"]);
    run.success().stderr_has(&[
        "skip de/alias.html: a redirect to https://example.com/de/",
        "skip en/copy.html: its canonical URL is https://example.com/en/",
        "skip fr/about.html: marked noindex",
        "warning: https://example.com/en/about.html: its de alternate https://example.com/de/about.html \
         does not name it back (a one-way alternate); kept",
        "warning: https://example.com/en/about.html: its fr alternate https://example.com/fr/about.html \
         is not a page of this sitemap (left out, or not in the site); dropped",
        "warning: https://example.com/en/gone.html: its de alternate https://example.com/de/gone.html \
         is not a page of this sitemap",
    ]);
    let pair = |lang: &str, path: &str| (lang.to_string(), path.to_string());
    let home = vec![
        pair("en", "en/"),
        pair("de", "de/"),
        pair("fr", "fr/"),
        pair("x-default", "en/"),
    ];
    let expected: BTreeMap<String, Vec<(String, String)>> = [
        ("de/", home.clone()),
        ("de/about.html", vec![pair("de", "de/about.html")]),
        ("en/", home.clone()),
        (
            "en/about.html",
            vec![pair("en", "en/about.html"), pair("de", "de/about.html")],
        ),
        ("en/gone.html", vec![pair("en", "en/gone.html")]),
        ("fr/", home),
    ]
    .into_iter()
    .map(|(k, v)| (k.to_string(), v))
    .collect();
    assert_eq!(alternates(&site), expected);

    // Split, every shard carries the namespace and stays valid.
    site.run(&["--max-urls", "2"]).success();
    let index = validate::index(&site.sitemap_path(), BASE);
    for shard in &index {
        let name = shard.loc.strip_prefix(BASE).unwrap();
        validate::sitemap(&site.path(name), BASE);
    }
}

#[test]
fn an_alternate_language_is_written_once_and_a_template_does_not_end_the_head() {
    let site = Site::empty();
    let links = "<link rel=alternate hreflang=en href=/en/>\
                 <link rel=alternate hreflang=de href=/de/>\
                 <link rel=alternate hreflang=de href=/de/>\
                 <link rel=alternate hreflang=EN href=/en/>";
    site.write("en/index.html", format!("<head>{links}</head>"));
    site.write("de/index.html", format!("<head>{links}</head>"));
    // A template in the head is inert: its content does not end the head, nor count.
    site.write(
        "hidden.html",
        "<head><template><div>card</div></template>\
         <meta name=robots content=noindex></head>",
    );
    site.write(
        "shown.html",
        "<head><template><meta name=robots content=noindex></template></head>",
    );
    site.run(&[]).success();
    let pair = |lang: &str, path: &str| (lang.to_string(), path.to_string());
    let both = vec![pair("en", "en/"), pair("de", "de/")];
    let expected: BTreeMap<String, Vec<(String, String)>> = [
        ("de/".to_string(), both.clone()),
        ("en/".to_string(), both),
        ("shown.html".to_string(), vec![]),
    ]
    .into_iter()
    .collect();
    assert_eq!(alternates(&site), expected);
}
