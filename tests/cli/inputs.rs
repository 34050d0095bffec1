//! What a run reads from outside, bounded and checked: a published sitemap
//! (`--previous-sitemap`) that cannot be read, nests without end, declares entities, lists
//! too many shards or takes too long, or lists a page in another form of its URL; a state
//! whose keys sitemapgen could not have written, or that repeats a record. (The changes
//! file's checks are in `published.rs`, with `--indexnow-submit`.)

use std::collections::BTreeMap;
use std::fs;
use std::time::Duration;

use crate::harness::{BASE, Run, Site};
use crate::published::{assert_nothing_written, gzip, site_with_old_sitemap};
use crate::serve::{Reply, Server};
use crate::validate;

const URLSET: &str = "<?xml version=\"1.0\"?>\
    <urlset xmlns=\"http://www.sitemaps.org/schemas/sitemap/0.9\">";

/// A run whose new state is adopted from the sitemap at `previous`, a URL or a path.
fn adopt(site: &Site, previous: &str, extra: &[&str]) -> Run {
    site.command(&["--lastmod", "2024-06-01", "--state"])
        .arg(site.outside().join("state"))
        .args(["--previous-sitemap", previous])
        .args(extra)
        .run()
}

#[test]
fn a_previous_sitemap_that_cannot_be_read_is_no_first_run() {
    let site = site_with_old_sitemap();
    let before = site.all_files();
    let missing = site.outside().join("sitemap-typo.xml");
    for (previous, code, expected) in [
        (
            "file:///etc/shadow",
            2,
            "is a file: URL, which sitemapgen does not fetch",
        ),
        ("ftp://example.com/sitemap.xml", 2, "is a ftp: URL"),
        (missing.to_str().unwrap(), 1, "there is no file"),
    ] {
        let run = adopt(&site, previous, &[]);
        assert_eq!(run.code(), code, "{previous}: {}", run.stderr());
        run.stderr_has(&[expected]);
        assert!(!run.stderr().contains("first run"), "{}", run.stderr());
        assert_nothing_written(&site, &before);
    }
    // Nothing published yet (the first deploy) is a first run, as for --state-url.
    let server = Server::start(|_| Reply::status(404, "not found"));
    adopt(&site, &server.url("/sitemap.xml"), &[])
        .success()
        .stderr_has(&["no sitemap at", "a first run"]);
}

#[test]
fn a_hostile_previous_sitemap_is_refused_early() {
    let nested = format!(
        "{URLSET}{}<loc>https://example.com/a.html</loc>",
        "<url>".repeat(200_000)
    );
    let entity = format!(
        "<?xml version=\"1.0\"?><!DOCTYPE urlset [<!ENTITY x SYSTEM \"file:///etc/passwd\">]>\
         {}<url><loc>https://example.com/&x;</loc><lastmod>2001-01-01</lastmod></url></urlset>",
        &URLSET[21..]
    );
    let mut index = String::from(
        "<?xml version=\"1.0\"?>\
         <sitemapindex xmlns=\"http://www.sitemaps.org/schemas/sitemap/0.9\">",
    );
    for n in 0..50_001 {
        index.push_str(&format!(
            "<sitemap><loc>https://example.com/s-{n}.xml</loc></sitemap>"
        ));
    }
    for (case, body, expected) in [
        (
            "200,000 nested elements",
            nested,
            "nests elements more than 16 deep",
        ),
        ("an external entity", entity, "has a DTD"),
        (
            "an index of 50,001 sitemaps",
            index,
            "lists more than 50,000 sitemaps",
        ),
    ] {
        let body = gzip(body.as_bytes());
        let server = Server::start(move |request| match request.path.as_str() {
            "/sitemap.xml.gz" => Reply::status(200, body.clone()),
            _ => Reply::status(200, format!("{URLSET}</urlset>")),
        });
        let site = site_with_old_sitemap();
        let before = site.all_files();
        let run = adopt(&site, &server.url("/sitemap.xml.gz"), &[]);
        assert_eq!(run.code(), 1, "{case}: {}", run.stderr());
        run.stderr_has(&[expected]);
        assert_eq!(server.requests().len(), 1, "{case}: no shard is fetched");
        assert_nothing_written(&site, &before);
    }
}

