//! A CI job with no memory: the state read from where the last deploy published it
//! (`--state-url`), or the dates of the sitemap published before (`--previous-sitemap`);
//! the changes of a run (`--changes`); their submission to IndexNow (`--indexnow-submit`).
//! Every server is one the test starts on the loopback address (`serve.rs`).

use std::collections::BTreeMap;
use std::fs;
use std::io::Write;
use std::path::Path;
use std::time::Duration;

use crate::harness::{OLD_SITEMAP, Run, Site, copy_tree, fixture_dir};
use crate::rebuilds::{overlay, touch_all};
use crate::serve::{Reply, Request, Server};
use crate::validate;

/// The base URL the MkDocs Material fixture was built for.
const BASE: &str = "https://python-markdown.example.org/";
const KEY: &str = "sitemapgen-test-key-0123";
/// The page the fixture's `edit` build changes.
const EDITED: &str = "https://python-markdown.example.org/extensions/nl2br/";

/// A fresh build, as on a new CI machine: the fixture's base build, with `variant` over it,
/// every file new.
fn build(variant: Option<&str>, seconds: i64) -> Site {
    let fixture = fixture_dir("rebuilds").join("mkdocs-material");
    let site = Site::empty();
    overlay(&fixture.join("base"), &site.root);
    if let Some(variant) = variant {
        overlay(&fixture.join(variant), &site.root);
    }
    touch_all(&site.root, seconds);
    site
}

/// Publishes DIR as it is at `live`, replacing what was there.
fn deploy(site: &Site, live: &Path) {
    let _ = fs::remove_dir_all(live);
    copy_tree(&site.root, live);
}

/// The job's sitemapgen step: the state in DIR, read from `server` when absent.
fn job(site: &Site, server: &Server, lastmod: &str, extra: &[&str]) -> Run {
    site.command(&["-b", BASE, "--lastmod", lastmod, "--state"])
        .arg(site.root.join("sitemap.state.gz"))
        .args(["--state-url", &server.url("/sitemap.state.gz"), "--changes"])
        .arg(site.outside().join("changes.txt"))
        .args(["--indexnow-key-env", "TEST_INDEXNOW_KEY"])
        .env("TEST_INDEXNOW_KEY", KEY)
        .args(extra)
        .run()
}

fn dates(site: &Site) -> BTreeMap<String, Option<String>> {
    validate::sitemap(&site.sitemap_path(), BASE)
        .into_iter()
        .map(|url| (url.loc, url.lastmod))
        .collect()
}

fn changes(site: &Site) -> String {
    fs::read_to_string(site.outside().join("changes.txt")).unwrap()
}

/// An IndexNow endpoint that answers each request with the next of `statuses` (the last
/// one again once they run out).
fn endpoint(statuses: &[u16]) -> Server {
    let statuses = statuses.to_vec();
    let count = std::sync::atomic::AtomicUsize::new(0);
    Server::start(move |_| {
        let n = count.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
        let status = statuses[n.min(statuses.len() - 1)];
        Reply::status(status, format!("answer {status}")).with_header("Retry-After", "0")
    })
}

fn submit(site: &Site, endpoint: &Server) -> Run {
    site.command(&["-b", BASE, "--indexnow-submit", "--changes"])
        .arg(site.outside().join("changes.txt"))
        .args(["--indexnow-key-env", "TEST_INDEXNOW_KEY"])
        .args(["--indexnow-endpoint", &endpoint.url("/indexnow")])
        .env("TEST_INDEXNOW_KEY", KEY)
        .run()
}

/// The URL lists of the submissions an endpoint received, checking each is what IndexNow
/// asks for.
fn submitted(endpoint: &Server) -> Vec<Vec<String>> {
    endpoint
        .requests()
        .iter()
        .map(|request: &Request| {
            assert_eq!(request.method, "POST");
            assert_eq!(request.path, "/indexnow");
            assert_eq!(
                request.header("content-type"),
                Some("application/json; charset=utf-8")
            );
            let json: serde_json::Value = serde_json::from_slice(&request.body).unwrap();
            assert_eq!(json["host"], "python-markdown.example.org");
            assert_eq!(json["key"], KEY);
            assert_eq!(json["keyLocation"], format!("{BASE}{KEY}.txt"));
            json["urlList"]
                .as_array()
                .unwrap()
                .iter()
                .map(|url| url.as_str().unwrap().to_string())
                .collect()
        })
        .collect()
}

