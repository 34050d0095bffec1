//! Truthful lastmod: --state freezes dates by content, --lastmod git, SOURCE_DATE_EPOCH,
//! the churn report and guard.

use std::collections::BTreeMap;
use std::fs;
use std::path::Path;
use std::process::Command;

use filetime::{FileTime, set_file_mtime};

use crate::harness::{BASE, Site, copy_tree};
use crate::validate;

const PAGES: usize = 20;

/// What a build changes in every page: its timestamp and the stylesheet's fingerprint.
const IGNORE: [&str; 4] = [
    "--digest-ignore",
    "<!-- built \\d+ -->",
    "--digest-ignore",
    "app\\.[0-9a-f]{8}\\.css",
];

fn body(i: usize, build: u32, version: u32) -> String {
    format!(
        "<!doctype html><title>page {i}</title>\n<!-- built {build} -->\n\
         <link rel=stylesheet href=/app.{build:08x}.css>\n<p>content {i} v{version}</p>\n"
    )
}

/// Writes every page as a build would: all rewritten, all with the build's mtime.
fn build(site: &Site, build: u32, versions: &[u32]) {
    for (i, version) in versions.iter().enumerate() {
        let path = site.write(format!("p{i:02}.html"), body(i, build, *version));
        set_file_mtime(
            path,
            FileTime::from_unix_time(1_700_000_000 + build as i64 * 86_400, 0),
        )
        .unwrap();
    }
}

pub(crate) fn dates(site: &Site) -> BTreeMap<String, Option<String>> {
    validate::sitemap(&site.sitemap_path(), BASE)
        .into_iter()
        .map(|u| (u.loc, u.lastmod))
        .collect()
}

pub(crate) fn state_path(site: &Site) -> String {
    site.outside().join("sitemap.state").display().to_string()
}

#[test]
fn a_rebuild_re_dates_exactly_the_pages_whose_content_changed() {
    let site = Site::empty();
    let state = state_path(&site);
    let mut versions = vec![1; PAGES];
    build(&site, 1, &versions);
    site.run(&[&["--state", &state][..], &IGNORE].concat())
        .success()
        .stderr_has(&[
            "does not exist yet: a first run",
            "20 added, 0 removed, 0 re-dated, 0 kept",
        ]);
    let first = dates(&site);

    // Build 2 rewrites every file with a new mtime, a new timestamp and a new fingerprint;
    // the content of k = 3 pages changes.
    for changed in [2, 7, 19] {
        versions[changed] = 2;
    }
    build(&site, 2, &versions);
    site.run(&[&["--state", &state][..], &IGNORE].concat())
        .success()
        .stderr_has(&["0 added, 0 removed, 3 re-dated, 17 kept"]);
    let second = dates(&site);
    for (loc, date) in &second {
        let changed = ["p02.html", "p07.html", "p19.html"]
            .iter()
            .any(|p| loc.ends_with(p));
        if changed {
            assert_eq!(date.as_deref(), Some("2023-11-16T22:13:20+00:00"), "{loc}");
        } else {
            assert_eq!(date, &first[loc], "{loc} was re-dated");
        }
    }

    // A rebuild that changes only the timestamp and fingerprint re-dates nothing.
    let sitemap = fs::read(site.sitemap_path()).unwrap();
    build(&site, 3, &versions);
    site.run(&[&["--state", &state][..], &IGNORE].concat())
        .success()
        .stderr_has(&["0 re-dated, 20 kept"]);
    assert_eq!(fs::read(site.sitemap_path()).unwrap(), sitemap);

    // A page removed and one added.
    fs::remove_file(site.path("p05.html")).unwrap();
    site.page("new.html");
    site.run(&[&["--state", &state][..], &IGNORE].concat())
        .success()
        .stderr_has(&["1 added, 1 removed, 0 re-dated, 19 kept"]);
    let text = fs::read_to_string(&state).unwrap();
    assert!(text.starts_with("sitemapgen-state 3\n"));
    assert!(!text.contains("/p05.html") && text.contains("/new.html"));
}

#[test]
fn with_a_digest_of_the_bytes_a_timestamp_re_dates_every_page_and_max_churn_stops_it() {
    // The content digest does not count the build's comment and stylesheet link.
    let site = Site::empty();
    let state = state_path(&site);
    let versions = vec![1; PAGES];
    build(&site, 1, &versions);
    site.run(&["--state", &state]).success();
    build(&site, 2, &versions);
    site.run(&["--state", &state, "--max-churn", "10"])
        .success()
        .stderr_has(&["0 re-dated, 20 kept"]);

    // Every byte counted, every page is re-dated.
    let site = Site::empty();
    let state = state_path(&site);
    build(&site, 1, &versions);
    site.run(&["--state", &state, "--digest", "bytes"])
        .success();
    let sitemap = fs::read(site.sitemap_path()).unwrap();
    let recorded = fs::read(&state).unwrap();
    build(&site, 2, &versions);
    site.run(&["--state", &state, "--digest", "bytes", "--max-churn", "10"])
        .expect_code(1)
        .stderr_has(&[
            "20 of 20 known URLs (100.0%) would get a new lastmod, more than --max-churn 10%",
            "nothing written",
        ]);
    assert_eq!(fs::read(site.sitemap_path()).unwrap(), sitemap);
    assert_eq!(fs::read(&state).unwrap(), recorded);
    assert_eq!(site.all_files().len(), PAGES + 2, "a temp file was left");

    site.run(&["--state", &state, "--digest", "bytes", "--max-churn", "100"])
        .success()
        .stderr_has(&["20 re-dated"]);
}