#[test]
fn a_previous_sitemap_index_is_read_within_http_timeout_as_a_whole() {
    // Each shard comes in well within --http-timeout; all twenty do not.
    let server = Server::start(|request| match request.path.as_str() {
        "/sitemap.xml" => {
            let mut index = String::from(
                "<?xml version=\"1.0\"?>\
                 <sitemapindex xmlns=\"http://www.sitemaps.org/schemas/sitemap/0.9\">",
            );
            for n in 0..20 {
                index.push_str(&format!(
                    "<sitemap><loc>https://example.com/s-{n}.xml</loc></sitemap>"
                ));
            }
            Reply::status(200, index + "</sitemapindex>")
        }
        _ => {
            std::thread::sleep(Duration::from_millis(300));
            Reply::status(200, format!("{URLSET}</urlset>"))
        }
    });
    let site = site_with_old_sitemap();
    let before = site.all_files();
    let run = adopt(&site, &server.url("/sitemap.xml"), &["--http-timeout", "1"]);
    assert_eq!(run.code(), 1, "{}", run.stderr());
    run.stderr_has(&["takes longer than --http-timeout (1 s)"]);
    assert!(server.requests().len() <= 6, "{}", server.requests().len());
    assert_nothing_written(&site, &before);
}

#[test]
fn a_previous_sitemap_lends_its_date_to_the_page_in_any_form_of_its_url() {
    let site = Site::with_pages(&["guide/page-3/index.html", "a~b.html", "c.html", "d.html"]);
    let old = site.outside().join("old.xml");
    fs::write(
        &old,
        format!(
            "{URLSET}\
             <url><loc>https://example.com/guide/page-3</loc><lastmod>2020-01-02</lastmod></url>\
             <url><loc>https://example.com/a%7eb.html</loc><lastmod>2020-01-03</lastmod></url>\
             <url><loc>https://example.com/c</loc><lastmod>2020-01-04</lastmod></url>\
             <url><loc>https://example.com/d/</loc><lastmod>2020-01-05</lastmod></url>\
             <url><loc>https://example.com/d.htm</loc><lastmod>2020-01-06</lastmod></url>\
             </urlset>"
        ),
    )
    .unwrap();
    let changes = site.outside().join("changes.txt");
    adopt(
        &site,
        old.to_str().unwrap(),
        &["--changes", changes.to_str().unwrap()],
    )
    .success();
    let dates: BTreeMap<String, Option<String>> = validate::sitemap(&site.sitemap_path(), BASE)
        .into_iter()
        .map(|url| (url.loc, url.lastmod))
        .collect();
    let date = |loc: &str| dates[loc].as_deref();
    assert_eq!(
        date("https://example.com/guide/page-3/"),
        Some("2020-01-02")
    );
    assert_eq!(date("https://example.com/a~b.html"), Some("2020-01-03"));
    assert_eq!(date("https://example.com/c.html"), Some("2020-01-04"));
    // Listed in two forms, neither the page's: which one it is, is not known.
    assert_eq!(date("https://example.com/d.html"), Some("2024-06-01"));
    assert_eq!(
        fs::read_to_string(&changes).unwrap(),
        "added https://example.com/d.html\n\
         removed https://example.com/d.htm\n\
         removed https://example.com/d/\n"
    );
}

#[test]
fn a_state_whose_keys_sitemapgen_could_not_have_written_is_refused() {
    let site = site_with_old_sitemap();
    let state = site.outside().join("state");
    let digest = "0".repeat(64);
    for key in ["/../../etc/passwd", "/\u{1b}[31mred.html", "/<x>&\"'.html"] {
        fs::write(
            &state,
            format!("sitemapgen-state 2\ndigest blake3 ignore=-\n{key} - {digest} -\nend 1\n"),
        )
        .unwrap();
        let before = site.all_files();
        site.command(&["--state"])
            .arg(&state)
            .run()
            .expect_code(1)
            .stderr_has(&["line 3 is malformed", "is not a URL path sitemapgen writes"]);
        assert_nothing_written(&site, &before);
    }
}

#[test]
fn a_state_repeating_one_record_is_refused_where_the_repeat_is_read() {
    let site = site_with_old_sitemap();
    let state = site.outside().join("state.gz");
    let record = format!("/a.html - {} -\n", "0".repeat(64));
    // 2 million records, 170 MB decompressed, some 200 KB compressed, and no end.
    let mut text = String::from("sitemapgen-state 2\ndigest blake3 ignore=-\n");
    text.push_str(&record.repeat(2_000_000));
    fs::write(&state, gzip(text.as_bytes())).unwrap();
    let before = site.all_files();
    site.command(&["--state"])
        .arg(&state)
        .run()
        .expect_code(1)
        .stderr_has(&["is not usable: line 4: it repeats the URL /a.html"]);
    assert_nothing_written(&site, &before);
}