#[test]
fn ci_without_a_cache_keeps_every_date_and_tells_indexnow_the_one_page_that_changed() {
    let live = tempfile::tempdir().unwrap();
    let server = Server::files(live.path().to_path_buf());

    // Run 1: nothing published yet, a first run.
    let first = build(None, 1_700_000_000);
    job(&first, &server, "2024-01-01", &[])
        .success()
        .stderr_has(&[
            "(404)",
            "a first run",
            "11 added, 0 removed, 0 re-dated, 0 kept",
        ]);
    assert_eq!(
        fs::read(first.root.join(format!("{KEY}.txt"))).unwrap(),
        KEY.as_bytes(),
        "the key file is in DIR, to be deployed"
    );
    let state = fs::read(first.root.join("sitemap.state.gz")).unwrap();
    assert!(
        state.starts_with(&[0x1f, 0x8b]),
        "the published state is compressed"
    );
    deploy(&first, live.path());

    // Run 2: a fresh clone, everything rebuilt, no local state: every date kept.
    let second = build(Some("rebuild"), 1_800_000_000);
    job(&second, &server, "2025-01-01", &[])
        .success()
        .stderr_has(&[
            "read the state published at",
            "0 added, 0 removed, 0 re-dated, 11 kept",
        ]);
    assert_eq!(dates(&second), dates(&first));
    assert_eq!(changes(&second), "");
    deploy(&second, live.path());

    // Run 3: one page's text changed: it alone is re-dated, listed and submitted.
    let third = build(Some("edit"), 1_900_000_000);
    job(&third, &server, "2026-01-01", &[])
        .success()
        .stderr_has(&["0 added, 0 removed, 1 re-dated, 10 kept"]);
    let (before, after) = (dates(&second), dates(&third));
    let redated: Vec<&String> = after
        .keys()
        .filter(|loc| before[*loc] != after[*loc])
        .collect();
    assert_eq!(redated, [EDITED]);
    assert_eq!(after[EDITED].as_deref(), Some("2026-01-01"));
    assert_eq!(changes(&third), format!("redated {EDITED}\n"));
    deploy(&third, live.path());
    let state_requests = server.requests();
    assert!(state_requests.iter().all(|r| r.path == "/sitemap.state.gz"));
    assert_eq!(state_requests.len(), 3);

    let indexnow = endpoint(&[200]);
    submit(&third, &indexnow)
        .success()
        .stderr_has(&["submitted 1 URL to IndexNow", "(200"]);
    assert_eq!(submitted(&indexnow), [[EDITED]]);
    // The same changes again: nothing is submitted twice.
    submit(&third, &indexnow)
        .success()
        .stderr_has(&["submitted already"]);
    assert_eq!(indexnow.requests().len(), 1);
    // A file of someone else's where the receipt goes is never replaced.
    let receipt = third.outside().join("changes.txt.submitted");
    fs::write(&receipt, "my notes\n").unwrap();
    submit(&third, &indexnow)
        .expect_code(2)
        .stderr_has(&["changes.txt.submitted exists and is not a receipt of sitemapgen"]);
    assert_eq!(fs::read_to_string(&receipt).unwrap(), "my notes\n");
    assert_eq!(indexnow.requests().len(), 1);
}

#[test]
fn with_no_state_published_the_published_sitemap_keeps_every_date() {
    for split in [false, true] {
        let live = tempfile::tempdir().unwrap();
        let server = Server::files(live.path().to_path_buf());
        // A site published by another tool, or whose state was lost: only its sitemap
        // (an index and its shards when split) is live.
        let max_urls: &[&str] = if split { &["--max-urls", "4"] } else { &[] };
        let first = build(None, 1_700_000_000);
        job(&first, &server, "2024-01-01", max_urls).success();
        deploy(&first, live.path());
        fs::remove_file(live.path().join("sitemap.state.gz")).unwrap();
        if split {
            validate::index(&first.sitemap_path(), BASE);
            assert!(live.path().join("sitemap-3.xml").exists());
        }

        let previous = server.url("/sitemap.xml");
        let second = build(Some("rebuild"), 1_800_000_000);
        job(
            &second,
            &server,
            "2025-01-01",
            &["--previous-sitemap", &previous],
        )
        .success()
        .stderr_has(&[
            "(404): the 11 URLs listed in",
            "0 added, 0 removed, 0 re-dated, 11 kept",
        ]);
        if !split {
            assert_eq!(dates(&second), dates(&first));
        }
        assert_eq!(changes(&second), "");
        deploy(&second, live.path());

        // From then on the state is exact.
        let third = build(Some("edit"), 1_900_000_000);
        job(
            &third,
            &server,
            "2026-01-01",
            &["--previous-sitemap", &previous],
        )
        .success()
        .stderr_has(&["1 re-dated, 10 kept"]);
        assert_eq!(changes(&third), format!("redated {EDITED}\n"));
    }
}

