//! Bad input and failures: the right exit code, a message naming the culprit, the previous
//! sitemap byte-identical and no temp file left behind.

use std::fs;
use std::io::Read;
use std::os::unix::fs::PermissionsExt;
use std::process::{Command, Stdio};

use crate::harness::{Cmd, Site, os_says};
use crate::validate;

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
        // The scheme left out: the URL meant is suggested.
        (
            &["-b", "example.com/docs"],
            "(relative URL without a base)\nhint: -b https://example.com/docs/\n",
        ),
        (
            &["-b", "ftp://example.com/"],
            "is not an http or https URL (ftp:)",
        ),
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
            &["-b", "https://ex{ample.com/"],
            "has an invalid host name \"ex{ample.com\"",
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
        (&["-j", "0"], "--jobs <N>"),
        (&["--jobs", "257"], "--jobs <N>"),
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
        (
            &["-b", "http://a/"],
            "--base-url \"http://a/\" is too short",
        ),
        (&["-b", "http://a.b"], "is too short"),
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
        .stderr_has(&[
            "error: DIR",
            &format!("missing: {}", os_says("No such file or directory")),
        ]);
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
        "\nhint: this user needs read permission on ",
        "private (on a folder, execute too)",
        "or leave it out with --exclude",
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
    // What could not be written, and why; not the temp file's random name.
    let sitemap = site.sitemap_path().display().to_string();
    run.expect_code(1).stderr_has(&[
        &format!("error: cannot write the sitemap {sitemap}: cannot create a temp file in "),
        "Permission denied",
        &format!(
            "\nhint: this user needs write permission on the folder {}",
            site.root.display()
        ),
    ]);
    assert!(!run.stderr().contains("at path"), "{}", run.stderr());
    assert_untouched(&site, &before, &files);

    // A folder that does not exist is a usage error, as a missing DIR is, for every output
    // the user names; so is a name ending in a slash, which names a folder.
    let missing = site.outside().join("no/such/dir");
    for flag in ["-o", "--state", "--summary-json"] {
        let run = site.command(&[flag]).arg(missing.join("file")).run();
        run.expect_code(2).stderr_has(&[
            &format!("error: {flag} "),
            &format!(
                "the folder {} does not exist\nhint: create it first",
                missing.display()
            ),
        ]);
        assert_untouched(&site, &before, &files);
    }
    let out = site.outside().join("out");
    let run = site
        .command(&["-o"])
        .arg(format!("{}/", out.display()))
        .run();
    run.expect_code(2).stderr_has(&[
        &format!(
            "the folder {}/ does not exist\nhint: create it first",
            out.display()
        ),
        &format!("name the file in it: -o {}/sitemap.xml", out.display()),
    ]);
    fs::create_dir(&out).unwrap();
    let run = site
        .command(&["-o"])
        .arg(format!("{}/", out.display()))
        .run();
    run.expect_code(2).stderr_has(&[
        "names a folder, not a file\n",
        &format!(
            "hint: name the file in it: -o {}/sitemap.xml",
            out.display()
        ),
    ]);
    fs::remove_dir(&out).unwrap();
    assert_untouched(&site, &before, &files);

    // The default output in the way is named as such, not as an -o that was never given.
    fs::remove_file(site.sitemap_path()).unwrap();
    fs::create_dir(site.sitemap_path()).unwrap();
    let files = site.all_files();
    let run = site.run(&[]);
    run.expect_code(2)
        .stderr_has(&["error: the output ", "sitemap.xml is not a regular file"]);
    assert!(!run.stderr().contains("-o "), "{}", run.stderr());
    assert_eq!(site.all_files(), files);
    fs::remove_dir(site.sitemap_path()).unwrap();
    fs::write(site.sitemap_path(), &before).unwrap();

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
        .stderr_has(&["error: no pages in ", "(3 files left out)", "hint: "]);
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
    let mut child = Command::new(crate::harness::bin())
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
    // However young: a run that made one a moment ago and has not locked it yet makes
    // another once it finds it gone.
    let dead = site.write(".sitemapgen-dead01.tmp", "half a sitemap");
    let live = site.write(".sitemapgen-live01.tmp", "a run in progress");
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
    assert!(live.exists() && theirs.exists());
    assert_eq!(fs::read(site.sitemap_path()).unwrap(), before);
    // --check writes nothing, and removes nothing either.
    let dead = site.write(".sitemapgen-dead02.tmp", "x");
    site.run(&["--check"]).success();
    assert!(dead.exists());
}

