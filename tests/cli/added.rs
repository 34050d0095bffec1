//! `--add-urls`: URLs outside the build folder, from a text file or a sitemap, listed after
//! the pages with the checks a page gets, dated and kept in the state like pages.

use std::fs;
use std::io::Write;
use std::path::PathBuf;
use std::process::Command;

use crate::harness::{BASE, Site};
use crate::validate::{self, UrlRecord, locs};

fn site() -> Site {
    Site::with_pages(&["index.html", "a.html", "blog/index.html", "blog/p.html"])
}

/// Writes `text` beside the site as `name` and gives its path.
fn beside(site: &Site, name: &str, text: impl AsRef<[u8]>) -> PathBuf {
    let path = site.outside().join(name);
    fs::write(&path, text).unwrap();
    path
}

fn gzip(bytes: &[u8]) -> Vec<u8> {
    let mut encoder = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
    encoder.write_all(bytes).unwrap();
    encoder.finish().unwrap()
}

fn args<'a>(extra: &[&'a str], files: &'a [PathBuf]) -> Vec<&'a str> {
    let mut args = extra.to_vec();
    for file in files {
        args.extend(["--add-urls", file.to_str().unwrap()]);
    }
    args
}

fn dates(urls: &[UrlRecord]) -> Vec<(&str, Option<&str>)> {
    urls.iter()
        .map(|url| (url.loc.as_str(), url.lastmod.as_deref()))
        .collect()
}

const URLS_TXT: &str = "\u{feff}# routes the app serves\n\
    \n\
    https://example.com/zz\n\
    \thttps://EXAMPLE.com:443/app/  2024-05-01T10:00:00+02:00\r\n\
    https://example.com/blog/caf\u{e9}/../x 2024-03-01\n";

const URLS_XML: &str = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n\
    <urlset xmlns=\"http://www.sitemaps.org/schemas/sitemap/0.9\">\n\
    <url><loc>https://example.com/search</loc><lastmod>2024-01-02</lastmod></url>\n\
    <url>\n  <loc>\n    https://example.com/app/x%7e\n  </loc>\n</url>\n\
    </urlset>\n";

#[test]
fn a_text_file_and_a_sitemap_are_listed_after_the_pages_in_path_order() {
    let site = site();
    let files = [
        beside(&site, "urls.txt", URLS_TXT),
        // Told apart by content, not by name: a gzipped sitemap named .txt.
        beside(&site, "more.txt", gzip(URLS_XML.as_bytes())),
    ];
    let summary = site.outside().join("summary.json");
    let extra = [
        "--lastmod",
        "2025-01-01",
        "--summary-json",
        summary.to_str().unwrap(),
    ];
    site.run(&args(&extra, &files))
        .success()
        .stderr_has(&["wrote 9 URLs (5 from --add-urls) to "]);
    let urls = validate::sitemap(&site.sitemap_path(), BASE);
    assert_eq!(
        dates(&urls),
        [
            ("https://example.com/", Some("2025-01-01")),
            ("https://example.com/a.html", Some("2025-01-01")),
            ("https://example.com/blog/", Some("2025-01-01")),
            ("https://example.com/blog/p.html", Some("2025-01-01")),
            // Then the added URLs, depth first by path, normalised as pages' are; with no
            // date, the run's.
            (
                "https://example.com/app/",
                Some("2024-05-01T10:00:00+02:00")
            ),
            ("https://example.com/app/x~", Some("2025-01-01")),
            ("https://example.com/blog/x", Some("2024-03-01")),
            ("https://example.com/search", Some("2024-01-02")),
            ("https://example.com/zz", Some("2025-01-01")),
        ]
    );
    let json: serde_json::Value =
        serde_json::from_str(&fs::read_to_string(&summary).unwrap()).unwrap();
    assert_eq!(json["listed"], 9);
    assert_eq!(json["added_urls"], 5);

    // The same URLs from the files in the other order: the same bytes.
    let sitemap = fs::read(site.sitemap_path()).unwrap();
    let swapped = [files[1].clone(), files[0].clone()];
    site.run(&args(&["--lastmod", "2025-01-01"], &swapped))
        .success();
    assert_eq!(fs::read(site.sitemap_path()).unwrap(), sitemap);
    // --check compares them too.
    site.run(&args(&["--lastmod", "2025-01-01", "--check"], &files))
        .success();
    site.run(&args(&["--lastmod", "2025-01-01", "--check"], &files[..1]))
        .expect_code(1)
        .stderr_has(&["- https://example.com/search"]);
}