#[test]
fn a_published_sitemap_file_lends_its_dates_and_its_unknown_pages_are_new() {
    let site = Site::with_pages(&["a.html", "b.html", "new.html"]);
    let old = site.outside().join("old.xml");
    fs::write(
        &old,
        "<?xml version=\"1.0\"?><urlset xmlns=\"http://www.sitemaps.org/schemas/sitemap/0.9\" \
         xmlns:image=\"http://www.google.com/schemas/sitemap-image/1.1\">\
         <url><loc>http://example.com/a.html</loc><lastmod>2020-01-02</lastmod>\
         <image:image><image:loc>https://example.com/a.png</image:loc></image:image></url>\
         <url><loc>https://example.com/b.html</loc></url>\
         <url><loc>https://example.com/gone.html</loc><lastmod>2020-01-03</lastmod></url>\
         </urlset>",
    )
    .unwrap();
    let state = site.outside().join("state");
    let changes = site.outside().join("changes.txt");
    site.command(&["--lastmod", "2024-06-01", "--state"])
        .arg(&state)
        .arg("--previous-sitemap")
        .arg(&old)
        .arg("--changes")
        .arg(&changes)
        .run()
        .success()
        .stderr_has(&["1 added, 1 removed, 0 re-dated, 2 kept"]);
    let dates: BTreeMap<String, Option<String>> =
        validate::sitemap(&site.sitemap_path(), crate::harness::BASE)
            .into_iter()
            .map(|url| (url.loc, url.lastmod))
            .collect();
    // Another scheme, the same page; no date published, none claimed.
    assert_eq!(
        dates["https://example.com/a.html"].as_deref(),
        Some("2020-01-02")
    );
    assert_eq!(dates["https://example.com/b.html"], None);
    assert_eq!(
        dates["https://example.com/new.html"].as_deref(),
        Some("2024-06-01")
    );
    assert_eq!(
        fs::read_to_string(&changes).unwrap(),
        "added https://example.com/new.html\nremoved https://example.com/gone.html\n"
    );

    // An index file: its shards are the files of their names beside it.
    let published = site.outside().join("published");
    fs::create_dir(&published).unwrap();
    let index = published.join("sitemap.xml.gz");
    fs::write(
        &index,
        gzip(
            b"<?xml version=\"1.0\"?><sitemapindex xmlns=\"http://www.sitemaps.org/schemas/sitemap/0.9\">\
              <sitemap><loc>https://example.com/sitemap-1.xml</loc></sitemap></sitemapindex>",
        ),
    )
    .unwrap();
    fs::write(published.join("sitemap-1.xml"), fs::read(&old).unwrap()).unwrap();
    let adopt = |state: &str| {
        site.command(&["--lastmod", "2024-06-01", "--state"])
            .arg(site.outside().join(state))
            .arg("--previous-sitemap")
            .arg(&index)
            .run()
    };
    adopt("state-2")
        .success()
        .stderr_has(&["1 added, 1 removed, 0 re-dated, 2 kept"]);
    // A shard the index lists and nobody kept: the run stops.
    fs::remove_file(published.join("sitemap-1.xml")).unwrap();
    adopt("state-3")
        .expect_code(1)
        .stderr_has(&["lists https://example.com/sitemap-1.xml, and there is no"]);
}

/// A site with an earlier sitemap, which a failed run must leave as it is.
pub fn site_with_old_sitemap() -> Site {
    let site = Site::with_pages(&["index.html", "a.html"]);
    fs::write(site.sitemap_path(), OLD_SITEMAP).unwrap();
    site
}

#[track_caller]
pub fn assert_nothing_written(site: &Site, before: &[std::path::PathBuf]) {
    assert_eq!(
        fs::read_to_string(site.sitemap_path()).unwrap(),
        OLD_SITEMAP
    );
    assert_eq!(site.all_files(), before, "no file added, no temp file left");
}

pub fn gzip(bytes: &[u8]) -> Vec<u8> {
    let mut encoder = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
    encoder.write_all(bytes).unwrap();
    encoder.finish().unwrap()
}

#[test]
fn a_published_state_that_cannot_be_had_stops_the_run_with_nothing_written() {
    let header = "sitemapgen-state 2\ndigest blake3 ignore=-\n";
    let mut bomb = header.as_bytes().to_vec();
    bomb.extend(std::iter::repeat_n(b'/', 64 << 20));
    let bomb = gzip(&bomb);
    let cases: Vec<(&str, Reply, &[&str])> = vec![
        (
            "server error",
            Reply::status(500, "<h1>oops</h1>"),
            &["answered 500: <h1>oops</h1>"],
        ),
        ("forbidden", Reply::status(403, ""), &["answered 403"]),
        (
            "a text that is no state",
            Reply::status(200, "Home\n"),
            &["is not usable: line 1 is not a sitemapgen-state header"],
        ),
        (
            "a redirect to another host",
            Reply::status(302, "").with_header("Location", "http://localhost:1/state"),
            &["redirects to http://localhost:1/state, on another host or scheme: refused"],
        ),
        (
            "a gzip bomb",
            Reply::status(200, bomb),
            &[
                "is not usable: reading a record",
                "a line is longer than 16 KiB",
            ],
        ),
        (
            "a huge body, announced",
            Reply::Zeros {
                announced: Some(300 << 20),
                length: 1 << 20,
            },
            &["is 300 MiB, larger than 256 MiB"],
        ),
        (
            "no answer",
            Reply::Silence(Duration::from_secs(5)),
            &["cannot fetch", "timeout"],
        ),
    ];
    for (case, reply, expected) in cases {
        let reply = std::sync::Mutex::new(Some(reply));
        let server = Server::start(move |_| {
            reply
                .lock()
                .unwrap()
                .take()
                .unwrap_or(Reply::status(599, ""))
        });
        let site = site_with_old_sitemap();
        let before = site.all_files();
        let url = server.url("/sitemap.state.gz");
        let run = site
            .command(&["--http-timeout", "1", "--state"])
            .arg(site.root.join("sitemap.state.gz"))
            .args(["--state-url", &url])
            .run();
        assert_eq!(run.code(), 1, "{case}: {}", run.stderr());
        run.stderr_has(&["sitemapgen: error: ", &url]);
        run.stderr_has(expected);
        run.stderr_has(&["\nhint: drop --state-url to go without it"]);
        assert_nothing_written(&site, &before);
    }
}