#[test]
fn a_fixed_date_with_state_dates_only_new_and_changed_pages() {
    let site = Site::empty();
    let state = state_path(&site);
    let mut versions = vec![1; 3];
    build(&site, 1, &versions);
    site.run(&[&["--state", &state, "--lastmod", "2024-01-01"][..], &IGNORE].concat())
        .success();
    versions[1] = 2;
    build(&site, 2, &versions);
    site.run(&[&["--state", &state, "--lastmod", "2024-02-01"][..], &IGNORE].concat())
        .success();
    let got: Vec<_> = dates(&site).into_values().map(Option::unwrap).collect();
    assert_eq!(got, ["2024-01-01", "2024-02-01", "2024-01-01"]);
}

#[test]
fn a_bad_state_file_stops_the_run_and_a_missing_one_is_a_first_run() {
    let site = Site::with_pages(&["index.html"]);
    site.run(&[]).success();
    let sitemap = fs::read(site.sitemap_path()).unwrap();
    let state = state_path(&site);
    let cases = [
        ("", "is empty"),
        (
            "sitemapgen-state 4\ndigest blake3 ignore=-\n",
            "version \"4\"",
        ),
        ("<?xml version=\"1.0\"?>\n", "not a sitemapgen-state header"),
        (
            "sitemapgen-state 1\ndigest blake3 ignore=-\n/ - zz 1 2\n",
            "line 3 is malformed",
        ),
    ];
    for (content, message) in cases {
        fs::write(&state, content).unwrap();
        site.run(&["--state", &state]).expect_code(1).stderr_has(&[
            "sitemapgen: error: state file ",
            "sitemap.state is not usable",
            message,
        ]);
        assert_eq!(fs::read(site.sitemap_path()).unwrap(), sitemap);
        assert_eq!(fs::read_to_string(&state).unwrap(), content);
    }
    site.run(&["--state", &state, "--lastmod", "none"])
        .expect_code(2)
        .stderr_has(&["--state keeps dates, and --lastmod none writes none"]);
    site.run(&["--digest-ignore", "x"])
        .expect_code(2)
        .stderr_has(&["--state"]);
    site.run(&["--state", &state, "--digest-ignore", "("])
        .expect_code(2)
        .stderr_has(&["--digest-ignore \"(\" is not a valid regex"]);
    site.run(&["--state", &state, "--max-churn", "101"])
        .expect_code(2)
        .stderr_has(&["--max-churn 101 is not a percentage"]);
}

#[test]
fn the_state_is_put_back_when_the_sitemap_cannot_be_written() {
    let site = Site::with_pages(&["a.html", "b.html", "c.html"]);
    let state = state_path(&site);
    site.run(&["--state", &state, "--max-urls", "1"]).success();
    let recorded = fs::read(&state).unwrap();
    site.page("d.html");
    fs::create_dir(site.path("sitemap-4.xml")).unwrap();
    site.run(&["--state", &state, "--max-urls", "1"])
        .expect_code(1)
        .stderr_has(&["sitemap-4.xml: it is not a regular file"]);
    assert_eq!(fs::read(&state).unwrap(), recorded);
    let leftovers: Vec<_> = site
        .all_files()
        .into_iter()
        .filter(|p| p.to_string_lossy().contains(".sitemapgen-"))
        .collect();
    assert!(leftovers.is_empty(), "{leftovers:?}");
}

#[test]
fn source_date_epoch_clamps_later_mtimes() {
    let site = Site::with_pages(&["old.html", "new.html"]);
    set_file_mtime(
        site.path("old.html"),
        FileTime::from_unix_time(1_600_000_000, 0),
    )
    .unwrap();
    set_file_mtime(
        site.path("new.html"),
        FileTime::from_unix_time(1_800_000_000, 0),
    )
    .unwrap();
    site.command(&[])
        .env("SOURCE_DATE_EPOCH", "1700000000")
        .run()
        .success();
    let got: Vec<_> = dates(&site).into_values().map(Option::unwrap).collect();
    assert_eq!(
        got,
        ["2023-11-14T22:13:20+00:00", "2020-09-13T12:26:40+00:00"]
    );
    site.command(&[])
        .env("SOURCE_DATE_EPOCH", "yesterday")
        .run()
        .expect_code(2)
        .stderr_has(&["SOURCE_DATE_EPOCH \"yesterday\" is not a number of seconds"]);
}

