//! One test per bug found from outside the team (the attack rounds of issues 11, 35 and 44,
//! and the real sites), named by what broke and set up as the finding was, on a tree made
//! at run time; every sitemap a test writes is validated as everywhere in the suite.
//!
//! The first round (issue 11): an output may replace neither an input nor a file behind a
//! symlink (robots.txt, a page, a split text sitemap's user file), `--state` follows its
//! symlink as `-o` does, the index is dated by the newest instant, and a same-size edit under
//! a pinned mtime is re-dated.
//!
//! The second attack round (issue 35): what a run reads from outside is bounded and checked
//! (a published sitemap, `--previous-sitemap`, that cannot be read, nests without end,
//! declares entities, lists too many shards or takes too long, or lists a page in another
//! form of its URL; a state whose keys sitemapgen could not have written, or that repeats a
//! record; an index that is a gzip bomb), every file a run writes goes through one rule (the
//! changes file), and a default exclude no longer drops a real page (Hugo's docs).
//!
//! The third attack round (issue 44): what a run reads reaches a message only described,
//! escaped and cut (`report::shown`, `report::shown_path`, and the one writer of messages
//! `report::to_stderr`), and every URL a user gives goes through one gate (`url::given_url`).
//! Each case is the command as the setup.

use std::collections::BTreeMap;
use std::fs;
use std::os::unix::fs::{PermissionsExt, symlink};
use std::process::Command;
use std::time::Duration;

use filetime::{FileTime, set_file_mtime};

use crate::failures::{refused, refused_with, site_with_robots, snapshot};
use crate::harness::{BASE, Cmd, OLD_SITEMAP, Run, Site};
use crate::lastmod::{dates, git, state_path};
use crate::published::{assert_nothing_written, gzip, site_with_old_sitemap};
use crate::serve::{Reply, Server};
use crate::split::numbered_site;
use crate::validate::{self, locs};
use crate::walk::listed;

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
fn a_robots_txt_that_is_a_symlink_fifo_or_device_is_refused_and_nothing_changes() {
    use std::os::unix::fs::symlink;
    let (site, state) = site_with_robots();
    site.open_to_everyone();
    fs::set_permissions(&state, fs::Permissions::from_mode(0o666)).unwrap();
    for path in [
        site.sitemap_path(),
        site.path("index.html"),
        site.path("a.html"),
    ] {
        fs::set_permissions(&path, fs::Permissions::from_mode(0o666)).unwrap();
    }
    let robots = site.path("robots.txt");
    // A secret anyone may read (the environment of /proc/self/environ, a deploy token):
    // a robots.txt symlink would publish it on the site.
    let secret = site.outside().join("secret.env");
    fs::write(&secret, "DEPLOY_TOKEN=hunter2\n").unwrap();
    fs::set_permissions(&secret, fs::Permissions::from_mode(0o644)).unwrap();
    let fifo = site.outside().join("fifo");
    assert!(
        Command::new("mkfifo")
            .arg(&fifo)
            .status()
            .unwrap()
            .success()
    );
    // A symlink to a regular file is read for its rules, and refused by --robots; one to
    // anything else is read for nothing.
    for (target, what) in [
        (secret.as_path(), "is a symlink"),
        (std::path::Path::new("/dev/zero"), "is not a regular file"),
        (std::path::Path::new("/proc/self/environ"), "is a symlink"),
        (fifo.as_path(), "is not a regular file"),
    ] {
        fs::remove_file(&robots).unwrap();
        symlink(target, &robots).unwrap();
        let before = snapshot(&site);
        let run = Cmd::unprivileged()
            .args(["-b", "https://example.com/", "--robots", "--state"])
            .arg(&state)
            .arg(&site.root)
            .run();
        run.expect_code(1)
            .stderr_has(&["error: ", "robots.txt ", what, "hint: "]);
        assert_eq!(snapshot(&site), before, "{target:?}");
        assert!(!run.stderr().contains("hunter2"));
    }
    // The special files themselves in its place: never opened for long, never published.
    fs::remove_file(&robots).unwrap();
    assert!(
        Command::new("mkfifo")
            .arg(&robots)
            .status()
            .unwrap()
            .success()
    );
    let before = snapshot(&site);
    site.command(&["--robots", "--state"])
        .arg(&state)
        .run()
        .expect_code(1)
        .stderr_has(&["robots.txt is not a regular file"]);
    assert_eq!(snapshot(&site), before);
    fs::remove_file(&robots).unwrap();
    fs::create_dir(&robots).unwrap();
    let before = snapshot(&site);
    site.command(&["--robots"])
        .run()
        .expect_code(1)
        .stderr_has(&["robots.txt is not a regular file"]);
    assert_eq!(snapshot(&site), before);
}