#[test]
fn a_redirect_on_the_same_site_is_followed_and_a_missing_state_is_a_first_run() {
    let live = tempfile::tempdir().unwrap();
    let published = build(None, 1_700_000_000);
    let server = Server::files(live.path().to_path_buf());
    job(&published, &server, "2024-01-01", &[]).success();
    deploy(&published, live.path());
    let files = Server::files(live.path().to_path_buf());
    let target = files.url("/sitemap.state.gz");
    let moved = Server::start(move |request| match request.path.as_str() {
        "/old" => Reply::status(301, "").with_header("Location", "/new"),
        "/new" => Reply::status(307, "").with_header("Location", &target),
        _ => Reply::status(404, ""),
    });
    // Another port is another origin: refused.
    let site = build(Some("rebuild"), 1_800_000_000);
    let run = site
        .command(&["-b", BASE, "--state"])
        .arg(site.root.join("sitemap.state.gz"))
        .args(["--state-url", &moved.url("/old")])
        .run();
    run.expect_code(1)
        .stderr_has(&["on another host or scheme: refused"]);
    assert_eq!(
        moved
            .requests()
            .iter()
            .map(|r| r.path.as_str())
            .collect::<Vec<_>>(),
        ["/old", "/new"]
    );
    let same = Server::files(live.path().to_path_buf());
    let run = site
        .command(&["-b", BASE, "--lastmod", "2025-01-01", "--state"])
        .arg(site.root.join("sitemap.state.gz"))
        .args(["--state-url", &same.url("/missing.gz")])
        .run();
    run.success()
        .stderr_has(&["(404)", "a first run", "11 added"]);
}

/// An index that lists an index (/inner.xml, which is this again).
const INDEX_OF_INDEX: &str = "<?xml version=\"1.0\"?>\
    <sitemapindex xmlns=\"http://www.sitemaps.org/schemas/sitemap/0.9\">\
    <sitemap><loc>https://example.com/inner.xml</loc></sitemap></sitemapindex>";

#[test]
fn a_previous_sitemap_that_cannot_be_had_stops_the_run() {
    let cases: Vec<(&str, Reply, &str)> = vec![
        (
            "server error",
            Reply::status(502, "bad gateway"),
            "answered 502: bad gateway",
        ),
        (
            "a text that is no sitemap",
            Reply::status(200, "Home\n"),
            "is not a sitemap",
        ),
        (
            "an index of an index",
            Reply::status(200, INDEX_OF_INDEX),
            "another index",
        ),
        (
            "a huge body",
            Reply::Zeros {
                announced: None,
                length: 65 << 20,
            },
            "it is larger than 64 MiB",
        ),
    ];
    for (case, reply, expected) in cases {
        let reply = std::sync::Mutex::new(Some(reply));
        let server = Server::start(move |request| match request.path.as_str() {
            "/inner.xml" => Reply::status(200, INDEX_OF_INDEX),
            "/sitemap.xml" => reply
                .lock()
                .unwrap()
                .take()
                .unwrap_or(Reply::status(200, "")),
            _ => Reply::status(404, ""),
        });
        let site = site_with_old_sitemap();
        let before = site.all_files();
        let run = site
            .command(&["--state"])
            .arg(site.outside().join("state"))
            .args(["--previous-sitemap", &server.url("/sitemap.xml")])
            .run();
        assert_eq!(run.code(), 1, "{case}: {}", run.stderr());
        run.stderr_has(&[expected]);
        assert_nothing_written(&site, &before);
    }
}

/// A changes file of `n` URLs beside `site`.
fn changes_of(site: &Site, n: usize) {
    let mut text = String::new();
    for i in 0..n {
        text.push_str(&format!("added {BASE}p{i}/\n"));
    }
    fs::write(site.outside().join("changes.txt"), text).unwrap();
}

#[test]
fn indexnow_answers_are_reported_and_busy_ones_retried() {
    for (statuses, code, expected) in [
        (&[200][..], 0, "(200: accepted)"),
        (&[202], 0, "(202: accepted, the key is still being checked)"),
        (&[400], 1, "answered 400 (bad request): answer 400"),
        (&[403], 1, "answered 403 (the key is not valid"),
        (
            &[422],
            1,
            "answered 422 (URLs that do not belong to the host",
        ),
        (&[429, 200], 0, "(200: accepted)"),
        (
            &[503, 503, 503, 503],
            1,
            "answered 503 (the endpoint failed, again after retries)",
        ),
    ] {
        let site = Site::empty();
        changes_of(&site, 2);
        let indexnow = endpoint(statuses);
        let run = submit(&site, &indexnow);
        assert_eq!(run.code(), code, "{statuses:?}: {}", run.stderr());
        run.stderr_has(&[expected]);
        let tries = indexnow.requests().len();
        assert_eq!(tries, statuses.len(), "{statuses:?}");
        assert!(!run.stderr().contains(KEY), "the key is never shown");
    }
}

#[test]
fn indexnow_batches_hold_10000_urls_and_a_failed_one_is_sent_again_alone() {
    let site = Site::empty();
    changes_of(&site, 20_001);
    let failing = endpoint(&[200, 403]);
    submit(&site, &failing)
        .expect_code(1)
        .stderr_has(&["10,000 of the 20,001 URLs in"]);
    let sizes: Vec<usize> = submitted(&failing).iter().map(Vec::len).collect();
    assert_eq!(sizes, [10_000, 10_000]);
    let working = endpoint(&[200]);
    submit(&site, &working)
        .success()
        .stderr_has(&["submitted 10,001 URLs"]);
    let batches = submitted(&working);
    assert_eq!(
        batches.iter().map(Vec::len).collect::<Vec<_>>(),
        [10_000, 1]
    );
    assert_eq!(batches[1], [format!("{BASE}p20000/")]);
    // The next run's changes file is another set of changes.
    changes_of(&site, 1);
    let next = endpoint(&[200]);
    submit(&site, &next).success();
    assert_eq!(submitted(&next), [[format!("{BASE}p0/")]]);
}

