//! Bad input and failures: the right exit code, a message naming the culprit, the previous
//! sitemap byte-identical and no temp file left behind.

use std::fs;
use std::io::Read;
use std::os::unix::fs::PermissionsExt;
use std::process::{Command, Stdio};

use crate::harness::{Cmd, Site};

/// A site with a sitemap from an earlier run; returns it with that sitemap's bytes.
fn site_with_sitemap() -> (Site, Vec<u8>) {
    let site = Site::with_pages(&["index.html", "a.html", "private/p.html"]);
    site.run(&[]).success();
    let before = fs::read(site.sitemap_path()).unwrap();
    (site, before)
}

#[track_caller]
fn assert_untouched(site: &Site, before: &[u8], files_before: &[std::path::PathBuf]) {
    assert_eq!(
        fs::read(site.sitemap_path()).unwrap(),
        before,
        "sitemap changed"
    );
    assert_eq!(site.all_files(), files_before, "files left behind or lost");
}

#[test]
fn every_bad_option_value_exits_2_naming_the_flag() {
    let (site, before) = site_with_sitemap();
    let files = site.all_files();
    let cases: &[(&[&str], &str)] = &[
        (&["-b", "example.com"], "--base-url \"example.com\""),
        (&["-b", "ftp://example.com/"], "must use http or https"),
        (
            &["-b", "https://example.com/?q=1"],
            "must not have a query or a fragment",
        ),
        (
            &["-b", "https://example.com/#x"],
            "must not have a query or a fragment",
        ),
        (&["-b", "https:///path"], "--base-url"),
        (&["-b", "https://u:p@example.com/"], "user name or password"),
        (
            &["-b", "https://ex\"ample.com/"],
            "has an invalid host name \"ex\\\"ample.com\"",
        ),
        (
            &["--lastmod", "2024-05-01T10:00:00"],
            "--lastmod \"2024-05-01T10:00:00\"",
        ),
        (&["--lastmod", "yesterday"], "--lastmod \"yesterday\""),
        (&["--lastmod", "0000-01-01"], "--lastmod \"0000-01-01\""),
        (&["--lastmod", "2024-05-01T10:00:00+23:00"], "--lastmod"),
        (
            &["--changefreq", "blog/=daily"],
            "names a directory; use blog/**=daily",
        ),
        (
            &["--changefreq", "*.html=Daily"],
            "--changefreq \"*.html=Daily\"",
        ),
        (&["--changefreq", "*.html"], "must have the form GLOB=VALUE"),
        (&["--priority", "*=1.5"], "--priority \"*=1.5\""),
        (&["--priority", "*=high"], "is not a decimal number"),
        (
            &["--include", "a/[b.html"],
            "--include \"a/[b.html\" is not a valid glob",
        ),
        (
            &["--include", "drafts/"],
            "--include \"drafts/\" names a directory",
        ),
        (
            &["--exclude", "{a,b"],
            "--exclude \"{a,b\" is not a valid glob",
        ),
        (&["--exclude", ""], "--exclude needs a non-empty glob"),
        (&["--null"], "--files-from"),
        (&["--quiet", "--verbose"], "cannot be used with"),
        (&["--no-such-flag"], "--no-such-flag"),
        (&["-o", "/dev/null"], "-o /dev/null is not a regular file"),
    ];
    for (args, message) in cases {
        site.run(args)
            .expect_code(2)
            .stderr_has(&["sitemapgen: error: ", message]);
        assert_untouched(&site, &before, &files);
    }
    // No base URL at all.
    Cmd::new()
        .arg(&site.root)
        .run()
        .expect_code(2)
        .stderr_has(&["--base-url"]);
}

#[test]
fn dir_must_be_a_directory() {
    let site = Site::empty();
    let file = site.write("file.html", "x");
    Cmd::new()
        .args(["-b", "https://example.com/"])
        .arg(&file)
        .run()
        .expect_code(2)
        .stderr_has(&["error: DIR", "file.html is not a directory"]);
    Cmd::new()
        .args(["-b", "https://example.com/"])
        .arg(site.path("missing"))
        .run()
        .expect_code(2)
        .stderr_has(&["error: DIR", "missing: No such file or directory"]);
}

#[test]
fn an_unreadable_directory_fails_the_run_instead_of_vanishing() {
    let (site, before) = site_with_sitemap();
    site.open_to_everyone();
    let files = site.all_files();
    let private = site.path("private");
    fs::set_permissions(&private, fs::Permissions::from_mode(0o000)).unwrap();
    let run = Cmd::unprivileged()
        .args(["-b", "https://example.com/"])
        .arg(&site.root)
        .run();
    fs::set_permissions(&private, fs::Permissions::from_mode(0o755)).unwrap();
    run.expect_code(1).stderr_has(&[
        "sitemapgen: error: cannot read ",
        "private: ",
        "Permission denied",
    ]);
    assert_untouched(&site, &before, &files);
}