/// A site with a sitemap, a state and a robots.txt from an earlier run; returns it with the
/// state's path.
pub(crate) fn site_with_robots() -> (Site, std::path::PathBuf) {
    let site = Site::with_pages(&["index.html", "a.html"]);
    let state = site.outside().join("sitemap.state");
    site.command(&["--robots", "--state"])
        .arg(&state)
        .run()
        .success();
    (site, state)
}

/// Every file of the run, with its bytes: to prove a failed run changed none.
pub(crate) fn snapshot(site: &Site) -> Vec<(std::path::PathBuf, Option<Vec<u8>>)> {
    site.all_files()
        .into_iter()
        .map(|path| {
            let bytes = fs::symlink_metadata(&path)
                .is_ok_and(|meta| meta.is_file())
                .then(|| fs::read(&path).unwrap());
            (path, bytes)
        })
        .collect()
}

#[test]
fn a_robots_txt_over_500_kib_is_refused_and_nothing_changes() {
    let (site, state) = site_with_robots();
    let robots = site.path("robots.txt");
    let mut big = fs::read(&robots).unwrap();
    big.resize(500 * 1024 + 1, b'#');
    fs::write(&robots, &big).unwrap();
    let before = snapshot(&site);
    site.command(&["--robots", "--state"])
        .arg(&state)
        .run()
        .expect_code(1)
        .stderr_has(&["robots.txt is larger than 500 KiB", "RFC 9309"]);
    assert_eq!(snapshot(&site), before);
    // 500 KiB itself is taken.
    big.truncate(500 * 1024);
    fs::write(&robots, &big).unwrap();
    site.command(&["--robots", "--state"])
        .arg(&state)
        .run()
        .success();
}

/// Each run of `cases` (arguments, a part of the message) fails with exit 2, changing nothing.
pub(crate) fn refused(site: &Site, cases: Vec<(Vec<std::ffi::OsString>, &str)>) {
    refused_with(site, ("SITEMAPGEN_TEST_UNUSED", ""), cases);
}

/// `refused`, with the variable `env` set.
pub(crate) fn refused_with(
    site: &Site,
    env: (&str, &str),
    cases: Vec<(Vec<std::ffi::OsString>, &str)>,
) {
    for (args, message) in cases {
        let before = snapshot(site);
        site.command(&[])
            .args(&args)
            .env(env.0, env.1)
            .run()
            .expect_code(2)
            .stderr_has(&["sitemapgen: error: ", message]);
        assert_eq!(snapshot(site), before, "{args:?}");
    }
}

#[test]
fn state_reads_a_2_gb_page_in_bounded_memory() {
    let site = Site::with_pages(&["index.html"]);
    let big = fs::File::create(site.path("big.html")).unwrap();
    big.set_len(2 << 30).unwrap(); // sparse: no disk taken
    let state = site.outside().join("sitemap.state");
    // 1 GiB of address space: a run that reads the page whole cannot finish.
    let run = Command::new("sh")
        .arg("-c")
        .arg("ulimit -v 1048576 && exec \"$@\"")
        .arg("sh")
        .arg(crate::harness::bin())
        .args(["-b", "https://example.com/", "--state"])
        .arg(&state)
        .arg(&site.root)
        .output()
        .unwrap();
    assert_eq!(
        run.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&run.stderr)
    );
    assert!(fs::read_to_string(&state).unwrap().contains("/big.html "));
}

/// A pipe whose reader is gone: writing to it fails with EPIPE.
fn closed_pipe() -> std::io::PipeWriter {
    let (reader, writer) = std::io::pipe().unwrap();
    drop(reader);
    writer
}