#[test]
fn a_changes_file_is_read_only_when_regular_bounded_and_of_urls_a_run_writes() {
    let site = Site::empty();
    let path = site.outside().join("changes.txt");
    let fifo = site.outside().join("fifo");
    assert!(
        std::process::Command::new("mkfifo")
            .arg(&fifo)
            .status()
            .unwrap()
            .success()
    );
    let long = format!("added {BASE}{}\n", "a".repeat(5000));
    let cases: Vec<(Vec<u8>, i32, String)> = vec![
        (long.into(), 1, "a line is longer than 4 KiB".into()),
        (
            format!("added {BASE}a\nadded {BASE}a b\n").into(),
            1,
            format!(
                "line 2 of the changes file {} holds \"{BASE}a b\"",
                path.display()
            ),
        ),
        (
            [format!("added {BASE}caf").as_bytes(), b"\xe9\n"].concat(),
            1,
            format!("line 1 of the changes file {} is not UTF-8", path.display()),
        ),
        (
            format!("removed {BASE}../../etc/passwd\n").into(),
            1,
            "not a URL sitemapgen writes".into(),
        ),
        (
            format!("added {BASE}\x1b[31mred.html\n").into(),
            1,
            "\"https://python-markdown.example.org/\\u{1b}[31mred.html\"".into(),
        ),
    ];
    for (contents, code, expected) in cases {
        fs::write(&path, &contents).unwrap();
        let indexnow = endpoint(&[200]);
        let run = submit(&site, &indexnow);
        assert_eq!(run.code(), code, "{}", run.stderr());
        run.stderr_has(&[&expected]);
        assert!(indexnow.requests().is_empty(), "nothing is submitted");
    }
    // A device or a FIFO (which would hang the run, waiting for a writer) is not read.
    for target in [std::path::Path::new("/dev/zero"), &fifo] {
        fs::remove_file(&path).unwrap();
        std::os::unix::fs::symlink(target, &path).unwrap();
        let indexnow = endpoint(&[200]);
        submit(&site, &indexnow)
            .expect_code(1)
            .stderr_has(&[&format!(
                "cannot read the changes file {}: it is not a regular file",
                path.display()
            )]);
        assert!(indexnow.requests().is_empty(), "nothing is submitted");
    }
}

#[test]
fn what_ci_options_need_is_checked_before_any_work() {
    let site = Site::with_pages(&["index.html"]);
    let key_file = site.outside().join("key");
    fs::write(&key_file, "not a key!").unwrap();
    let cases: Vec<(Vec<String>, &str)> = vec![
        (
            vec!["--state-url".into(), "https://example.com/s.gz".into()],
            "--state-url needs --state",
        ),
        (
            vec!["--previous-sitemap".into(), "s.xml".into()],
            "--previous-sitemap needs --state",
        ),
        (
            vec!["--changes".into(), "c.txt".into()],
            "--changes needs --state",
        ),
        (
            vec![
                "--state".into(),
                "s".into(),
                "--state-url".into(),
                "ftp://example.com/s".into(),
            ],
            "--state-url \"ftp://example.com/s\" is not an http or https URL",
        ),
        (
            vec![
                "--state".into(),
                "s".into(),
                "--changes".into(),
                "c".into(),
                "-o".into(),
                "-".into(),
            ],
            "writes no changes file: drop --changes",
        ),
        (vec!["--http-timeout".into(), "0".into()], "--http-timeout"),
        (
            vec!["--indexnow-key-env".into(), "SITEMAPGEN_TEST_UNSET".into()],
            "the environment variable SITEMAPGEN_TEST_UNSET is not set",
        ),
        (
            vec!["--indexnow-key-file".into(), key_file.display().to_string()],
            "does not hold an IndexNow key (8 to 128 letters, digits and dashes)",
        ),
        (
            vec!["--indexnow-submit".into()],
            "--indexnow-submit submits the URLs of the --changes file",
        ),
        (
            vec!["--indexnow-submit".into(), "--changes".into(), "c".into()],
            "--indexnow-submit needs the key",
        ),
    ];
    for (args, expected) in cases {
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        let run = site.run(&args);
        assert_eq!(run.code(), 2, "{args:?}: {}", run.stderr());
        run.stderr_has(&[expected]);
        assert!(
            !run.stderr().contains("not a key!"),
            "the key file's content is never shown"
        );
        assert!(!site.sitemap_path().exists());
    }
    // The key from a file.
    changes_of(&site, 1);
    fs::write(&key_file, format!("{KEY}\n")).unwrap();
    let indexnow = endpoint(&[200]);
    site.command(&["-b", BASE, "--indexnow-submit", "--changes"])
        .arg(site.outside().join("changes.txt"))
        .arg("--indexnow-key-file")
        .arg(&key_file)
        .args(["--indexnow-endpoint", &indexnow.url("/indexnow")])
        .run()
        .success();
    assert_eq!(submitted(&indexnow), [[format!("{BASE}p0/")]]);
    // A changes file of another site: the base URL is wrong.
    fs::write(
        site.outside().join("changes.txt"),
        "added https://elsewhere.org/a\n",
    )
    .unwrap();
    let run = submit(&site, &endpoint(&[200]));
    run.expect_code(2).stderr_has(&["is not under --base-url"]);
    // A key file in DIR that holds another key is no file of this run.
    fs::write(site.root.join(format!("{KEY}.txt")), "another-key-0000").unwrap();
    let run = site
        .command(&["--indexnow-key-env", "TEST_INDEXNOW_KEY"])
        .env("TEST_INDEXNOW_KEY", KEY)
        .run();
    run.expect_code(2)
        .stderr_has(&["the IndexNow key file in DIR", "holds something else"]);
    assert!(!run.stderr().contains(KEY));
    assert!(!site.sitemap_path().exists());
}