#[test]
fn a_page_wins_over_an_added_url_and_one_added_twice_is_listed_once() {
    let site = site();
    let urls = beside(
        &site,
        "urls.txt",
        "https://example.com/a.html 2020-01-01
         https://example.com/app 2024-01-01
         https://example.com/app 2024-02-02
",
    );
    let sitemap = beside(
        &site,
        "old.xml",
        "<urlset xmlns=\"http://www.sitemaps.org/schemas/sitemap/0.9\">\n         <url><loc>https://example.com/app</loc></url></urlset>\n",
    );
    let files = [urls.clone(), sitemap.clone()];
    let run = site.run(&args(&["--lastmod", "2025-01-01"], &files));
    run.success().stderr_has(&[
        &format!(
            "warning: {}:3: https://example.com/app is added again (first at {}:2); \
             listing it once, with the first one's date",
            urls.display(),
            urls.display()
        ),
        &format!(
            "warning: {}:2: https://example.com/app is added again (first at {}:2)",
            sitemap.display(),
            urls.display()
        ),
        &format!(
            "warning: {}:1: https://example.com/a.html is the URL of the page a.html; \
             listing the page",
            urls.display()
        ),
        "wrote 5 URLs (1 from --add-urls) to ",
        "(left out: 1 with a URL another file has)",
    ]);
    let listed = validate::sitemap(&site.sitemap_path(), BASE);
    assert_eq!(
        dates(&listed)[1..],
        [
            ("https://example.com/a.html", Some("2025-01-01")),
            ("https://example.com/blog/", Some("2025-01-01")),
            ("https://example.com/blog/p.html", Some("2025-01-01")),
            ("https://example.com/app", Some("2024-01-01")),
        ]
    );
    // --strict makes a warning an error, and writes nothing.
    let before = fs::read(site.sitemap_path()).unwrap();
    site.run(&args(&["--strict"], &files))
        .expect_code(1)
        .stderr_has(&["is added again", "(--strict)"]);
    assert_eq!(fs::read(site.sitemap_path()).unwrap(), before);
}

#[test]
fn what_is_wrong_in_a_file_exits_2_and_a_file_that_cannot_be_read_1_writing_nothing() {
    let site = site();
    site.run(&[]).success();
    let before = fs::read(site.sitemap_path()).unwrap();
    let dir = site.outside().join("a-dir");
    fs::create_dir(&dir).unwrap();
    let fifo = site.outside().join("fifo");
    assert!(
        Command::new("mkfifo")
            .arg(&fifo)
            .status()
            .unwrap()
            .success()
    );
    let files = site.all_files();
    let xml = |body: &str| {
        format!("<urlset xmlns=\"http://www.sitemaps.org/schemas/sitemap/0.9\">\n{body}</urlset>\n")
    };
    let cases: [(&str, String, &str); 9] = [
        ("out.txt", "https://example.com/a\nhttps://example.org/b\n".into(), "out.txt:2: https://example.org/b is outside the base URL https://example.com/"),
        ("rel.txt", "/app/\n".into(), "rel.txt:1: the line is not a URL: 5 characters, no http:// or https:// scheme"),
        ("words.txt", "# x\nhttps://example.com/a 2024-01-01 extra\n".into(), "words.txt:2: \"https://example.com/a 2024-01-01 extra\" is not a URL, optionally with a date after a space"),
        ("date.txt", "https://example.com/a 2024-02-30\n".into(), "date.txt:1: \"2024-02-30\" is not a W3C date"),
        ("zone.txt", "https://example.com/a 2024-02-01T10:00:00\n".into(), "zone.txt:1: \"2024-02-01T10:00:00\" is not a W3C date"),
        ("query.txt", "https://example.com/s?q=a\n".into(), "query.txt:1: https://example.com/s?q=a has a query or a fragment"),
        ("date.xml", xml("<url><loc>https://example.com/a</loc></url>\n<url><loc>https://example.com/b</loc><lastmod>soon</lastmod></url>\n"), "date.xml:3: \"soon\" is not a W3C date"),
        ("index.xml", "<sitemapindex xmlns=\"http://www.sitemaps.org/schemas/sitemap/0.9\"><sitemap><loc>https://example.com/s.xml</loc></sitemap></sitemapindex>".into(), "index.xml is a sitemap index, not a urlset of URLs"),
        ("torn.xml", xml("<url><loc>https://example.com/a</loc></url>\n<url><loc>https://example.com/b</url>\n"), "torn.xml is not well-formed XML"),
    ];
    for (name, text, error) in cases {
        let path = beside(&site, name, text);
        site.run(&["--add-urls", path.to_str().unwrap()])
            .expect_code(2)
            .stderr_has(&[&format!(
                "sitemapgen: error: {}",
                site.outside().join(error).display()
            )]);
        fs::remove_file(path).unwrap();
        assert_eq!(fs::read(site.sitemap_path()).unwrap(), before, "{name}");
        assert_eq!(site.all_files(), files, "{name}: files left behind or lost");
    }
    let missing = site.outside().join("missing.txt");
    for (path, error) in [
        (&missing, "there is no file".to_string()),
        (
            &dir,
            format!(
                "cannot read {} (--add-urls): it is not a regular file",
                dir.display()
            ),
        ),
        (
            &fifo,
            format!(
                "cannot read {} (--add-urls): it is not a regular file",
                fifo.display()
            ),
        ),
    ] {
        site.run(&["--add-urls", path.to_str().unwrap()])
            .expect_code(1)
            .stderr_has(&[&error]);
        assert_eq!(fs::read(site.sitemap_path()).unwrap(), before);
        assert_eq!(site.all_files(), files);
    }
}