#[test]
fn an_output_may_not_replace_a_page_the_state_robots_txt_or_another_file() {
    use std::os::unix::fs::symlink;
    let (site, state) = site_with_robots();
    let page = site.path("index.html");
    let elsewhere = site.outside().join("other.xml");
    let cases: Vec<(Vec<std::ffi::OsString>, &str)> = vec![
        (
            vec!["-o".into(), page.clone().into()],
            "index.html is a page of the site",
        ),
        (
            vec!["-o".into(), site.path("new.html").into()],
            "new.html is a page of the site",
        ),
        (
            vec!["-o".into(), site.path("robots.txt").into()],
            "is also robots.txt",
        ),
        (
            vec![
                "-o".into(),
                state.clone().into(),
                "--state".into(),
                state.clone().into(),
            ],
            "is also the sitemap",
        ),
        (
            vec![
                "-o".into(),
                elsewhere.clone().into(),
                "--state".into(),
                elsewhere.clone().into(),
            ],
            "is also the sitemap",
        ),
        (
            vec!["--state".into(), site.sitemap_path().into()],
            "is also the sitemap",
        ),
        (
            vec!["--state".into(), site.path("sitemap-2.xml").into()],
            "is also a file of the sitemap",
        ),
        (
            vec![
                "--robots".into(),
                "--state".into(),
                site.path("robots.txt").into(),
            ],
            "is also robots.txt",
        ),
        (
            vec!["--state".into(), site.path("state.html").into()],
            "state.html is a page of the site",
        ),
        (
            vec!["-o".into(), site.outside().join("notes.txt").into()],
            "notes.txt exists and is not a sitemap",
        ),
        (
            vec![
                "--gzip".into(),
                "-o".into(),
                site.outside().join("s.xml").into(),
            ],
            "does not end in .gz",
        ),
        (
            vec!["-o".into(), site.outside().join("s.xml.gz").into()],
            "ends in .gz",
        ),
    ];
    fs::write(site.outside().join("notes.txt"), "my notes\n").unwrap();
    refused(&site, cases);
    // The default output, a symlink planted in DIR to a file outside it, is not followed.
    let theirs = site.outside().join("theirs.xml");
    fs::write(&theirs, OLD_SITEMAP).unwrap();
    fs::remove_file(site.sitemap_path()).unwrap();
    symlink(&theirs, site.sitemap_path()).unwrap();
    let before = snapshot(&site);
    site.run(&[])
        .expect_code(2)
        .stderr_has(&["sitemap.xml is a symlink to a file outside DIR", "hint: "]);
    assert_eq!(snapshot(&site), before);
    fs::remove_file(site.sitemap_path()).unwrap();
    // A shard's name taken by a file that is no sitemap: known once the URLs are counted.
    site.write("sitemap-2.xml", "<html>not a sitemap</html>");
    let before = snapshot(&site);
    site.run(&["--max-urls", "1"])
        .expect_code(2)
        .stderr_has(&["sitemap-2.xml exists and is not a sitemap"]);
    assert_eq!(snapshot(&site), before);
}