#[test]
fn requests_go_through_the_proxy_the_environment_names_but_not_for_no_proxy_hosts() {
    let live = tempfile::tempdir().unwrap();
    let published = build(None, 1_700_000_000);
    let server = Server::files(live.path().to_path_buf());
    job(&published, &server, "2024-01-01", &[]).success();
    deploy(&published, live.path());
    // A proxy that reaches the live site whatever host is asked for (as a CONNECT tunnel,
    // which is how ureq goes through an HTTP proxy).
    let site_addr = server.addr();
    let proxy = Server::start(move |_| Reply::Tunnel(site_addr));
    let url = "http://sitemapgen-test.invalid/sitemap.state.gz";
    for variable in ["HTTP_PROXY", "http_proxy", "HTTPS_PROXY", "ALL_PROXY"] {
        let site = build(Some("rebuild"), 1_800_000_000);
        site.command(&["-b", BASE, "--state"])
            .arg(site.root.join("sitemap.state.gz"))
            .args(["--state-url", url])
            .env(variable, &proxy.url(""))
            .run()
            .success()
            .stderr_has(&["0 re-dated, 11 kept"]);
    }
    let requests = proxy.requests();
    assert_eq!(requests.len(), 4);
    assert!(
        requests
            .iter()
            .all(|r| r.method == "CONNECT" && r.path == "sitemapgen-test.invalid:80"),
        "{requests:?}"
    );
    // NO_PROXY: straight to the host, here one that refuses.
    let site = build(Some("rebuild"), 1_800_000_000);
    site.command(&["-b", BASE, "--state"])
        .arg(site.root.join("sitemap.state.gz"))
        .args(["--state-url", "http://127.0.0.1:1/sitemap.state.gz"])
        .env("HTTP_PROXY", &proxy.url(""))
        .env("NO_PROXY", "127.0.0.1")
        .env("CI", "true")
        .run()
        .expect_code(1)
        .stderr_has(&[
            "cannot fetch http://127.0.0.1:1/sitemap.state.gz",
            "refused",
        ]);
    assert_eq!(proxy.requests().len(), 4);
}

#[test]
fn a_state_that_the_deploy_will_not_publish_is_warned_about() {
    let live = tempfile::tempdir().unwrap();
    let server = Server::files(live.path().to_path_buf());
    let site = build(None, 1_700_000_000);
    let state_url = server.url("/sitemap.state.gz");
    let outside = site.outside().join("sitemap.state.gz");
    site.command(&["-b", BASE, "--state"])
        .arg(&outside)
        .args(["--state-url", &state_url])
        .run()
        .success()
        .stderr_has(&["is outside DIR, so the deploy does not publish it at --state-url"]);
    site.command(&["-b", BASE, "--strict", "--state"])
        .arg(&outside)
        .args(["--state-url", &state_url])
        .run()
        .expect_code(1);
    // Inside DIR (the recipe), no word of it.
    let run = job(&site, &server, "2024-01-01", &[]);
    run.success();
    assert!(!run.stderr().contains("outside DIR"), "{}", run.stderr());
}

#[test]
fn the_key_is_never_shown_where_a_file_name_or_an_answer_holds_it() {
    // The key file of an earlier run is a file of DIR that -v names as it passes it over.
    let site = Site::with_pages(&["index.html"]);
    let run = |site: &Site| {
        site.command(&["-v", "--indexnow-key-env", "TEST_INDEXNOW_KEY"])
            .env("TEST_INDEXNOW_KEY", KEY)
            .run()
    };
    run(&site).success();
    assert!(site.path(format!("{KEY}.txt")).exists());
    run(&site)
        .success()
        .stderr_has(&["skip KEY.txt: matches no --include glob"]);
    // An endpoint that refuses the submission and echoes it.
    changes_of(&site, 1);
    for status in [400, 422] {
        let echo = Server::start(move |request| Reply::status(status, request.body.clone()));
        submit(&site, &echo)
            .expect_code(1)
            .stderr_has(&[&format!("answered {status}"), "\"key\":\"KEY\""]);
    }
}

/// `url` with a user name and password, as a site behind HTTP authentication needs.
fn with_user_info(url: &str) -> String {
    url.replacen("http://", "http://ci-user:pa55-w0rd@", 1)
}