#[test]
fn a_closed_stderr_or_stdout_never_panics_and_the_sitemap_is_published() {
    let site = Site::with_pages(&["index.html", "a.html"]);
    site.write("x.css", "");
    let out = Command::new(crate::harness::bin())
        .args(["-v", "-b", "https://example.com/"])
        .arg(&site.root)
        .stdout(Stdio::null())
        .stderr(closed_pipe())
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0));
    validate::sitemap(&site.sitemap_path(), "https://example.com/");
    // A failure with nowhere to say so still exits 1, without a panic's 101.
    let out = Command::new(crate::harness::bin())
        .args(["-b", "ftp://example.com/"])
        .arg(&site.root)
        .stderr(closed_pipe())
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    for shell in ["bash", "zsh", "fish", "elvish", "powershell"] {
        let out = Command::new(crate::harness::bin())
            .args(["--completions", shell])
            .stdout(closed_pipe())
            .stderr(Stdio::piped())
            .output()
            .unwrap();
        assert_eq!(
            out.status.code(),
            Some(0),
            "{shell}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        assert!(out.stderr.is_empty(), "{shell}");
    }
    let out = Command::new(crate::harness::bin())
        .arg("--help")
        .stdout(closed_pipe())
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0));
}

#[test]
fn an_unreadable_directory_stops_the_walk_in_its_place_on_any_number_of_threads() {
    // A warning in every directory: those before the unreadable one are reported, then its
    // error, and nothing after it, whatever the threads.
    let site = Site::with_pages(&["index.html"]);
    for dir in ["a", "b", "c", "d", "e", "f"] {
        for sub in 0..30 {
            site.page(format!("{dir}/{sub}/page.html"));
            std::os::unix::fs::symlink("nowhere.html", site.path(format!("{dir}/{sub}/gone.html")))
                .unwrap();
        }
    }
    site.open_to_everyone();
    let private = site.path("c/17");
    fs::set_permissions(&private, fs::Permissions::from_mode(0o000)).unwrap();
    let runs: Vec<_> = ["1", "2", "16"]
        .into_iter()
        .map(|jobs| {
            let run = Cmd::unprivileged()
                .args([
                    "-b",
                    "https://example.com/",
                    "-v",
                    "--no-html",
                    "-o",
                    "-",
                    "-j",
                    jobs,
                ])
                .arg(&site.root)
                .run();
            (run.code(), run.stderr())
        })
        .collect();
    fs::set_permissions(&private, fs::Permissions::from_mode(0o755)).unwrap();
    let (code, said) = &runs[0];
    assert_eq!(*code, 1, "{said}");
    let error = said
        .find("sitemapgen: error: cannot read ")
        .expect("the error");
    assert!(said[error..].contains("c/17: Permission denied"), "{said}");
    assert!(
        said[..error].contains("c/16/gone.html is a dangling symlink"),
        "{said}"
    );
    assert!(!said.contains("c/18/"), "{said}");
    // " d/": the site's temp path may end in a d.
    assert!(!said.contains(" d/"), "{said}");
    for (jobs, run) in ["2", "16"].iter().zip(&runs[1..]) {
        assert!(
            run == &runs[0],
            "-j1 and -j{jobs} differ:\n{}\n{}",
            runs[0].1,
            run.1
        );
    }
}

#[test]
fn the_summary_replaces_only_an_earlier_summary() {
    let (site, state) = site_with_robots();
    site.write("package.json", "{\"name\": \"my-site\"}\n");
    let summary = |path: std::path::PathBuf| -> Vec<std::ffi::OsString> {
        vec![
            "--state".into(),
            state.clone().into(),
            "--summary-json".into(),
            path.into(),
        ]
    };
    let cases = vec![
        (
            summary(site.path("package.json")),
            "package.json exists and is not a summary of sitemapgen",
        ),
        (summary(site.path("robots.txt")), "is also robots.txt"),
        (summary(state.clone()), "is also the state"),
        (summary(site.sitemap_path()), "is also the sitemap"),
        (
            summary(site.path("a.html")),
            "is a page of the site (its name matches --include)",
        ),
        (
            vec![
                "-o".into(),
                "-".into(),
                "--summary-json".into(),
                "s.json".into(),
            ],
            "-o - is a preview and writes no summary: drop --summary-json",
        ),
        (
            vec!["--check".into(), "--summary-json".into(), "-".into()],
            "--check writes nothing",
        ),
    ];
    refused_with(&site, ("K", "unused"), cases);
    // An earlier summary is replaced.
    let path = site.outside().join("summary.json");
    fs::write(&path, "{\n  \"version\": 1,\n  \"listed\": 9\n}\n").unwrap();
    site.command(&["--summary-json"]).arg(&path).run().success();
    assert!(
        fs::read_to_string(&path)
            .unwrap()
            .contains("\"listed\": 2,")
    );
}