pub(crate) fn git(dir: &Path, args: &[&str], date: &str) {
    let out = Command::new("git")
        .arg("-C")
        .arg(dir)
        .args(["-c", "user.name=t", "-c", "user.email=t@example.com"])
        .args(args)
        .env("GIT_COMMITTER_DATE", date)
        .env("GIT_AUTHOR_DATE", "2001-01-01T00:00:00Z")
        .output()
        .expect("git");
    assert!(
        out.status.success(),
        "git {args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
}

#[test]
fn git_dates_are_each_files_last_commit() {
    let site = Site::empty();
    let repo = site.outside();
    git(repo, &["init", "-q"], "2024-01-01T00:00:00Z");
    site.page("index.html");
    site.page("a b.html");
    site.page("docs/index.html");
    git(repo, &["add", "."], "2024-01-01T00:00:00Z");
    git(repo, &["commit", "-qm", "one"], "2024-01-01T10:00:00+02:00");
    site.write("docs/index.html", "changed");
    git(
        repo,
        &["commit", "-qam", "two"],
        "2024-03-05T08:30:00-05:00",
    );
    site.page("untracked.html");
    set_file_mtime(
        site.path("untracked.html"),
        FileTime::from_unix_time(1_700_000_000, 0),
    )
    .unwrap();

    site.run(&["--lastmod", "git", "-v"])
        .success()
        .stderr_has(&["untracked.html: not in the git history, dated by its mtime"]);
    let got = dates(&site);
    for (loc, date) in &got {
        let rel = loc.strip_prefix(BASE).unwrap().replace("%20", " ");
        let file = match rel.as_str() {
            "" => "index.html".to_string(),
            dir if dir.ends_with('/') => format!("{dir}index.html"),
            file => file.to_string(),
        };
        let out = Command::new("git")
            .arg("-C")
            .arg(&site.root)
            .args(["log", "-1", "--format=%cI", "--", &file])
            .output()
            .unwrap();
        let expected = String::from_utf8(out.stdout).unwrap().trim().to_string();
        if file == "untracked.html" {
            assert_eq!(date.as_deref(), Some("2023-11-14T22:13:20+00:00"));
        } else {
            assert_eq!(date.as_deref(), Some(expected.as_str()), "{file}");
        }
    }
    assert_eq!(
        got[&format!("{BASE}docs/")].as_deref(),
        Some("2024-03-05T08:30:00-05:00")
    );
    // The user's git settings that change what git log prints change no date.
    for setting in [
        "diff.relative=true",
        "log.showRoot=false",
        "log.showSignature=true",
    ] {
        let (key, value) = setting.split_once('=').unwrap();
        git(repo, &["config", key, value], "2024-01-01T00:00:00Z");
    }
    site.run(&["--lastmod", "git"]).success();
    assert_eq!(dates(&site), got);

    let elsewhere = Site::with_pages(&["index.html"]);
    elsewhere
        .run(&["--lastmod", "git"])
        .expect_code(2)
        .stderr_has(&["--lastmod git: ", "is not inside a git work tree"]);
}

#[test]
fn git_dates_names_of_any_bytes() {
    use std::ffi::OsStr;
    use std::os::unix::ffi::OsStrExt;
    // DIR is the top of the work tree: git prints these names as they are, a newline or a
    // \x01 first, a byte that is not UTF-8 in the middle.
    let site = Site::empty();
    git(&site.root, &["init", "-q"], "2024-01-01T00:00:00Z");
    let odd: [&[u8]; 3] = [b"\x01x.html", b"\nnl.html", b"a\xffb.html"];
    for name in odd {
        site.page(name);
    }
    site.page("index.html");
    git(&site.root, &["add", "."], "2024-01-01T00:00:00Z");
    git(
        &site.root,
        &["commit", "-qm", "one"],
        "2024-01-01T00:00:00+02:00",
    );
    for name in odd {
        site.write(name, "changed");
    }
    git(
        &site.root,
        &["commit", "-qam", "two"],
        "2024-02-01T00:00:00+02:00",
    );
    for name in odd.into_iter().chain([&b"index.html"[..]]) {
        let path = site.path(name);
        set_file_mtime(path, FileTime::from_unix_time(1_700_000_000, 0)).unwrap();
    }
    assert_eq!(
        site.path(odd[2]).file_name(),
        Some(OsStr::from_bytes(b"a\xffb.html"))
    );

    site.run(&["--lastmod", "git"]).success();
    let got = dates(&site);
    let day = |date: &str| Some(date.to_string());
    let expected = BTreeMap::from([
        (BASE.to_string(), day("2024-01-01T00:00:00+02:00")),
        (format!("{BASE}%01x.html"), day("2024-02-01T00:00:00+02:00")),
        (
            format!("{BASE}%0Anl.html"),
            day("2024-02-01T00:00:00+02:00"),
        ),
        (
            format!("{BASE}a%FFb.html"),
            day("2024-02-01T00:00:00+02:00"),
        ),
    ]);
    assert_eq!(got, expected);
}

#[test]
fn git_dates_over_many_commits_are_each_files_newest() {
    // DIR is a directory of the work tree, which has files outside it too.
    let site = Site::empty();
    let repo = site.outside();
    git(repo, &["init", "-q"], "2024-01-01T00:00:00Z");
    let pages = 12;
    for k in 0..pages {
        site.page(format!("d{}/p{k}.html", k % 3));
    }
    fs::write(repo.join("outside.html"), "x").unwrap();
    git(repo, &["add", "."], "2024-01-01T00:00:00Z");
    git(repo, &["commit", "-qm", "all"], "2024-01-01T00:00:00+01:00");
    // Each commit touches two of the first 8 pages and the file outside DIR; two commits
    // share a date.
    let mut newest = BTreeMap::new();
    for c in 1..=40_usize {
        let date = format!("2024-02-{:02}T12:00:00+01:00", c.div_ceil(2));
        for k in [c % 8, (c * 5) % 8] {
            let rel = format!("d{}/p{k}.html", k % 3);
            site.write(&rel, format!("commit {c}"));
            newest.insert(format!("{BASE}{rel}"), Some(date.clone()));
        }
        fs::write(repo.join("outside.html"), c.to_string()).unwrap();
        git(repo, &["commit", "-qam", "c"], &date);
    }
    for k in 0..pages {
        let loc = format!("{BASE}d{}/p{k}.html", k % 3);
        newest
            .entry(loc)
            .or_insert(Some("2024-01-01T00:00:00+01:00".into()));
    }
    let first = Some("2024-01-01T00:00:00+01:00");
    assert!(newest.values().any(|d| d.as_deref() == first));

    site.run(&["--lastmod", "git"]).success();
    assert_eq!(dates(&site), newest);
}

#[test]
fn git_dates_of_a_tree_too_large_for_one_log_are_each_files_last_commit() {
    // More files than one git log is given (32,768): the history is read a few directories
    // at a time, and the files beside them by a log of their own. DIR is a directory of the
    // work tree.
    let site = Site::empty();
    let repo = site.outside();
    git(repo, &["init", "-q"], "2024-01-01T00:00:00Z");
    // `d0` (35,000 files) splits into its subdirectories, one of which has a name git would
    // read as a pattern.
    for sub in ["s0", "s1", "s2", "s3", "s*"] {
        fs::create_dir_all(site.path(format!("d0/{sub}"))).unwrap();
        for k in 0..7000 {
            fs::write(site.path(format!("d0/{sub}/p{k}.html")), "x").unwrap();
        }
    }
    for rel in ["index.html", "d0/index.html", "d0/s1x.html", "d1/p.html"] {
        site.page(rel);
    }
    git(repo, &["add", "."], "2024-01-01T00:00:00Z");
    git(repo, &["commit", "-qm", "all"], "2024-01-01T00:00:00Z");
    let second = [
        "d0/s0/p1.html",
        "d0/s*/p2.html",
        "d0/index.html",
        "d0/s1x.html",
        "d1/p.html",
    ];
    for rel in second {
        site.write(rel, "changed");
    }
    git(repo, &["commit", "-qam", "two"], "2024-02-01T00:00:00Z");
    site.write("index.html", "changed");
    git(repo, &["commit", "-qam", "three"], "2024-03-01T00:00:00Z");

    // The user's settings for pathspecs do not reach git: under these two, which git
    // refuses together, it would fail; under the first alone it would take
    // `:(literal)d0/s0` for a file's name, and the split would be lost (not the dates: the
    // last log would read everything).
    site.command(&["--lastmod", "git"])
        .env("GIT_LITERAL_PATHSPECS", "1")
        .env("GIT_ICASE_PATHSPECS", "1")
        .run()
        .success();
    let got = dates(&site);
    assert_eq!(got.len(), 35_004);
    for (loc, date) in &got {
        let rel = loc.strip_prefix(BASE).unwrap().replace("%2A", "*");
        let rel = match rel.as_str() {
            "" => "index.html".to_string(),
            dir if dir.ends_with('/') => format!("{dir}index.html"),
            _ => rel,
        };
        let expected = match rel.as_str() {
            "index.html" => "2024-03-01T00:00:00Z",
            rel if second.contains(&rel) => "2024-02-01T00:00:00Z",
            _ => "2024-01-01T00:00:00Z",
        };
        assert_eq!(date.as_deref(), Some(expected), "{rel}");
    }
}

#[test]
fn git_failing_is_a_usage_error_and_writes_nothing() {
    // A work tree with no commit yet: git log fails once the run is under way.
    let site = Site::with_pages(&["index.html"]);
    git(&site.root, &["init", "-q"], "2024-01-01T00:00:00Z");
    site.run(&["--lastmod", "git"])
        .expect_code(2)
        .stderr_has(&["git log failed: ", "does not have any commits yet"]);
    assert!(!site.sitemap_path().exists());
    // The same when no page needs a date from git: the run waits for it all the same.
    site.write(
        "index.html",
        "<head><meta property=article:modified_time content=2024-05-01></head>x",
    );
    site.run(&["--lastmod", "page,git"])
        .expect_code(2)
        .stderr_has(&["git log failed: ", "does not have any commits yet"]);
    assert!(!site.sitemap_path().exists());

    // A history git cannot read to its end: it prints the newest commit, then fails.
    let site = Site::empty();
    git(&site.root, &["init", "-q"], "2024-01-01T00:00:00Z");
    site.page("docs/a.html");
    git(&site.root, &["add", "."], "2024-01-01T00:00:00Z");
    git(
        &site.root,
        &["commit", "-qm", "one"],
        "2024-01-01T00:00:00Z",
    );
    site.page("b.html");
    git(&site.root, &["add", "."], "2024-01-01T00:00:00Z");
    git(
        &site.root,
        &["commit", "-qm", "two"],
        "2024-02-01T00:00:00Z",
    );
    let out = Command::new("git")
        .arg("-C")
        .arg(&site.root)
        .args(["rev-parse", "HEAD~1:docs"])
        .output()
        .unwrap();
    let tree = String::from_utf8(out.stdout).unwrap();
    let tree = tree.trim();
    fs::remove_file(site.path(format!(".git/objects/{}/{}", &tree[..2], &tree[2..]))).unwrap();
    site.run(&["--lastmod", "git"])
        .expect_code(2)
        .stderr_has(&["git log failed: ", "unable to read tree"]);
    assert!(!site.sitemap_path().exists());
}

#[test]
fn a_shallow_clone_is_warned_about() {
    let site = Site::empty();
    let origin = site.outside().join("origin");
    fs::create_dir(&origin).unwrap();
    git(&origin, &["init", "-q"], "2024-01-01T00:00:00Z");
    for n in 0..2 {
        fs::write(origin.join(format!("p{n}.html")), "x").unwrap();
        git(&origin, &["add", "."], "2024-01-01T00:00:00Z");
        git(&origin, &["commit", "-qm", "c"], "2024-01-01T00:00:00Z");
    }
    let clone = site.outside().join("clone");
    shallow_clone(&origin, &clone, 1);
    crate::harness::Cmd::new()
        .args(["-b", BASE, "--lastmod", "git", "-o", "-"])
        .arg(&clone)
        .run()
        .success()
        .stderr_has(&[
            "warning: the git history is shallow",
            "git fetch --unshallow",
        ]);
}

#[test]
fn a_version_1_state_keeps_every_date() {
    let site = Site::with_pages(&["index.html", "a.html"]);
    let state = state_path(&site);
    let digest = |page: &str| blake3_hex(&fs::read(site.path(page)).unwrap());
    fs::write(
        &state,
        format!(
            "sitemapgen-state 1\ndigest blake3 ignore=-\n\
             / 2020-01-01 {} 1 2\n/a.html 2020-02-02 {} 3 4\nend 2\n",
            digest("index.html"),
            digest("a.html")
        ),
    )
    .unwrap();
    site.run(&["--state", &state])
        .success()
        .stderr_has(&["0 added, 0 removed, 0 re-dated, 2 kept"]);
    assert_eq!(dates(&site)[BASE].as_deref(), Some("2020-01-01"));
    assert!(
        fs::read_to_string(&state)
            .unwrap()
            .starts_with("sitemapgen-state 3\n")
    );
}

/// The hex BLAKE3 digest of `bytes`, as a state file holds it.
fn blake3_hex(bytes: &[u8]) -> String {
    blake3::hash(bytes).to_hex().to_string()
}

#[test]
fn git_dates_beyond_the_schemas_zone_offsets_are_written_in_utc() {
    let site = Site::empty();
    let repo = site.outside();
    git(repo, &["init", "-q"], "2024-01-01T00:00:00Z");
    site.page("index.html");
    git(repo, &["add", "."], "2024-01-01T00:00:00Z");
    // git takes offsets up to ±99:59; the schema stops at ±14:00.
    git(repo, &["commit", "-qm", "one"], "2024-05-01T10:00:00+15:00");
    let state = state_path(&site);
    site.run(&["--lastmod", "git", "--state", &state]).success();
    assert_eq!(
        dates(&site)[BASE].as_deref(),
        Some("2024-04-30T19:00:00+00:00")
    );
    // The state took the date, so the next run reads it.
    site.run(&["--lastmod", "git", "--state", &state])
        .success()
        .stderr_has(&["1 kept"]);
}

#[test]
fn two_listed_pages_with_one_state_key_leave_a_state_the_next_run_reads() {
    // a/index.html is listed in the form its canonical URL declares, a/index.htm as its
    // directory: both have the state key /a/, which the state holds once (the first).
    let site = Site::empty();
    site.write(
        "a/index.html",
        "<head><link rel=canonical href=https://example.com/a/index.html></head>x",
    );
    site.write("a/index.htm", "<head></head>y");
    let state = state_path(&site);
    site.run(&["--state", &state]).success();
    let text = fs::read_to_string(&state).unwrap();
    assert_eq!(
        text.lines().filter(|l| l.starts_with("/a/ ")).count(),
        1,
        "{text}"
    );
    assert!(text.ends_with("\nend 1\n"), "{text}");
    site.run(&["--state", &state]).success();
    assert_eq!(validate::sitemap(&site.sitemap_path(), BASE).len(), 2);
}

#[test]
fn a_page_new_to_the_state_has_the_digest_a_first_run_gives_it() {
    // Pages the state does not know (a new one, a redirect, a noindex page) are read for
    // their head, and the listed one for its digest too: its record holds the digest a
    // first run gives it, and the other two stay out of the state.
    let site = Site::empty();
    site.write(
        "a.html",
        "<head><title>A</title></head><main>old page</main>",
    );
    let state = state_path(&site);
    site.run(&["--state", &state, "--lastmod", "2024-01-01"])
        .success();
    site.write(
        "b.html",
        "<head><title>B</title></head><main>new page</main>",
    );
    site.write(
        "r.html",
        "<head><meta http-equiv=refresh content='0; url=b.html'></head>",
    );
    site.write("n.html", "<head><meta name=robots content=noindex></head>x");
    site.run(&["--state", &state, "--lastmod", "2024-02-01"])
        .success()
        .stderr_has(&["1 added"]);
    let fresh = site.outside().join("fresh.state");
    let fresh_arg = fresh.display().to_string();
    let out = site.outside().join("fresh.xml").display().to_string();
    site.run(&["--state", &fresh_arg, "-o", &out]).success();
    let records = |path: &str| -> BTreeMap<String, String> {
        let text = fs::read_to_string(path).unwrap();
        let lines = text.lines().skip(2).filter(|l| l.starts_with('/'));
        lines
            .map(|l| {
                let fields: Vec<&str> = l.split(' ').collect();
                (fields[0].to_string(), fields[2].to_string())
            })
            .collect()
    };
    let (second, first) = (records(&state), records(&fresh_arg));
    assert_eq!(second.keys().collect::<Vec<_>>(), ["/a.html", "/b.html"]);
    assert_eq!(second, first);
    // An unchanged page rewritten keeps its date: its digest was recorded.
    site.write(
        "b.html",
        "<head><title>B</title></head><main>new page</main>",
    );
    site.run(&["--state", &state, "--lastmod", "2024-03-01"])
        .success();
    let got: Vec<_> = dates(&site).into_values().map(Option::unwrap).collect();
    assert_eq!(got, ["2024-01-01", "2024-02-01"]);
}

/// The CI run: a fresh copy of the site (every stamp new, the bytes those of the last run).
fn fresh_copy(site: &Site) {
    let copy = site.outside().join("copy");
    copy_tree(&site.root, &copy);
    fs::remove_dir_all(&site.root).unwrap();
    fs::rename(&copy, &site.root).unwrap();
}

#[test]
fn a_fresh_copy_keeps_each_digest_by_the_bytes_fingerprint_and_reads_only_what_changed() {
    let site = Site::with_pages(&["index.html", "a.html", "b.html"]);
    site.write("c.html", body(3, 1, 1));
    let state = state_path(&site);
    let run = |site: &Site| site.run(&[&["--state", &state][..], &IGNORE].concat());
    run(&site).success();
    // Each record carries the fingerprint of its page's bytes.
    let text = fs::read_to_string(&state).unwrap();
    for line in text.lines().filter(|line| line.starts_with('/')) {
        let fingerprint = line.rsplit(' ').next().unwrap();
        assert_eq!(fingerprint.len(), 15, "{line}");
        assert!(fingerprint.bytes().all(|b| b.is_ascii_hexdigit()), "{line}");
    }
    // Only the fingerprint tells a page whose bytes are the same: give a.html's record a
    // digest its content does not have. Kept by its fingerprint, the page is not re-dated
    // and the record keeps that digest; without its fingerprint, the page is tokenized
    // and re-dated.
    let other = blake3_hex(b"another digest");
    let edited: String = text
        .lines()
        .map(|line| {
            let mut fields: Vec<&str> = line.split(' ').collect();
            if fields[0] == "/a.html" {
                fields[2] = &other;
            }
            if fields[0] == "/b.html" {
                fields[2] = &other;
                *fields.last_mut().unwrap() = "-";
            }
            fields.join(" ") + "\n"
        })
        .collect();
    fs::write(&state, &edited).unwrap();
    fresh_copy(&site);
    run(&site)
        .success()
        .stderr_has(&["0 added, 0 removed, 1 re-dated, 3 kept"]);
    let text = fs::read_to_string(&state).unwrap();
    let record = |key: &str| {
        text.lines()
            .find(|line| line.starts_with(&format!("{key} ")))
            .unwrap()
            .to_string()
    };
    assert!(record("/a.html").contains(&other));
    assert!(!record("/b.html").contains(&other));
    assert!(!record("/b.html").ends_with(" -"), "fingerprinted anew");
    // A build timestamp in a comment changes the bytes, not the content: tokenized, kept.
    // Visible text changed: re-dated.
    fresh_copy(&site);
    site.write("c.html", body(3, 2, 1));
    run(&site).success().stderr_has(&["0 re-dated, 4 kept"]);
    fresh_copy(&site);
    site.write("c.html", body(3, 2, 2));
    run(&site).success().stderr_has(&["1 re-dated, 3 kept"]);
}

#[test]
fn source_dates_date_the_pages_the_state_does_not_know_yet() {
    let site = Site::with_pages(&["a.html", "b/index.html", "c.html"]);
    let sources = site.outside().join("sources.tsv");
    fs::write(
        &sources,
        "# the sources' last commits\na.html\t2020-01-02T03:04:05+00:00\n\n\
         https://example.com/b/\t2021-05-06\nnot-built.html\t2022-01-01\n",
    )
    .unwrap();
    let state = site.outside().join("state");
    let run = |lastmod: &str, with_state: bool| {
        let mut cmd = site.command(&["--lastmod", lastmod, "--source-dates"]);
        cmd.arg(&sources);
        if with_state {
            cmd.arg("--state").arg(&state);
        }
        cmd.run().success();
        validate::sitemap(&site.sitemap_path(), BASE)
            .into_iter()
            .map(|url| (url.loc, url.lastmod.unwrap()))
            .collect::<Vec<_>>()
    };
    let given = [
        ("https://example.com/a.html", "2020-01-02T03:04:05+00:00"),
        ("https://example.com/b/", "2021-05-06"),
        ("https://example.com/c.html", "2024-01-01"),
    ]
    .map(|(loc, date)| (loc.to_string(), date.to_string()));
    // Without --state, every page is new; with it, on a first run.
    assert_eq!(run("2024-01-01", false), given);
    assert_eq!(run("2024-01-01", true), given);
    // Then the state keeps them; a page whose content changed takes the run's date.
    fs::write(
        site.path("a.html"),
        "<html><body><main>Changed.</main></body></html>",
    )
    .unwrap();
    let mut changed = given.clone();
    changed[0].1 = "2025-01-01".into();
    assert_eq!(run("2025-01-01", true), changed);

    for (text, expected) in [
        (
            "a.html 2020-01-01\n",
            ":1: not a page's file or URL, a tab and a date",
        ),
        ("a.html\tyesterday\n", ":1: \"yesterday\" is not a W3C date"),
        ("/a.html\t2020-01-01\n", "named by its path relative to DIR"),
        (
            "https://other.example/a\t2020-01-01\n",
            "is outside the base URL",
        ),
        (
            "a.html\t2020-01-01\n./a.html\t2020-01-02\n",
            ":2: ./a.html is given a date already on line 1",
        ),
    ] {
        fs::write(&sources, text).unwrap();
        site.command(&["--source-dates"])
            .arg(&sources)
            .run()
            .expect_code(2)
            .stderr_has(&[&sources.display().to_string(), expected]);
    }
    site.command(&["--lastmod", "none", "--source-dates"])
        .arg(&sources)
        .run()
        .expect_code(2)
        .stderr_has(&["--source-dates gives dates, and --lastmod none writes none"]);
}

/// What `git log -1 --format=FORMAT -- FILE` prints in `repo`.
fn last_commit(repo: &Path, format: &str, file: &str) -> String {
    let out = Command::new("git")
        .arg("-C")
        .arg(repo)
        .args(["log", "-1", &format!("--format={format}"), "--", file])
        .output()
        .unwrap();
    String::from_utf8(out.stdout).unwrap().trim().to_string()
}

#[test]
fn sources_are_dated_by_their_last_commit() {
    let site = Site::with_pages(&[
        "a.html",
        "b/c/index.html",
        "x.html",
        "fr/x.html",
        "new.html",
        "loose.html",
        "gone.html",
    ]);
    let project = site.outside().join("project");
    for file in ["docs/a.md", "docs/b/c.md", "docs/x.md"] {
        fs::create_dir_all(project.join(file).parent().unwrap()).unwrap();
        fs::write(project.join(file), "one").unwrap();
    }
    git(&project, &["init", "-q"], "2024-01-01T00:00:00Z");
    git(&project, &["add", "."], "2024-01-01T00:00:00Z");
    git(
        &project,
        &["commit", "-qm", "one"],
        "2024-01-01T10:00:00+02:00",
    );
    // An offset git takes and the schema does not: written in UTC.
    fs::write(project.join("docs/b/c.md"), "two").unwrap();
    git(
        &project,
        &["commit", "-qam", "two"],
        "2024-05-01T10:00:00+1500",
    );
    fs::write(project.join("docs/new.md"), "untracked").unwrap();
    fs::write(site.outside().join("loose.md"), "outside any work tree").unwrap();
    let sources = site.outside().join("sources.tsv");
    fs::write(
        &sources,
        format!(
            "# page<TAB>source\na.html\t{docs}/a.md\nb/c/index.html\tdocs/b/c.md\n\
             x.html\t{docs}/x.md\nhttps://example.com/fr/x.html\t{docs}/x.md\n\
             new.html\t{docs}/new.md\nloose.html\t{loose}\ngone.html\t{docs}/gone.md\n\
             draft.html\t{docs}/a.md\n",
            docs = project.join("docs").display(),
            loose = site.outside().join("loose.md").display(),
        ),
    )
    .unwrap();
    let first = "2024-01-01T10:00:00+02:00";
    let expected = [
        ("a.html", first),
        ("b/c/", "2024-04-30T19:00:00+00:00"),
        ("fr/x.html", first),
        ("gone.html", "2030-01-01"),
        ("loose.html", "2030-01-01"),
        ("new.html", "2030-01-01"),
        ("x.html", first),
    ]
    .map(|(path, date)| (format!("{BASE}{path}"), Some(date.to_string())))
    .into_iter()
    .collect::<BTreeMap<_, _>>();
    // SOURCE relative to the current directory; the pages with no date from git take the
    // normal rule's.
    let state = state_path(&site);
    for with_state in [false, true] {
        let mut cmd = site.command(&["--lastmod", "2030-01-01", "-v", "--sources"]);
        cmd.arg(&sources).current_dir(&project);
        if with_state {
            cmd.args(["--state", &state]);
        }
        cmd.run().success().stderr_has(&[
            "loose.md: not in a git work tree, its pages are dated as others are",
            "gone.md: no such source",
        ]);
        assert_eq!(dates(&site), expected);
    }

    // The same commit's date as git prints it, through --source-dates.
    for format in ["%cI", "%ci"] {
        let date = last_commit(&project, format, "docs/b/c.md");
        fs::write(
            site.outside().join("dates.tsv"),
            format!("b/c/index.html\t{date}\n"),
        )
        .unwrap();
        site.command(&["--source-dates"])
            .arg(site.outside().join("dates.tsv"))
            .run()
            .success();
        assert_eq!(
            dates(&site)[&format!("{BASE}b/c/")].as_deref(),
            Some("2024-04-30T19:00:00+00:00"),
            "{date}"
        );
    }
    // A page given by both is refused.
    site.command(&["--source-dates"])
        .arg(site.outside().join("dates.tsv"))
        .arg("--sources")
        .arg(&sources)
        .current_dir(&project)
        .run()
        .expect_code(2)
        .stderr_has(&[":3: b/c/index.html is given a date already by --source-dates, line 1"]);
    for (text, expected) in [
        (
            "a.html docs/a.md\n",
            ":1: not a page's file or URL, a tab and a source file",
        ),
        ("a.html\t\n", ":1: the source is not a file's path"),
        (
            "a.html\tx\na.html\ty\n",
            ":2: a.html is given a date already on line 1",
        ),
    ] {
        fs::write(&sources, text).unwrap();
        site.command(&["--sources"])
            .arg(&sources)
            .run()
            .expect_code(2)
            .stderr_has(&[&sources.display().to_string(), expected, "(--sources)"]);
    }
    site.command(&["--lastmod", "none", "--sources"])
        .arg(&sources)
        .run()
        .expect_code(2)
        .stderr_has(&["--sources gives dates, and --lastmod none writes none"]);
}

#[test]
fn sources_git_cannot_read_are_warned_about_and_dated_as_others() {
    let site = Site::with_pages(&["a.html"]);
    let project = site.outside().join("project");
    fs::create_dir(&project).unwrap();
    fs::write(project.join("a.md"), "x").unwrap();
    let sources = site.outside().join("sources.tsv");
    fs::write(
        &sources,
        format!("a.html\t{}\n", project.join("a.md").display()),
    )
    .unwrap();
    let run = || {
        let mut cmd = site.command(&["--lastmod", "2030-01-01", "--sources"]);
        cmd.arg(&sources);
        let run = cmd.run();
        run.success();
        assert_eq!(
            dates(&site)[&format!("{BASE}a.html")].as_deref(),
            Some("2030-01-01")
        );
        run
    };
    // A work tree with no commit yet: git log fails.
    git(&project, &["init", "-q"], "2024-01-01T00:00:00Z");
    run().stderr_has(&[
        "warning: cannot date the sources: git log failed: ",
        "their pages are dated as others are (--sources)",
    ]);
    // A `.git` that is no repository.
    fs::remove_dir_all(project.join(".git")).unwrap();
    fs::create_dir(project.join(".git")).unwrap();
    run().stderr_has(&[
        "warning: cannot read the git history of ",
        "not a git repository",
    ]);
}

#[test]
fn a_shallow_clones_boundary_dates_no_source() {
    let site = Site::with_pages(&["old.html", "new.html"]);
    let origin = site.outside().join("origin");
    fs::create_dir(&origin).unwrap();
    git(&origin, &["init", "-q"], "2024-01-01T00:00:00Z");
    fs::write(origin.join("old.md"), "x").unwrap();
    fs::write(origin.join("new.md"), "x").unwrap();
    git(&origin, &["add", "."], "2024-01-01T00:00:00Z");
    git(&origin, &["commit", "-qm", "one"], "2024-01-01T00:00:00Z");
    fs::write(origin.join("new.md"), "y").unwrap();
    git(&origin, &["commit", "-qam", "two"], "2024-03-01T00:00:00Z");
    fs::write(origin.join("new.md"), "z").unwrap();
    git(
        &origin,
        &["commit", "-qam", "three"],
        "2024-04-01T00:00:00Z",
    );
    let clone = site.outside().join("clone");
    shallow_clone(&origin, &clone, 2);
    let sources = site.outside().join("sources.tsv");
    fs::write(
        &sources,
        format!(
            "old.html\t{}\nnew.html\t{}\n",
            clone.join("old.md").display(),
            clone.join("new.md").display()
        ),
    )
    .unwrap();
    site.command(&["--lastmod", "2030-01-01", "--sources"])
        .arg(&sources)
        .run()
        .success()
        .stderr_has(&["note: ", "is a shallow clone", "git fetch --unshallow"]);
    let got = dates(&site);
    // The clone's boundary (commit two) holds old.md, unchanged since commit one.
    assert_eq!(
        got[&format!("{BASE}old.html")].as_deref(),
        Some("2030-01-01")
    );
    let three = last_commit(&clone, "%cI", "new.md");
    assert_eq!(got[&format!("{BASE}new.html")], Some(three));
}

#[test]
fn lastmod_format_date_writes_each_date_alone_and_the_state_keeps_the_time() {
    let site = Site::with_pages(&["index.html", "a.html"]);
    set_file_mtime(
        site.page("a.html"),
        FileTime::from_unix_time(1_764_201_600, 0),
    )
    .unwrap();
    set_file_mtime(
        site.page("index.html"),
        FileTime::from_unix_time(1_764_250_000, 0),
    )
    .unwrap();
    let args = ["--state", "state", "--lastmod-format", "date"];
    site.run(&args).success();
    let dates: Vec<_> = validate::sitemap(&site.sitemap_path(), BASE)
        .into_iter()
        .map(|url| url.lastmod.unwrap())
        .collect();
    assert_eq!(dates, ["2025-11-27", "2025-11-27"]);
    // A fixed datetime in its own zone: its date as written there.
    site.run(&[
        "--lastmod",
        "2026-11-27T23:30:00-05:00",
        "--lastmod-format=date",
    ])
    .success();
    assert!(
        fs::read_to_string(site.sitemap_path())
            .unwrap()
            .contains("<lastmod>2026-11-27</lastmod>")
    );
    // The state kept the times: back to datetime, nothing is re-dated.
    site.run(&["--state", "state"])
        .success()
        .stderr_has(&["0 re-dated"]);
    assert!(
        fs::read_to_string(site.sitemap_path())
            .unwrap()
            .contains("<lastmod>2025-11-27T")
    );
    site.run(&["--lastmod-format", "day"])
        .expect_code(2)
        .stderr_has(&["--lastmod-format \"day\" is not datetime or date"]);
}

/// A clone of ORIGIN at INTO with the last DEPTH commits, as CI's checkout makes one.
fn shallow_clone(origin: &Path, into: &Path, depth: u32) {
    let out = Command::new("git")
        .args(["clone", "-q", "--depth", &depth.to_string()])
        .arg(format!("file://{}", origin.display()))
        .arg(into)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
}