#[test]
fn a_split_text_sitemap_never_removes_the_file_behind_a_symlink() {
    use std::os::unix::fs::symlink;
    let site = Site::with_pages(&["index.html", "a.html", "b.html", "c.html", "d.html"]);
    let real = site.write("sub/real.txt", "https://example.com/kept\n");
    symlink("sub/real.txt", site.path("sitemap.txt")).unwrap();
    site.run(&["--format", "txt", "--max-urls", "4"])
        .success()
        .stderr_has(&[
            "warning: ",
            "sitemap.txt is a symlink",
            "left as it is",
            "wrote 5 URLs in 2 text sitemaps ",
            "sitemap-1.txt … ",
        ]);
    assert_eq!(
        fs::read_to_string(&real).unwrap(),
        "https://example.com/kept\n"
    );
    assert!(
        fs::symlink_metadata(site.path("sitemap.txt"))
            .unwrap()
            .is_symlink()
    );
    assert!(site.path("sitemap-1.txt").exists() && site.path("sitemap-2.txt").exists());
    assert!(
        !site.path("sub/real-1.txt").exists(),
        "shards beside the name given"
    );
}

#[test]
fn a_state_symlink_is_followed_like_the_output() {
    use std::os::unix::fs::symlink;
    let site = Site::with_pages(&["index.html", "a.html"]);
    let real = site.outside().join("real.state");
    let link = site.outside().join("link.state");
    site.command(&["--state"]).arg(&real).run().success();
    let first = fs::read_to_string(&real).unwrap();
    symlink(&real, &link).unwrap();
    site.page("b.html");
    site.command(&["--state"])
        .arg(&link)
        .run()
        .success()
        .stderr_has(&["1 added, 0 removed, 0 re-dated, 2 kept"]);
    assert!(
        fs::symlink_metadata(&link).unwrap().is_symlink(),
        "the link stays"
    );
    let second = fs::read_to_string(&real).unwrap();
    assert!(second.contains("/b.html ") && !first.contains("/b.html "));
}

#[test]
fn the_index_lastmod_is_the_newest_instant_not_the_greatest_string() {
    let site = Site::empty();
    let repo = site.outside();
    git(repo, &["init", "-q"], "2024-01-01T00:00:00Z");
    site.page("a.html");
    git(repo, &["add", "."], "2024-01-01T00:00:00Z");
    // 10:00 UTC, the newer of the two, though its string sorts first.
    git(repo, &["commit", "-qm", "a"], "2024-05-01T05:00:00-05:00");
    site.page("b.html");
    git(repo, &["add", "."], "2024-01-01T00:00:00Z");
    // 01:00 UTC.
    git(repo, &["commit", "-qm", "b"], "2024-05-01T10:00:00+09:00");
    site.page("c.html");
    site.run(&["--lastmod", "git", "--max-urls", "2"]).success();
    let index = validate::index(&site.sitemap_path(), BASE);
    assert_eq!(index.len(), 2);
    assert_eq!(
        index[0].lastmod.as_deref(),
        Some("2024-05-01T05:00:00-05:00")
    );
}