#[test]
fn a_url_with_a_password_is_used_as_given_and_shown_without_it() {
    let site = site_with_old_sitemap();
    // The URL's user information is sent as HTTP Basic authentication, so it is kept.
    let published = Server::start(|_| Reply::status(404, "not yet"));
    let state_url = with_user_info(&published.url("/sitemap.state.gz"));
    site.command(&["--state"])
        .arg(site.outside().join("state"))
        .args(["--state-url", &state_url])
        .run()
        .success()
        .stderr_has(&["http://…@127.0.0.1:", "a first run"]);
    let authorization = published.requests()[0]
        .header("authorization")
        .map(String::from);
    assert_eq!(
        authorization.as_deref(),
        Some("Basic Y2ktdXNlcjpwYTU1LXcwcmQ="),
        "ci-user:pa55-w0rd"
    );
    let failing = Server::start(|_| Reply::status(502, "bad gateway"));
    let site = site_with_old_sitemap();
    let before = site.all_files();
    site.command(&["--state"])
        .arg(site.outside().join("state"))
        .args([
            "--previous-sitemap",
            &with_user_info(&failing.url("/s.xml")),
        ])
        .run()
        .expect_code(1)
        .stderr_has(&["http://…@127.0.0.1:", "answered 502"]);
    assert_nothing_written(&site, &before);
    // IndexNow: the note of a submission, and the error of a refused one.
    for (statuses, code, expected) in [(&[200][..], 0, "submitted 1 URL"), (&[503, 403], 1, "403")]
    {
        // A set of changes not submitted yet.
        let _ = fs::remove_file(site.outside().join("changes.txt.submitted"));
        changes_of(&site, 1);
        let indexnow = endpoint(statuses);
        site.command(&["-b", BASE, "--indexnow-submit", "--changes"])
            .arg(site.outside().join("changes.txt"))
            .args(["--indexnow-key-env", "TEST_INDEXNOW_KEY"])
            .args([
                "--indexnow-endpoint",
                &with_user_info(&indexnow.url("/indexnow")),
            ])
            .env("TEST_INDEXNOW_KEY", KEY)
            .run()
            .expect_code(code)
            .stderr_has(&["IndexNow http://…@127.0.0.1:", expected]);
    }
}

#[test]
fn a_retry_after_given_as_an_http_date_is_waited_for() {
    let site = Site::empty();
    changes_of(&site, 1);
    let http_date = time::macros::format_description!(
        "[weekday repr:short], [day] [month repr:short] [year] [hour]:[minute]:[second] GMT"
    );
    let count = std::sync::atomic::AtomicUsize::new(0);
    let indexnow = Server::start(move |_| {
        if count.fetch_add(1, std::sync::atomic::Ordering::SeqCst) > 0 {
            return Reply::status(200, "");
        }
        let later = time::OffsetDateTime::now_utc() + Duration::from_secs(3);
        Reply::status(503, "busy").with_header("Retry-After", &later.format(http_date).unwrap())
    });
    let run = submit(&site, &indexnow);
    run.success().stderr_has(&["submitted 1 URL"]);
    // Whole seconds: the date's, less the moment between it and now.
    let stderr = run.stderr();
    assert!(
        stderr.contains("answered 503: trying again in 2 s")
            || stderr.contains("answered 503: trying again in 3 s"),
        "{stderr}"
    );
}

#[test]
fn a_key_file_that_is_a_fifo_or_a_device_is_not_read() {
    // A FIFO with no writer would hang the run; /dev/zero would never end.
    let site = Site::with_pages(&["index.html"]);
    let fifo = site.outside().join("fifo");
    assert!(
        std::process::Command::new("mkfifo")
            .arg(&fifo)
            .status()
            .unwrap()
            .success()
    );
    // --google-submit submits the sitemap a run wrote.
    site.run(&[]).success();
    let files = site.all_files();
    for target in [Path::new("/dev/zero"), &fifo] {
        for flag in ["--indexnow-key-file", "--google-key-file"] {
            let mut args = vec![flag.to_string(), target.display().to_string()];
            if flag == "--google-key-file" {
                args.insert(0, "--google-submit".into());
            }
            let args: Vec<&str> = args.iter().map(String::as_str).collect();
            site.run(&args).expect_code(2).stderr_has(&[&format!(
                "cannot read {flag} {}: it is not a regular file",
                target.display()
            )]);
            assert_eq!(site.all_files(), files, "{flag} {}", target.display());
        }
    }
}

/// A URL on the loopback address where nothing listens: a site out of reach.
fn nowhere(path: &str) -> String {
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    drop(listener);
    format!("http://127.0.0.1:{port}{path}")
}

/// The lines sitemapgen wrote but the summary line.
fn notes(run: &Run) -> Vec<String> {
    run.stderr()
        .lines()
        .filter(|line| !line.contains(" added, "))
        .map(String::from)
        .collect()
}