#[test]
fn an_unwritable_or_missing_output_directory_fails_cleanly() {
    let (site, before) = site_with_sitemap();
    site.open_to_everyone();
    let files = site.all_files();
    fs::set_permissions(&site.root, fs::Permissions::from_mode(0o555)).unwrap();
    let run = Cmd::unprivileged()
        .args(["-b", "https://example.com/"])
        .arg(&site.root)
        .run();
    fs::set_permissions(&site.root, fs::Permissions::from_mode(0o755)).unwrap();
    run.expect_code(1)
        .stderr_has(&["error: cannot create a temp file in ", "Permission denied"]);
    assert_untouched(&site, &before, &files);

    site.command(&["-o"])
        .arg(site.outside().join("no/such/dir/sitemap.xml"))
        .run()
        .expect_code(1)
        .stderr_has(&["cannot create a temp file in ", "no/such/dir"]);
    assert_untouched(&site, &before, &files);

    // A directory in the way of the output: nothing is tried.
    fs::create_dir(site.outside().join("taken")).unwrap();
    let files = site.all_files();
    site.command(&["-o"])
        .arg(site.outside().join("taken"))
        .run()
        .expect_code(2)
        .stderr_has(&["error: -o ", "taken is not a regular file"]);
    assert_eq!(site.all_files(), files);
}

#[test]
fn a_site_without_pages_is_an_error_not_an_invalid_sitemap() {
    let (site, before) = site_with_sitemap();
    let files = site.all_files();
    site.run(&["--include", "*.php"])
        .expect_code(1)
        .stderr_has(&["error: no pages in ", "(3 files excluded)", "hint: "]);
    assert_untouched(&site, &before, &files);
}

#[test]
fn a_strict_failure_mid_walk_leaves_no_trace() {
    let (site, before) = site_with_sitemap();
    site.page("z/a.html");
    site.page("z/a/index.html");
    let files = site.all_files();
    site.run(&["--clean-urls", "--no-trailing-slash", "--strict"])
        .expect_code(1);
    assert_untouched(&site, &before, &files);
}

#[test]
fn a_closed_stdout_pipe_ends_quietly_with_0() {
    let site = Site::empty();
    for i in 0..3000 {
        site.page(format!("page-{i:05}.html"));
    }
    let mut child = Command::new(env!("CARGO_BIN_EXE_sitemapgen"))
        .args(["-q", "-b", "https://example.com/", "-o", "-"])
        .arg(&site.root)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    // Read a little, then close the pipe as `| head` would.
    let mut stdout = child.stdout.take().unwrap();
    let mut first = [0u8; 100];
    stdout.read_exact(&mut first).unwrap();
    drop(stdout);
    let out = child.wait_with_output().unwrap();
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(String::from_utf8_lossy(&out.stderr), "");
}

#[test]
fn a_killed_runs_temp_files_are_removed_by_the_next_run_but_a_live_runs_are_not() {
    let (site, before) = site_with_sitemap();
    let dead = site.write(".sitemapgen-dead01.tmp", "half a sitemap");
    // Only leftovers old enough are taken for dead: a run locks its temp file a moment
    // after creating it.
    let old = filetime::FileTime::from_unix_time(1_700_000_000, 0);
    filetime::set_file_mtime(&dead, old).unwrap();
    let live = site.write(".sitemapgen-live01.tmp", "a run in progress");
    filetime::set_file_mtime(&live, filetime::FileTime::from_unix_time(1_700_000_000, 0)).unwrap();
    let young = site.write(".sitemapgen-young1.tmp", "just created, not locked yet");
    let theirs = site.write(".sitemapgen-notes.txt", "not ours");
    // A live run holds a lock on its temp file; `flock` stands in for one here.
    let mut holder = Command::new("flock")
        .arg(&live)
        .args(["-c", "read line"])
        .stdin(Stdio::piped())
        .spawn()
        .expect("flock (util-linux)");
    // Wait until the lock is taken: a second, non-blocking flock then fails.
    while Command::new("flock")
        .args(["-n", "-E", "9"])
        .arg(&live)
        .arg("true")
        .status()
        .unwrap()
        .code()
        != Some(9)
    {
        std::thread::sleep(std::time::Duration::from_millis(10));
    }
    site.run(&["-v"]).success().stderr_has(&[
        "removed ",
        ".sitemapgen-dead01.tmp, left by a run that was killed",
    ]);
    drop(holder.stdin.take());
    holder.wait().unwrap();
    assert!(!dead.exists());
    assert!(live.exists() && young.exists() && theirs.exists());
    assert_eq!(fs::read(site.sitemap_path()).unwrap(), before);
    // --check writes nothing, and removes nothing either.
    let dead = site.write(".sitemapgen-dead02.tmp", "x");
    filetime::set_file_mtime(&dead, old).unwrap();
    site.run(&["--check"]).success();
    assert!(dead.exists());
}
