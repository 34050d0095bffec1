//! `--sub-builds`: one root index over every build deployed side by side (versions, as mike
//! and sphinx-multiversion deploy them), each dated by its newest page; and `--index-add`'s
//! entries dated by the sitemaps they name.

use std::collections::BTreeSet;

use crate::harness::{BASE, Site};
use crate::serve::{Reply, Server};
use crate::validate::{self, UrlRecord};

/// A build's own sitemap, as a generator writes it: each `(path, lastmod)` under `BASE`.
fn urlset(urls: &[(&str, &str)]) -> String {
    let mut xml = String::from(
        "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n\
         <urlset xmlns=\"http://www.sitemaps.org/schemas/sitemap/0.9\">\n",
    );
    for (path, lastmod) in urls {
        xml.push_str(&format!(
            "<url><loc>{BASE}{path}</loc><lastmod>{lastmod}</lastmod></url>\n"
        ));
    }
    xml + "</urlset>\n"
}

fn page(title: &str, head: &str) -> String {
    format!(
        "<!doctype html><html><head><title>{title}</title>{head}</head><body><main>{title}</main></body></html>"
    )
}

/// A deploy root as mike leaves it, and builds of other kinds: `1.0/` (a urlset), `2.0/`
/// (an index over a gzipped shard), `latest/` a copy of 2.0 named an alias in
/// versions.json, `broken/` whose sitemap lists another folder's URL, `hidden/` whose start
/// page says noindex, and the root's own pages.
fn deploy_root() -> Site {
    let site = Site::empty();
    site.write("index.html", page("Home", ""));
    site.write("about.html", page("About", ""));
    site.write(
        "versions.json",
        r#"[{"version": "2.0", "title": "2.0 (new)", "aliases": ["latest"]},
            {"version": "1.0", "title": "1.0", "aliases": []}]"#,
    );
    for version in ["1.0", "2.0", "latest"] {
        site.write(format!("{version}/index.html"), page(version, ""));
        site.write(format!("{version}/guide/index.html"), page("Guide", ""));
    }
    // A start page past the 1 MiB a head is read within is read as far as its head.
    let long = format!("<p>{}</p>", "text ".repeat(400_000));
    site.write("1.0/index.html", page("1.0", "").replace("</main>", &long));
    site.write(
        "1.0/sitemap.xml",
        urlset(&[("1.0/", "2024-01-05"), ("1.0/guide/", "2024-02-01")]),
    );
    let shard = urlset(&[
        ("2.0/", "2025-03-01T10:00:00+02:00"),
        ("2.0/guide/", "2025-03-01T09:00:00Z"),
    ]);
    site.write("2.0/sitemap-0.xml.gz", gzip(shard.as_bytes()));
    site.write(
        "2.0/sitemap-index.xml",
        format!(
            "<?xml version=\"1.0\"?>\n<sitemapindex xmlns=\"http://www.sitemaps.org/schemas/sitemap/0.9\">\
             <sitemap><loc>{BASE}2.0/sitemap-0.xml.gz</loc></sitemap></sitemapindex>\n"
        ),
    );
    site.write(
        "latest/sitemap-index.xml",
        urlset(&[("2.0/", "2025-03-01")]),
    );
    site.write("broken/index.html", page("Broken", ""));
    site.write(
        "broken/sitemap.xml",
        urlset(&[("broken/", "2024-01-01"), ("1.0/guide/", "2024-01-01")]),
    );
    site.write(
        "hidden/index.html",
        page("Hidden", "<meta name=\"robots\" content=\"noindex\">"),
    );
    site.write("hidden/sitemap.xml", urlset(&[("hidden/", "2024-01-01")]));
    site
}

fn gzip(bytes: &[u8]) -> Vec<u8> {
    use std::io::Write;
    let mut encoder = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
    encoder.write_all(bytes).unwrap();
    encoder.finish().unwrap()
}

fn entry<'e>(entries: &'e [UrlRecord], loc: &str) -> Option<&'e UrlRecord> {
    entries.iter().find(|e| e.loc == format!("{BASE}{loc}"))
}

#[test]
fn the_root_index_lists_each_build_by_its_newest_date_and_the_roots_own_pages_once() {
    let site = deploy_root();
    let run = site.run(&["--sub-builds", "-v"]);
    run.success().stderr_has(&[
        "warning: sub-build broken/: ",
        "lists https://example.com/1.0/guide/, outside https://example.com/broken/",
        "warning: sub-build hidden/: its start page",
        "says noindex",
        "latest: an alias of version 2.0 (versions.json)",
    ]);
    let entries = validate::index(&site.sitemap_path(), BASE);
    let locs: Vec<&str> = entries.iter().map(|e| e.loc.as_str()).collect();
    assert_eq!(
        locs,
        [
            "https://example.com/sitemap-pages.xml",
            "https://example.com/1.0/sitemap.xml",
            "https://example.com/2.0/sitemap-index.xml",
        ]
    );
    let date = |loc| entry(&entries, loc).unwrap().lastmod.clone();
    assert_eq!(date("1.0/sitemap.xml").as_deref(), Some("2024-02-01"));
    // Compared as instants: 10:00+02:00 is before 09:00Z.
    assert_eq!(
        date("2.0/sitemap-index.xml").as_deref(),
        Some("2025-03-01T09:00:00Z")
    );
    // The root's own pages, and no page of a build, listed or left out.
    let own = validate::sitemap(&site.path("sitemap-pages.xml"), BASE);
    let own: BTreeSet<&str> = own.iter().map(|u| u.loc.as_str()).collect();
    assert_eq!(
        own,
        BTreeSet::from(["https://example.com/", "https://example.com/about.html"])
    );
    // Nothing of theirs was copied or touched.
    assert!(!site.path("sitemap-1.xml").exists());
}