#[test]
fn a_same_size_edit_under_a_pinned_mtime_is_re_dated() {
    let site = Site::empty();
    site.write("index.html", "<p>version one</p>");
    site.write("a.html", "<p>unchanged</p>");
    let pinned = FileTime::from_unix_time(1_714_557_600, 0);
    for page in ["index.html", "a.html"] {
        set_file_mtime(site.path(page), pinned).unwrap();
    }
    // Old enough that the run trusts the files' stamps next time (it does not trust a file
    // written in the last moments before it).
    std::thread::sleep(std::time::Duration::from_millis(2100));
    let state = state_path(&site);
    site.run(&["--state", &state]).success();
    let recorded = fs::read_to_string(&state).unwrap();
    assert!(
        recorded
            .lines()
            .filter(|l| l.starts_with('/'))
            .all(|l| !l.ends_with(" -")),
        "stamps recorded: {recorded}"
    );
    // The same size, the mtime set back (as SOURCE_DATE_EPOCH, Nix or touch -d do).
    site.write("index.html", "<p>version two</p>");
    set_file_mtime(site.path("index.html"), pinned).unwrap();
    site.run(&["--state", &state, "--lastmod", "2024-06-01"])
        .success()
        .stderr_has(&["0 added, 0 removed, 1 re-dated, 1 kept"]);
    assert_eq!(dates(&site)[BASE].as_deref(), Some("2024-06-01"));
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
fn the_changes_file_replaces_only_an_earlier_changes_file() {
    use std::os::unix::fs::symlink;
    let (site, state) = site_with_robots();
    let key = "changes-key-0001";
    site.write(format!("{key}.txt"), key);
    site.write("sitemap.xsl", "<xsl:stylesheet/>");
    site.write("README.md", "# my notes\n");
    symlink(site.path("robots.txt"), site.outside().join("to-robots")).unwrap();
    symlink(site.path("README.md"), site.outside().join("to-readme")).unwrap();
    let with_state = |changes: std::path::PathBuf| -> Vec<std::ffi::OsString> {
        vec![
            "--state".into(),
            state.clone().into(),
            "--changes".into(),
            changes.into(),
        ]
    };
    let mut with_key = with_state(site.path(format!("{key}.txt")));
    with_key.extend(["--indexnow-key-env".into(), "K".into()]);
    let cases = vec![
        (with_state(site.path("robots.txt")), "is also robots.txt"),
        (with_key, "is also the IndexNow key file"),
        (
            with_state(site.path(format!("{key}.txt"))),
            "exists and is not a changes file of sitemapgen",
        ),
        (
            with_state(site.path("sitemap.xsl")),
            "exists and is not a changes file of sitemapgen",
        ),
        (
            with_state(site.path("README.md")),
            "README.md exists and is not a changes file of sitemapgen",
        ),
        (
            with_state(site.outside().join("to-robots")),
            "is also robots.txt",
        ),
        (
            with_state(site.outside().join("to-readme")),
            "exists and is not a changes file of sitemapgen",
        ),
        (
            with_state(site.path("sitemap-3.xml")),
            "is also a file of the sitemap",
        ),
    ];
    refused_with(&site, ("K", key), cases);
    // A key file named like a text shard: two outputs of one run never share a name.
    let args = [
        "--format",
        "txt",
        "--max-urls",
        "1",
        "--indexnow-key-env",
        "K",
    ];
    refused_with(
        &site,
        ("K", "sitemap-1"),
        vec![(
            args.iter().map(Into::into).collect(),
            "the IndexNow key file in DIR (KEY.txt, named after the key) is also a file of the \
             sitemap",
        )],
    );
    // An earlier changes file is replaced.
    let changes = site.outside().join("sitemap.changes");
    fs::write(&changes, "redated https://example.com/a.html\n").unwrap();
    site.command(&["--state"])
        .arg(&state)
        .arg("--changes")
        .arg(&changes)
        .run()
        .success();
    assert_eq!(fs::read_to_string(&changes).unwrap(), "");
}

#[test]
fn a_gzip_bomb_in_place_of_the_index_is_refused_not_decompressed_whole() {
    // Ours by its first bytes (an index), then 65 MiB of spaces: 65 KB gzipped.
    use std::io::Write;
    let site = numbered_site(3);
    let index = site.path("sitemap.xml.gz");
    let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::best());
    gz.write_all(
        b"<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n\
          <sitemapindex xmlns=\"http://www.sitemaps.org/schemas/sitemap/0.9\">",
    )
    .unwrap();
    let spaces = vec![b' '; 1 << 20];
    for _ in 0..65 {
        gz.write_all(&spaces).unwrap();
    }
    fs::write(&index, gz.finish().unwrap()).unwrap();
    // --check reads it back to compare: refused at 64 MiB, nothing written.
    let files = site.all_files();
    site.run(&["--gzip", "--max-urls", "2", "--check"])
        .expect_code(1)
        .stderr_has(&["sitemap.xml.gz is over 64 MiB decompressed: no sitemap is"]);
    assert_eq!(site.all_files(), files);
    // A run reads it for the names it lists: none, within the bound; it is replaced.
    site.run(&["--gzip", "--max-urls", "2"]).success();
    let index = validate::index(&index, BASE);
    assert_eq!(locs(&index).len(), 2);
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
fn a_page_named_404_is_left_out_only_at_the_root_and_a_locale_root() {
    // Hugo's docs page on 404 templates and a real 404 page have the same head: indexable,
    // canonical to themselves.
    let head = |path: &str| {
        format!(
            "<!doctype html><meta name=robots content=\"index, follow\">\
             <link rel=canonical href=\"{BASE}{path}\"><title>404</title>"
        )
    };
    let site = Site::with_pages(&["index.html"]);
    for (file, path) in [
        ("404.html", "404.html"),
        ("fr/404.html", "fr/404.html"),
        ("pt-br/404/index.html", "pt-br/404/"),
        ("templates/404/index.html", "templates/404/"),
        ("en/templates/404/index.html", "en/templates/404/"),
        ("docs/errors/404.html", "docs/errors/404.html"),
    ] {
        site.write(file, head(path));
    }
    site.run(&["-v"]).success().stderr_has(&[
        "skip 404.html: default exclude /404.html",
        "skip fr/404.html: default exclude /{[a-z][a-z],",
        "(left out: 3 by the default excludes)",
    ]);
    assert_eq!(
        listed(&site),
        [
            "",
            "docs/errors/404.html",
            "en/templates/404/",
            "templates/404/"
        ]
    );
}

/// Issue 44: `ln -s /etc/shadow L; sitemapgen --add-urls L` showed the line; so did a
/// `.env` line, and a 50 MB line was printed whole.
#[test]
fn a_line_of_an_input_file_that_is_no_url_is_described_not_shown() {
    let site = Site::with_pages(&["index.html"]);
    let shadow = site.outside().join("shadow");
    fs::write(
        &shadow,
        "root:*:20228:0:99999:7:::\ndaemon:*:20228:0:99999:7:::\n",
    )
    .unwrap();
    let link = site.outside().join("L");
    symlink(&shadow, &link).unwrap();
    let env = site.outside().join(".env");
    fs::write(&env, "DB_PASSWORD=hunter2\n").unwrap();
    for (file, secret, length) in [(&link, "root:*", 25), (&env, "hunter2", 19)] {
        let run = site.run(&["--add-urls", file.to_str().unwrap()]);
        run.expect_code(2).stderr_has(&[&format!(
            ":1: the line is not a URL: {length} characters, no http:// or https:// scheme"
        )]);
        run.shows_none_of(&[secret.to_string()]);
    }
    // 50 MB on one line, with no scheme or starting as a URL: a message of a few hundred bytes.
    for (start, said) in [
        ("x", "the line is not a URL: 52,428,814 characters"),
        ("https://example.com/", "characters more)\" is not a URL"),
    ] {
        let huge = site.outside().join("huge.txt");
        fs::write(
            &huge,
            format!("{start}{} 2024-01-01 x\n", "y".repeat(50 << 20)),
        )
        .unwrap();
        let run = site.run(&["--add-urls", huge.to_str().unwrap()]);
        run.expect_code(2).stderr_has(&[said]);
        assert!(run.stderr().len() < 1000, "{} bytes", run.stderr().len());
    }
}

/// Issue 44: a file named `ESC]0;PWNED BEL ESC[2Jevil.png` or a dangling symlink
/// `ESC[31mdang.html` drove the terminal of whoever read the log, -v or not.
#[test]
fn a_file_name_with_terminal_escapes_is_shown_escaped() {
    let site = Site::with_pages(&["index.html"]);
    site.write(b"\x1b]0;PWNED\x07\x1b[2Jevil.png", "png");
    symlink("nowhere", site.path(b"\x1b[31mdang.html")).unwrap();
    site.write(b"line\nsitemapgen: error: forged.html", "<title>x</title>");
    for verbose in [false, true] {
        let args: &[&str] = if verbose { &["-v"] } else { &[] };
        let run = site.run(args);
        run.success()
            .stderr_has(&["sitemapgen: warning: \\u{1b}[31mdang.html is a dangling symlink"]);
        if verbose {
            run.stderr_has(&[
                "skip \\u{1b}]0;PWNED\\u{7}\\u{1b}[2Jevil.png: matches no --include glob",
            ]);
        }
        assert!(
            !run.stderr()
                .lines()
                .any(|line| line.starts_with("sitemapgen: error")),
            "{}",
            run.stderr()
        );
    }
}

/// Issue 44: `-b $'https://e.com/a\nb/'` listed `https://e.com/ab/`; a space, a quote or `<`
/// was taken as `%20`, `%22`, `%3C`: a base the user never wrote.
#[test]
fn a_url_with_whitespace_control_or_delimiters_is_refused_by_every_input() {
    let site = Site::with_pages(&["index.html"]);
    let urls = site.outside().join("urls.txt");
    for hostile in [
        "https://example.com/a\nb/",
        "https://example.com/a\tb/",
        "https://example.com/a b/",
        "https://example.com/a\"b/",
        "https://example.com/a<b>/",
        "https://example.com/a\\b/",
        "https://example.com/a\u{1b}[2J/",
        " https://example.com/",
    ] {
        for flag in ["-b", "--state-url", "--previous-sitemap", "--index-add"] {
            site.run(&[flag, hostile])
                .expect_code(2)
                .stderr_has(&["holds whitespace, a control character or one of"]);
        }
        // An href, XML-escaped in the stylesheet instruction: whitespace and controls only.
        if hostile.contains(|c: char| c.is_whitespace() || c.is_control()) {
            site.run(&["--xsl", hostile])
                .expect_code(2)
                .stderr_has(&["is not a URL (no whitespace or control character"]);
        }
        fs::write(&urls, format!("{}\n", hostile.trim())).unwrap();
        if !hostile.contains(char::is_whitespace) {
            site.run(&["--add-urls", urls.to_str().unwrap()])
                .expect_code(2)
                .stderr_has(&["urls.txt:1", "holds whitespace, a control character"]);
        }
    }
    assert!(!site.sitemap_path().exists());
}

/// Issue 44: `--index-add` named the index itself through a query, `//` or `;`, and the
/// index listed itself.
#[test]
fn index_add_naming_a_file_of_the_run_in_any_served_form_is_refused() {
    let site = Site::with_pages(&["index.html", "blog/p.html"]);
    for named in [
        "https://example.com/docs/sitemap.xml?x=1",
        "https://example.com/docs/sitemap-blog.xml?",
        "https://example.com/docs//sitemap.xml",
        "https://example.com/docs/sitemap.xml;x",
        "https://example.com/docs/sitemap-1.xml?page=2",
    ] {
        site.run(&[
            "-b",
            "https://example.com/docs/",
            "--group",
            "blog=blog/**",
            "--index-add",
            named,
        ])
        .expect_code(2)
        .stderr_has(&[&format!("--index-add {named} names a file this run writes")]);
    }
    assert!(!site.sitemap_path().exists());
}

/// Issue 44: `--google-endpoint 'http://127.0.0.1:P/api/?x=1'` put the API's path in the
/// query; a base URL or endpoint has no query, fragment or empty segment.
#[test]
fn a_base_url_or_endpoint_with_a_query_fragment_or_empty_segment_is_refused() {
    let site = Site::with_pages(&["index.html"]);
    for (flag, url, said) in [
        (
            "--google-endpoint",
            "http://127.0.0.1:9/api/?x=1",
            "must not have a query",
        ),
        (
            "--google-endpoint",
            "http://127.0.0.1:9/api/#x",
            "must not have a query",
        ),
        (
            "--google-endpoint",
            "http://127.0.0.1:9/a//api/",
            "empty path segment",
        ),
        (
            "--indexnow-endpoint",
            "http://127.0.0.1:9/in?x=1",
            "must not have a query",
        ),
        (
            "--indexnow-endpoint",
            "http://127.0.0.1:9//in",
            "empty path segment",
        ),
        (
            "--base-url",
            "https://example.com/a//b/",
            "empty path segment",
        ),
    ] {
        site.run(&[flag, url])
            .expect_code(2)
            .stderr_has(&[&format!("{flag} \"{url}\" "), said]);
    }
}