#[test]
fn a_site_out_of_reach_is_a_first_run_told_once_but_in_ci_it_stops_the_run() {
    let state = nowhere("/sitemap.state.gz");
    let sitemap = nowhere("/sitemap.xml");
    let run = |ci: &str| {
        let site = site_with_old_sitemap();
        let before = site.all_files();
        let run = site
            .command(&["--lastmod", "2024-01-01", "--state"])
            .arg(site.root.join("sitemap.state.gz"))
            .args(["--state-url", &state, "--previous-sitemap", &sitemap])
            .env("CI", ci)
            .run();
        (site, before, run)
    };
    for not_ci in ["", "false", "0"] {
        let (site, _, run) = run(not_ci);
        run.success();
        assert_eq!(
            notes(&run),
            [format!(
                "sitemapgen: note: {state} unreachable: dated from the files; drop --state-url to \
                 stop asking"
            )],
            "one line, and the sitemap's URL is not asked for"
        );
        assert_eq!(
            validate::sitemap(&site.sitemap_path(), crate::harness::BASE).len(),
            2
        );
        assert!(site.root.join("sitemap.state.gz").is_file());
    }
    let (site, before, run) = run("true");
    run.expect_code(1).stderr_has(&[
        &format!("sitemapgen: error: cannot fetch {state}: "),
        "hint: CI is set, and a first run there would re-date every page: run the job again \
         once the site answers, or drop --state-url",
    ]);
    assert_nothing_written(&site, &before);

    // Only --previous-sitemap out of reach: the same, naming it.
    let site = site_with_old_sitemap();
    site.command(&["--state"])
        .arg(site.root.join("sitemap.state.gz"))
        .args(["--previous-sitemap", &sitemap])
        .env("CI", "")
        .run()
        .success()
        .stderr_has(&[&format!(
            "{sitemap} unreachable: dated from the files; drop --previous-sitemap to stop asking"
        )]);
}

#[test]
fn an_html_page_for_the_state_and_the_sitemap_is_nothing_published_told_in_one_line() {
    // A single-page app's host: every path is its page.
    let server = Server::start(|_| {
        Reply::status(
            200,
            "\n<!DOCTYPE html><html><head><title>App</title></head></html>",
        )
    });
    let site = site_with_old_sitemap();
    let (state, sitemap) = (server.url("/sitemap.state.gz"), server.url("/sitemap.xml"));
    let run = site
        .command(&["--state"])
        .arg(site.root.join("sitemap.state.gz"))
        .args(["--state-url", &state, "--previous-sitemap", &sitemap])
        .env("CI", "true")
        .run();
    run.success();
    assert_eq!(
        notes(&run),
        [format!(
            "sitemapgen: note: no state at {state} (an HTML page, a single-page app's answer to any \
             path), no sitemap at {sitemap} (an HTML page, a single-page app's answer to any \
             path): a first run, every page is new"
        )]
    );
    // A 404 for both, in one line too.
    let files = Server::files(site.outside().to_path_buf());
    let (state, sitemap) = (files.url("/none.gz"), files.url("/none.xml"));
    let site = site_with_old_sitemap();
    let run = site
        .command(&["--state"])
        .arg(site.root.join("sitemap.state.gz"))
        .args(["--state-url", &state, "--previous-sitemap", &sitemap])
        .run();
    assert_eq!(
        notes(run.success()),
        [format!(
            "sitemapgen: note: no state at {state} (404), no sitemap at {sitemap} (404): a first run, \
             every page is new"
        )]
    );
}

#[test]
fn a_state_kept_outside_the_output_survives_its_cleaning_and_its_copy_is_published() {
    let live = tempfile::tempdir().unwrap();
    let server = Server::files(live.path().to_path_buf());
    let cache = tempfile::tempdir().unwrap();
    let kept = cache.path().join("sitemap.state.gz");
    let local = |site: &Site, lastmod: &str| {
        site.command(&["-b", BASE, "--lastmod", lastmod, "--state"])
            .arg(&kept)
            .arg("--state-copy")
            .arg(site.root.join("sitemap.state.gz"))
            .args(["--state-url", &server.url("/sitemap.state.gz")])
            .run()
    };
    let first = build(None, 1_700_000_000);
    let run = local(&first, "2024-01-01");
    run.success();
    assert!(
        !run.stderr().contains("outside DIR"),
        "the copy is in DIR: {}",
        run.stderr()
    );
    let copy = fs::read(first.root.join("sitemap.state.gz")).unwrap();
    assert_eq!(copy, fs::read(&kept).unwrap(), "the copy is the state");
    // The output cleaned and built again: the state kept beside it keeps every date.
    let second = build(Some("rebuild"), 1_800_000_000);
    local(&second, "2025-01-01")
        .success()
        .stderr_has(&["0 added, 0 removed, 0 re-dated, 11 kept"]);
    assert_eq!(dates(&second), dates(&first));
    // Deployed, the copy serves a CI job that has no state of its own.
    deploy(&second, live.path());
    let ci = build(Some("edit"), 1_900_000_000);
    job(&ci, &server, "2026-01-01", &[])
        .success()
        .stderr_has(&["read the state published at", "1 re-dated, 10 kept"]);
    // The copy replaces only a state.
    let site = build(None, 1_700_000_000);
    fs::write(site.root.join("sitemap.state.gz"), "my notes\n").unwrap();
    local(&site, "2024-01-01")
        .expect_code(2)
        .stderr_has(&["--state-copy", "exists and is not a state of sitemapgen"]);
    assert_eq!(
        fs::read_to_string(site.root.join("sitemap.state.gz")).unwrap(),
        "my notes\n"
    );
    site.run(&["--state-copy", "x.gz"])
        .expect_code(2)
        .stderr_has(&["--state-copy needs --state"]);
}