#[test]
fn globs_choose_the_builds_and_the_others_pages_are_the_roots() {
    let site = deploy_root();
    site.run(&["--sub-build", "[0-9]*"]).success();
    let entries = validate::index(&site.sitemap_path(), BASE);
    assert_eq!(entries.len(), 3, "{entries:?}");
    assert!(entry(&entries, "broken/sitemap.xml").is_none());
    let own = validate::sitemap(&site.path("sitemap-pages.xml"), BASE);
    let own: BTreeSet<&str> = own.iter().map(|u| u.loc.as_str()).collect();
    // broken/ and hidden/ are no sub-builds now: their pages are the root's (hidden's
    // start page says noindex); latest/ stays an alias.
    assert_eq!(
        own,
        BTreeSet::from([
            "https://example.com/",
            "https://example.com/about.html",
            "https://example.com/broken/",
        ])
    );
}

#[test]
fn a_rebuilt_version_changes_only_its_own_entry() {
    let site = deploy_root();
    site.run(&["--sub-builds"]).success();
    let before = validate::index(&site.sitemap_path(), BASE);
    site.write(
        "1.0/sitemap.xml",
        urlset(&[("1.0/", "2024-01-05"), ("1.0/guide/", "2025-06-01")]),
    );
    site.run(&["--sub-builds"]).success();
    let after = validate::index(&site.sitemap_path(), BASE);
    let changed: Vec<&str> = after
        .iter()
        .zip(&before)
        .filter(|(a, b)| a != b)
        .map(|(a, _)| a.loc.as_str())
        .collect();
    assert_eq!(changed, ["https://example.com/1.0/sitemap.xml"]);
    assert_eq!(
        entry(&after, "1.0/sitemap.xml").unwrap().lastmod.as_deref(),
        Some("2025-06-01")
    );
}

#[test]
fn a_root_with_no_page_of_its_own_is_an_index_of_its_builds() {
    let site = Site::empty();
    site.write(
        "index.html",
        page(
            "Redirect",
            "<meta http-equiv=\"refresh\" content=\"0; url=1.0/\">",
        ),
    );
    site.write("1.0/index.html", page("1.0", ""));
    site.write("1.0/sitemap.xml", urlset(&[("1.0/", "2024-01-05")]));
    site.run(&["--sub-builds"]).success();
    let entries = validate::index(&site.sitemap_path(), BASE);
    let locs: Vec<&str> = entries.iter().map(|e| e.loc.as_str()).collect();
    assert_eq!(locs, ["https://example.com/1.0/sitemap.xml"]);
    // A build whose sitemap is damaged is left out; with nothing else, there is no sitemap.
    site.write("1.0/sitemap.xml", "<urlset><url><loc>");
    let before = std::fs::read(site.sitemap_path()).unwrap();
    site.run(&["--sub-builds"])
        .expect_code(1)
        .stderr_has(&["warning: sub-build 1.0/: ", "error: no pages in "]);
    assert_eq!(std::fs::read(site.sitemap_path()).unwrap(), before);
}

#[test]
fn index_add_dates_each_sitemap_from_dir_or_its_server_and_lists_an_unreadable_one_undated() {
    let remote = urlset(&[("shop/", "2023-05-01"), ("shop/cart/", "2023-07-09")]);
    let server = Server::start(move |request| match request.path.as_str() {
        "/shop/sitemap.xml" => Reply::status(200, remote.clone()),
        _ => Reply::status(404, "not found"),
    });
    let base = server.url("/");
    let site = Site::with_pages(&["index.html"]);
    site.write(
        "blog/sitemap.xml",
        urlset(&[("blog/", "2022-01-01"), ("blog/a/", "2022-03-04")]),
    );
    let run = site.run(&[
        "-b",
        &base,
        "--exclude",
        "blog/",
        "--index-add",
        &format!("{base}blog/sitemap.xml"),
        "--index-add",
        &format!("{base}shop/sitemap.xml"),
        "--index-add",
        &format!("{base}gone/sitemap.xml"),
    ]);
    run.success().stderr_has(&[
        &format!("warning: cannot date --index-add {base}gone/sitemap.xml: "),
        "(404)",
        "listed without a <lastmod>",
    ]);
    let entries = validate::index(&site.sitemap_path(), &base);
    let dates: Vec<(String, Option<String>)> = entries
        .iter()
        .skip(1)
        .map(|e| (e.loc.replace(&base, "/"), e.lastmod.clone()))
        .collect();
    assert_eq!(
        dates,
        [
            ("/blog/sitemap.xml".into(), Some("2022-03-04".into())),
            ("/shop/sitemap.xml".into(), Some("2023-07-09".into())),
            ("/gone/sitemap.xml".into(), None),
        ]
    );
}

#[test]
fn sub_builds_need_an_index_inside_dir_and_are_a_usage_error_otherwise() {
    let site = deploy_root();
    let outside = site.outside().join("sitemap.xml");
    let outside = outside.to_str().unwrap();
    for (args, message) in [
        (
            &["--sub-builds", "--format", "txt"][..],
            "drop --group, --index-add and --sub-builds",
        ),
        (
            &["--sub-build", "[0-9]*", "-o", "-"][..],
            "-o - shows one file",
        ),
        (
            &["--sub-builds", "-o", outside][..],
            "need the output inside DIR",
        ),
        (
            &["--sub-build", "a[b"][..],
            "--sub-build \"a[b\" is not a valid glob",
        ),
    ] {
        site.run(args).expect_code(2).stderr_has(&[message]);
        assert!(!site.sitemap_path().exists(), "{args:?}");
    }
}