#[test]
fn the_state_keeps_an_added_urls_date_re_dates_a_changed_one_and_removes_a_dropped_one() {
    let site = site();
    let state = site.outside().join("sitemap.state");
    let changes = site.outside().join("changes.txt");
    let urls = site.outside().join("urls.txt");
    let run = |lastmod: &str, text: &str| {
        fs::write(&urls, text).unwrap();
        let mut cmd = site.command(&["--lastmod", lastmod, "--add-urls"]);
        cmd.arg(&urls)
            .arg("--state")
            .arg(&state)
            .arg("--changes")
            .arg(&changes);
        let run = cmd.run();
        run.success();
        let listed = validate::sitemap(&site.sitemap_path(), BASE);
        let added: Vec<(String, Option<String>)> = listed[4..]
            .iter()
            .map(|url| (url.loc.clone(), url.lastmod.clone()))
            .collect();
        (run, added, fs::read_to_string(&changes).unwrap())
    };
    let own = |loc: &str, date: &str| (loc.to_string(), Some(date.to_string()));
    let (first, added, changed) = run(
        "2025-01-01",
        "https://example.com/app\nhttps://example.com/dated 2024-01-01\nhttps://example.com/gone\n",
    );
    first.stderr_has(&["since the state: 7 added, 0 removed, 0 re-dated, 0 kept"]);
    assert_eq!(
        added,
        [
            own("https://example.com/app", "2025-01-01"),
            own("https://example.com/dated", "2024-01-01"),
            own("https://example.com/gone", "2025-01-01"),
        ]
    );
    assert!(
        changed.contains("added https://example.com/app\n"),
        "{changed}"
    );

    // A later run: the URL with no date keeps the state's; a new date re-dates; a URL no
    // longer given is removed.
    let (second, added, changed) = run(
        "2025-02-02",
        "https://example.com/app\nhttps://example.com/dated 2024-06-01\n",
    );
    second.stderr_has(&["since the state: 0 added, 1 removed, 1 re-dated, 5 kept"]);
    assert_eq!(
        added,
        [
            own("https://example.com/app", "2025-01-01"),
            own("https://example.com/dated", "2024-06-01"),
        ]
    );
    assert_eq!(
        changed,
        "redated https://example.com/dated\nremoved https://example.com/gone\n"
    );
    let (third, _, changed) = run(
        "2025-03-03",
        "https://example.com/app\nhttps://example.com/dated 2024-06-01\n",
    );
    third.stderr_has(&["0 added, 0 removed, 0 re-dated, 6 kept"]);
    assert_eq!(changed, "");
}

#[test]
fn an_added_url_goes_to_its_group_and_robots_txt_leaves_it_out_as_it_does_a_page() {
    let site = site();
    site.write("robots.txt", "User-agent: *\nDisallow: /private/\n");
    beside(
        &site,
        "urls.txt",
        "https://example.com/blog/x/\nhttps://example.com/app\nhttps://example.com/private/p\n",
    );
    // From the config file (in the current directory, as the file it names).
    beside(&site, "sitemapgen.toml", "add-urls = [\"urls.txt\"]\n");
    site.run(&["--lastmod", "2025-01-01", "--group", "blog=blog/**", "-v"])
        .success()
        .stderr_has(&[
            "skip urls.txt:3: robots.txt disallows its URL",
            "wrote 6 URLs (2 from --add-urls) in 2 sitemaps indexed by ",
            "(left out: 1 disallowed by robots.txt; ",
        ]);
    let index = validate::index(&site.sitemap_path(), BASE);
    assert_eq!(
        locs(&index),
        [
            "https://example.com/sitemap-blog.xml",
            "https://example.com/sitemap-pages.xml"
        ]
    );
    let blog = validate::sitemap(&site.path("sitemap-blog.xml"), BASE);
    assert_eq!(
        locs(&blog),
        [
            "https://example.com/blog/",
            "https://example.com/blog/p.html",
            "https://example.com/blog/x/"
        ]
    );
    let pages = validate::sitemap(&site.path("sitemap-pages.xml"), BASE);
    assert_eq!(
        locs(&pages),
        [
            "https://example.com/",
            "https://example.com/a.html",
            "https://example.com/app"
        ]
    );
}
