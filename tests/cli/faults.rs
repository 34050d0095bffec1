//! Faults injected into runs and hostile input: kills at random points, a full disk, no
//! permission, files that vanish or loop, two runs at once, every byte in a name, extreme
//! depths, lengths and dates, damaged state files. Each failure gives the right exit code, a
//! message naming the culprit, the previous sitemap byte-identical and no temp file left.

use std::collections::BTreeSet;
use std::ffi::OsStr;
use std::fs;
use std::os::unix::ffi::OsStrExt;
use std::os::unix::fs::{PermissionsExt, symlink};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use filetime::{FileTime, set_file_mtime};

use crate::harness::{BASE, Cmd, Site, bin, is_root, skip_outside_ci, windows_binary};
use crate::validate::{self, UrlRecord, locs};

/// Our temp files (`.sitemapgen-XXXXXX.tmp`) anywhere in or beside the site.
fn leftovers(site: &Site) -> Vec<PathBuf> {
    site.all_files()
        .into_iter()
        .filter(|p| {
            let name = p.file_name().unwrap().as_bytes();
            name.starts_with(b".sitemapgen-") && name.ends_with(b".tmp")
        })
        .collect()
}

#[track_caller]
fn assert_no_leftovers(site: &Site) {
    let left = leftovers(site);
    assert!(left.is_empty(), "temp files left behind: {left:?}");
}

/// Every file of the site named `sitemap*` (index, shards, plain sitemap) with its bytes.
fn sitemap_files(site: &Site) -> Vec<(PathBuf, Vec<u8>)> {
    site.all_files()
        .into_iter()
        .filter(|p| p.file_name().unwrap().as_bytes().starts_with(b"sitemap"))
        .map(|p| {
            let bytes = fs::read(&p).unwrap();
            (p, bytes)
        })
        .collect()
}

/// Creates `n` empty pages `p00000.html`… (the head reader copes with empty files).
fn empty_pages(site: &Site, n: usize) {
    for i in 0..n {
        fs::File::create(site.path(format!("p{i:05}.html"))).unwrap();
    }
}

fn spawn(site: &Site, args: &[&str]) -> Child {
    Command::new(bin())
        .args(["-q", "-b", BASE])
        .args(args)
        .arg(&site.root)
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .expect("run sitemapgen")
}

/// A tiny fixed-seed generator (xorshift64): the same delays on every run of the test.
struct Rng(u64);

impl Rng {
    fn below(&mut self, n: u64) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0 % n.max(1)
    }
}

/// `%XX` back to the byte; everything else as it is.
fn percent_decode(text: &str) -> Vec<u8> {
    percent_encoding::percent_decode_str(text).collect()
}

/// The file path (relative to DIR) a loc stands for, as raw bytes.
fn decoded_path(loc: &str) -> Vec<u8> {
    percent_decode(loc.strip_prefix(BASE).expect("loc under BASE"))
}

// ---------------------------------------------------------------------------------------
// 1. SIGKILL at random points of a large split run

const KILL_PAGES: usize = 20_000;
const KILL_SHARDS: usize = 4;

/// The shard files an index names, relative to the site root.
fn shard_names(index: &[UrlRecord]) -> Vec<String> {
    index
        .iter()
        .map(|e| e.loc.strip_prefix(BASE).unwrap().to_string())
        .collect()
}

/// Checks that shard `k` (from 1) is a complete, valid shard of the run that used `date`.
#[track_caller]
fn assert_complete_shard(path: &Path, k: usize, date: &str) {
    let urls = validate::sitemap(path, BASE);
    let per = KILL_PAGES / KILL_SHARDS;
    assert_eq!(urls.len(), per, "{} is not complete", path.display());
    for (i, url) in urls.iter().enumerate() {
        assert_eq!(
            url.loc,
            format!("{BASE}p{:05}.html", (k - 1) * per + i),
            "{}",
            path.display()
        );
        assert_eq!(url.lastmod.as_deref(), Some(date), "{}", path.display());
    }
}

/// The index and the shards it lists, each checked complete and of one run (all dated
/// alike); the date of that run.
#[track_caller]
fn listed_set(site: &Site, round: u32) -> (Vec<Vec<u8>>, String) {
    let index = validate::index(&site.sitemap_path(), BASE);
    assert_eq!(index.len(), KILL_SHARDS, "round {round}");
    let date = index[0].lastmod.clone().unwrap();
    assert!(
        index.iter().all(|e| e.lastmod.as_deref() == Some(&*date)),
        "round {round}: an index of two runs: {index:?}"
    );
    let mut set = vec![fs::read(site.sitemap_path()).unwrap()];
    for (k, name) in shard_names(&index).iter().enumerate() {
        let name = name
            .strip_suffix(".b.xml")
            .map_or(name.clone(), |n| format!("{n}.xml"));
        assert_eq!(name, format!("sitemap-{}.xml", k + 1), "round {round}");
        let path = site.path(shard_names(&index)[k].as_str());
        // The shards the index lists are of the index's run: never a newer run's.
        assert_complete_shard(&path, k + 1, &date);
        set.push(fs::read(path).unwrap());
    }
    (set, date)
}

#[test]
fn sigkill_at_random_points_never_leaves_a_torn_sitemap() {
    let site = Site::empty();
    empty_pages(&site, KILL_PAGES);
    let index_path = site.sitemap_path();

    // Each run dates every page with its own fixed date, so a file tells which run wrote it.
    let first = "2023-12-31";
    site.run(&["--max-urls", "5000", "--lastmod", first])
        .success();
    // A warm run that writes the same bytes: how long a run takes here, to spread the kills.
    let start = Instant::now();
    site.run(&["--max-urls", "5000", "--lastmod", first])
        .success();
    let typical = start.elapsed();
    let index = validate::index(&index_path, BASE);
    // Unchanged, each shard keeps the name the index lists.
    assert_eq!(
        shard_names(&index),
        [
            "sitemap-1.xml",
            "sitemap-2.xml",
            "sitemap-3.xml",
            "sitemap-4.xml"
        ]
    );
    let (mut previous, _) = listed_set(&site, 0);
    let mut rng = Rng(0x5eed_1234_abcd_0001);
    let mut completed = 0;
    let mut killed = 0;
    let mut unlisted = 0;
    let mut leftover_counts = Vec::new();
    for round in 1..=15u32 {
        let date = format!("2024-01-{round:02}");
        // Up to 1.5 times the typical run, so that some runs complete (a loaded machine
        // is slower than the measured run).
        let delay = Duration::from_micros(rng.below(typical.as_micros() as u64 * 3 / 2));
        let mut child = spawn(&site, &["--max-urls", "5000", "--lastmod", &date]);
        std::thread::sleep(delay);
        child.kill().unwrap(); // SIGKILL; harmless if it has already exited
        let status = child.wait().unwrap();
        if status.success() {
            completed += 1;
        } else {
            killed += 1;
        }

        // Whenever the run was stopped, the index lists one run's complete set: the new
        // run's once the index is new (it is renamed last), the old one's before.
        let (now, listed_date) = listed_set(&site, round);
        if now[0] != previous[0] {
            assert_eq!(listed_date, date, "round {round}");
        } else {
            assert_eq!(now, previous, "round {round}");
        }

        // Leftovers of killed runs are hidden temp files beside the output, and new shards
        // the index does not list yet; nothing else.
        let left = leftovers(&site);
        for path in &left {
            assert_eq!(path.parent().unwrap(), site.root, "{path:?}");
            assert!(path.file_name().unwrap().as_bytes().starts_with(b"."));
        }
        let listed = shard_names(&validate::index(&index_path, BASE));
        let strays: Vec<_> = site
            .all_files()
            .into_iter()
            .map(|p| p.file_name().unwrap().to_string_lossy().into_owned())
            .filter(|name| {
                let page = name.starts_with('p') && name.ends_with(".html");
                !page && !name.starts_with('.') && name != "sitemap.xml" && !listed.contains(name)
            })
            .collect();
        for name in &strays {
            let k: usize = name
                .strip_prefix("sitemap-")
                .and_then(|n| n.split('.').next())
                .and_then(|n| n.parse().ok())
                .unwrap_or_else(|| panic!("round {round}: a stray {name}"));
            assert!((1..=KILL_SHARDS).contains(&k), "round {round}: {name}");
            // A complete shard of this run or of an earlier killed one.
            let path = site.path(name.as_str());
            let its = validate::sitemap(&path, BASE)[0].lastmod.clone().unwrap();
            assert!(its <= date, "round {round}: {name} of {its}");
            assert_complete_shard(&path, k, &its);
        }
        unlisted += usize::from(!strays.is_empty());
        // The next run removes what killed runs left: checked after the loop.
        leftover_counts.push(left.len());
        previous = now;
    }
    eprintln!(
        "faults: {killed} runs killed, {completed} completed, {unlisted} left new shards \
         the old index does not list; temp files left after each round: {leftover_counts:?}"
    );

    // No leftover is ever listed, even when hidden files and every name are asked for.
    // Written outside DIR: a preview (-o -) leaves out the files a run writing DIR/sitemap.xml
    // writes, the shards among them.
    let listing = site.outside().join("listing.xml");
    let listing_arg = listing.to_str().unwrap();
    let run = site.run(&[
        "--hidden",
        "--include",
        "*",
        "-o",
        listing_arg,
        "--lastmod",
        "none",
    ]);
    run.success();
    let urls = validate::sitemap(&listing, BASE);
    assert!(
        urls.iter().all(|u| !u.loc.contains(".sitemapgen-")),
        "a temp file is listed"
    );
    let shards = urls.iter().filter(|u| u.loc.contains("/sitemap-")).count();
    assert!(
        (KILL_SHARDS..=2 * KILL_SHARDS).contains(&shards),
        "{shards} shards"
    );
    assert_eq!(urls.len(), KILL_PAGES + 1 + shards, "pages, index, shards");

    // A run that is left alone repairs whatever state the kills left, and removes their
    // temp files and the shards no index lists.
    site.run(&["--max-urls", "5000", "--lastmod", "2024-02-01"])
        .success();
    assert_eq!(leftovers(&site), Vec::<PathBuf>::new());
    let (_, date) = listed_set(&site, 16);
    assert_eq!(date, "2024-02-01");
    let ours: Vec<_> = site
        .all_files()
        .into_iter()
        .filter(|p| p.file_name().unwrap().as_bytes().starts_with(b"sitemap"))
        .collect();
    assert_eq!(ours.len(), 1 + KILL_SHARDS, "{ours:?}");
}

#[test]
fn the_next_run_removes_stale_temp_files_of_a_killed_run() {
    let site = Site::with_pages(&["index.html", "a.html"]);
    site.run(&[]).success();
    // As killed runs leave them, an hour ago and just now: in the output's directory,
    // partly written.
    let hour_ago = FileTime::from_unix_time(FileTime::now().unix_seconds() - 3600, 0);
    for name in [".sitemapgen-Ab12Cd.tmp", ".sitemapgen-zZ9yY8.tmp"] {
        site.write(name, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<urlse");
    }
    set_file_mtime(site.path(".sitemapgen-Ab12Cd.tmp"), hour_ago).unwrap();
    site.run(&[]).success();
    validate::sitemap(&site.sitemap_path(), BASE);
    assert_no_leftovers(&site);
}

/// strace's fault injection, when it can trace here (not in every container).
fn strace_works() -> bool {
    let ok = Command::new("strace")
        .args(["-f", "-qq", "-o", "/dev/null", "true"])
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .is_ok_and(|s| s.success());
    if !ok {
        skip_outside_ci("strace cannot trace here");
    }
    ok
}

/// `sitemapgen ARGS DIR` under strace with `strace_args`, its trace in `trace`.
fn spawn_traced(site: &Site, trace: &Path, strace_args: &[&str], args: &[&str]) -> Child {
    Command::new("strace")
        .args(["-f", "-qq", "-o"])
        .arg(trace)
        .args(strace_args)
        .arg(bin())
        .args(["-b", BASE])
        .args(args)
        .arg(&site.root)
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap()
}

/// Runs sitemapgen under strace, which sends SIGKILL on its `when`-th rename.
fn run_killed_at_rename(site: &Site, when: u32, args: &[&str]) -> std::process::Output {
    let inject = format!("inject=rename,renameat,renameat2:signal=KILL:when={when}");
    let strace = ["-e", "trace=rename,renameat,renameat2", "-e", &inject];
    let args = [&["-q"], args].concat();
    spawn_traced(site, Path::new("/dev/null"), &strace, &args)
        .wait_with_output()
        .unwrap()
}

#[test]
fn a_kill_before_the_first_rename_leaves_the_sitemap_and_only_hidden_temp_files() {
    if !strace_works() {
        return;
    }
    let site = Site::empty();
    empty_pages(&site, 50);
    site.run(&["--max-urls", "20", "--lastmod", "2024-01-01"])
        .success();
    let before = sitemap_files(&site);
    let out = run_killed_at_rename(&site, 1, &["--max-urls", "20", "--lastmod", "2024-01-02"]);
    assert!(!out.status.success());
    assert_eq!(sitemap_files(&site), before);
    // Every file of the run (3 shards and the index) was complete, waiting to be renamed.
    let left = leftovers(&site);
    assert_eq!(left.len(), 4, "{left:?}");
    let run = site.run(&["--hidden", "--include", "*", "-o", "-"]);
    run.success();
    let urls = validate::sitemap_bytes(run.stdout(), BASE);
    assert!(urls.iter().all(|u| !u.loc.contains(".sitemapgen-")));
}

#[test]
fn a_kill_between_the_shard_renames_and_the_index_rename_keeps_the_old_set_whole() {
    if !strace_works() {
        return;
    }
    let site = Site::empty();
    empty_pages(&site, 50);
    site.run(&["--max-urls", "20", "--lastmod", "2024-01-01"])
        .success();
    let before = sitemap_files(&site);
    // Killed at the second rename: shard 1 is already new, shards 2, 3 and the index not.
    let out = run_killed_at_rename(&site, 2, &["--max-urls", "20", "--lastmod", "2024-01-02"]);
    assert!(!out.status.success());
    // The old index lists the old shards, untouched; the new shard 1 waits under the name
    // the old index does not list.
    let mut now = sitemap_files(&site);
    let new_one = site.path("sitemap-1.b.xml");
    let at = now.iter().position(|(path, _)| *path == new_one);
    let (_, bytes) = now.remove(at.expect("the new shard 1 under its second name"));
    assert!(String::from_utf8(bytes).unwrap().contains("2024-01-02"));
    assert_eq!(now, before);
    let index = validate::index(&site.sitemap_path(), BASE);
    for entry in &index {
        let shard = site.path(entry.loc.strip_prefix(BASE).unwrap());
        let urls = validate::sitemap(&shard, BASE);
        assert_eq!(
            entry.lastmod,
            urls.iter().filter_map(|u| u.lastmod.clone()).max(),
            "the index and {} are of different runs",
            shard.display()
        );
    }
    // The next run publishes the new set and removes what the old index listed.
    site.run(&["--max-urls", "20", "--lastmod", "2024-01-02"])
        .success();
    let names: Vec<_> = sitemap_files(&site)
        .into_iter()
        .map(|(path, _)| path.file_name().unwrap().to_string_lossy().into_owned())
        .collect();
    assert_eq!(
        names,
        [
            "sitemap-1.b.xml",
            "sitemap-2.b.xml",
            "sitemap-3.b.xml",
            "sitemap.xml"
        ]
    );
    // A run with nothing new keeps every name; the next change takes the first names back.
    site.run(&["--max-urls", "20", "--lastmod", "2024-01-02"])
        .success();
    assert_eq!(sitemap_files(&site).len(), 4);
    assert!(site.path("sitemap-2.b.xml").exists());
    site.run(&["--max-urls", "20", "--lastmod", "2024-01-03"])
        .success();
    let index = validate::index(&site.sitemap_path(), BASE);
    assert_eq!(
        shard_names(&index),
        ["sitemap-1.xml", "sitemap-2.xml", "sitemap-3.xml"]
    );
    assert_eq!(sitemap_files(&site).len(), 4);
}

// ---------------------------------------------------------------------------------------
// 2. A write error past the file-size limit

/// `sitemapgen ARGS DIR` unable to write any file past 4 KiB (SIGXFSZ ignored, so a write
/// fails with EFBIG instead of killing the process).
fn run_with_file_size_limit(site: &Site, args: &[&str]) -> (i32, String) {
    let out = Command::new("sh")
        .arg("-c")
        .arg("trap '' XFSZ; ulimit -f 4; exec \"$@\"")
        .arg("sh")
        .arg(bin())
        .args(["-b", BASE])
        .args(args)
        .arg(&site.root)
        .output()
        .unwrap();
    (
        out.status.code().expect("exited, not killed"),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

#[test]
fn a_write_past_the_file_size_limit_fails_and_keeps_the_old_sitemap() {
    let site = Site::empty();
    for i in 0..300 {
        site.page(format!("section/page-with-a-long-name-{i:04}.html"));
    }
    site.run(&[]).success();
    let before = fs::read(site.sitemap_path()).unwrap();
    assert!(before.len() > 4096 * 4);
    site.page("section/new.html");
    let files = site.all_files();
    let (code, stderr) = run_with_file_size_limit(&site, &[]);
    assert_eq!(code, 1, "{stderr}");
    assert!(stderr.contains("sitemapgen: error: "), "{stderr}");
    assert!(stderr.contains("File too large"), "{stderr}");
    assert_eq!(fs::read(site.sitemap_path()).unwrap(), before);
    assert_eq!(site.all_files(), files, "a temp file was left");

    // With --state: the state and the sitemap both stay as they were.
    let state = site.outside().join("sitemap.state");
    let state_arg = state.to_str().unwrap();
    site.run(&["--state", state_arg]).success();
    let before = fs::read(site.sitemap_path()).unwrap();
    let state_before = fs::read(&state).unwrap();
    site.page("section/newer.html");
    let files = site.all_files();
    let (code, stderr) = run_with_file_size_limit(&site, &["--state", state_arg]);
    assert_eq!(code, 1, "{stderr}");
    assert!(stderr.contains("File too large"), "{stderr}");
    assert_eq!(fs::read(site.sitemap_path()).unwrap(), before);
    assert_eq!(fs::read(&state).unwrap(), state_before);
    assert_eq!(site.all_files(), files, "a temp file was left");
}

// ---------------------------------------------------------------------------------------
// 3. An output directory that cannot be written

#[test]
fn an_unwritable_shard_directory_keeps_the_previous_index_and_shards() {
    let site = Site::with_pages(&["index.html", "a.html", "b.html", "c.html", "d.html"]);
    site.open_to_everyone();
    fs::create_dir(site.path("out")).unwrap();
    let out = site.path("out/sitemap.xml");
    site.command(&["--max-urls", "2", "-o"])
        .arg(&out)
        .run()
        .success();
    validate::index(&out, BASE);
    let before = sitemap_files(&site);
    assert_eq!(before.len(), 4, "an index and 3 shards");
    let files = site.all_files();
    fs::set_permissions(site.path("out"), fs::Permissions::from_mode(0o555)).unwrap();
    let run = Cmd::unprivileged()
        .args(["-b", BASE, "--max-urls", "2", "--lastmod", "none", "-o"])
        .arg(&out)
        .arg(&site.root)
        .run();
    fs::set_permissions(site.path("out"), fs::Permissions::from_mode(0o755)).unwrap();
    run.expect_code(1).stderr_has(&[
        "sitemapgen: error: cannot write the sitemap ",
        ": cannot create a temp file in ",
        "out",
        "Permission denied",
    ]);
    assert_eq!(sitemap_files(&site), before);
    assert_eq!(site.all_files(), files);
}

#[test]
fn a_sitemap_of_another_user_in_a_sticky_directory_cannot_be_replaced() {
    if !is_root() {
        skip_outside_ci("not root, and the sticky-directory case needs a second user");
        return;
    }
    // As in /tmp: anyone may create files, only a file's owner may replace it.
    let site = Site::with_pages(&["index.html", "a.html"]);
    site.run(&[]).success();
    let before = fs::read(site.sitemap_path()).unwrap();
    site.open_to_everyone();
    fs::set_permissions(&site.root, fs::Permissions::from_mode(0o1777)).unwrap();
    let files = site.all_files();
    let run = Cmd::unprivileged()
        .args(["-b", BASE, "--lastmod", "none"])
        .arg(&site.root)
        .run();
    run.expect_code(1).stderr_has(&[
        "sitemapgen: error: cannot write ",
        "sitemap.xml",
        "Operation not permitted",
    ]);
    assert_eq!(fs::read(site.sitemap_path()).unwrap(), before);
    assert_eq!(site.all_files(), files);
}

// ---------------------------------------------------------------------------------------
// 4. Unreadable directories and pages

#[test]
fn files_from_naming_a_file_in_an_unreadable_directory_fails_naming_it() {
    let site = Site::with_pages(&["index.html", "private/p.html", "secret.html"]);
    site.run(&[]).success();
    let before = fs::read(site.sitemap_path()).unwrap();
    site.open_to_everyone();
    let files = site.all_files();
    let private = site.path("private");
    let run_list = |list: &str| {
        Cmd::unprivileged()
            .args(["-b", BASE, "--files-from", "-"])
            .arg(&site.root)
            .stdin(list)
            .run()
    };

    // No permission at all: the file cannot even be looked at.
    fs::set_permissions(&private, fs::Permissions::from_mode(0o000)).unwrap();
    let run = run_list("index.html\nprivate/p.html\n");
    fs::set_permissions(&private, fs::Permissions::from_mode(0o755)).unwrap();
    run.expect_code(1)
        .stderr_has(&["sitemapgen: error: ", "private/p.html", "Permission denied"]);
    assert_eq!(fs::read(site.sitemap_path()).unwrap(), before);
    assert_eq!(site.all_files(), files);

    // An unreadable page named in the list.
    fs::set_permissions(site.path("secret.html"), fs::Permissions::from_mode(0o000)).unwrap();
    let run = run_list("index.html\nsecret.html\n");
    fs::set_permissions(site.path("secret.html"), fs::Permissions::from_mode(0o644)).unwrap();
    run.expect_code(1)
        .stderr_has(&["error: ", "secret.html", "Permission denied"]);
    assert_eq!(fs::read(site.sitemap_path()).unwrap(), before);
    assert_eq!(site.all_files(), files);
}

#[test]
fn a_searchable_but_unlistable_directory_fails_a_walk_but_not_a_list() {
    let site = Site::with_pages(&["index.html", "private/p.html"]);
    site.run(&[]).success();
    let before = fs::read(site.sitemap_path()).unwrap();
    site.open_to_everyone();
    let files = site.all_files();
    let private = site.path("private");
    fs::set_permissions(&private, fs::Permissions::from_mode(0o111)).unwrap();
    let walk = Cmd::unprivileged().args(["-b", BASE]).arg(&site.root).run();
    let list = Cmd::unprivileged()
        .args(["-b", BASE, "--lastmod", "none", "--files-from", "-"])
        .arg(&site.root)
        .stdin("private/p.html\nindex.html\n")
        .run();
    fs::set_permissions(&private, fs::Permissions::from_mode(0o755)).unwrap();
    walk.expect_code(1)
        .stderr_has(&["error: cannot read ", "private", "Permission denied"]);
    assert_eq!(site.all_files(), files);
    // The listed file is reachable without listing its directory.
    list.success();
    assert_ne!(fs::read(site.sitemap_path()).unwrap(), before);
    let urls = validate::sitemap(&site.sitemap_path(), BASE);
    assert_eq!(locs(&urls), [BASE, "https://example.com/private/p.html"]);
    assert_no_leftovers(&site);
}

#[test]
fn an_unreadable_directory_deep_in_a_split_site_keeps_every_shard() {
    let site = Site::with_pages(&["index.html", "a.html", "b.html", "z/y/x/deep.html"]);
    site.page("z/y/x/hidden-away/p.html");
    site.run(&["--max-urls", "2"]).success();
    let before = sitemap_files(&site);
    assert_eq!(before.len(), 4);
    site.open_to_everyone();
    let files = site.all_files();
    let dir = site.path("z/y/x/hidden-away");
    fs::set_permissions(&dir, fs::Permissions::from_mode(0o000)).unwrap();
    let run = Cmd::unprivileged()
        .args(["-b", BASE, "--max-urls", "2", "--lastmod", "none"])
        .arg(&site.root)
        .run();
    fs::set_permissions(&dir, fs::Permissions::from_mode(0o755)).unwrap();
    run.expect_code(1).stderr_has(&[
        "error: cannot read ",
        "z/y/x/hidden-away",
        "Permission denied",
    ]);
    assert_eq!(sitemap_files(&site), before);
    assert_eq!(site.all_files(), files);
}

// ---------------------------------------------------------------------------------------
// 5. Listed files that do not exist, dangling and looping symlinks

#[test]
fn a_listed_file_that_does_not_exist_fails_naming_it() {
    let site = Site::with_pages(&["index.html", "a.html"]);
    site.run(&[]).success();
    let before = fs::read(site.sitemap_path()).unwrap();
    let files = site.all_files();
    let absolute = site.path("gone/too.html");
    let cases: [(&[&str], Vec<u8>, &str); 3] = [
        (
            &[],
            b"a.html\nno/such/dir/x.html\n".to_vec(),
            "no/such/dir/x.html",
        ),
        (
            &["-0"],
            b"a.html\0vanished.html\0".to_vec(),
            "vanished.html",
        ),
        (
            &[],
            format!("{}\n", absolute.display()).into_bytes(),
            "gone/too.html",
        ),
    ];
    for (args, list, culprit) in cases {
        site.command(&[&["--files-from", "-"][..], args].concat())
            .stdin(list)
            .run()
            .expect_code(1)
            .stderr_has(&["sitemapgen: error: ", culprit]);
        assert_eq!(fs::read(site.sitemap_path()).unwrap(), before);
        assert_eq!(site.all_files(), files);
    }
}

#[test]
fn a_failure_early_in_a_long_list_ends_the_run_at_once() {
    // The list's stat stage runs on -j threads. When the run fails on the first batch (a
    // dangling symlink under --strict), the finder, with many more batches than the stages
    // hold, must be stopped, not left waiting on a full queue: the run ends within seconds.
    let site = Site::with_pages(&["index.html"]);
    site.run(&[]).success();
    empty_pages(&site, 20_000);
    symlink("nowhere.html", site.path("a-gone.html")).unwrap();
    let before = fs::read(site.sitemap_path()).unwrap();
    let files = site.all_files();
    let mut list = b"a-gone.html\n".to_vec();
    for i in 0..20_000 {
        list.extend(format!("p{i:05}.html\n").bytes());
    }
    for jobs in ["1", "2", "8"] {
        let mut child = Command::new(bin())
            .args([
                "-q",
                "-b",
                BASE,
                "--strict",
                "--files-from",
                "-",
                "-j",
                jobs,
            ])
            .arg(&site.root)
            .stdin(Stdio::piped())
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .expect("run sitemapgen");
        let mut stdin = child.stdin.take().unwrap();
        std::io::Write::write_all(&mut stdin, &list).unwrap();
        drop(stdin);
        let deadline = Instant::now() + Duration::from_secs(30);
        while child.try_wait().unwrap().is_none() {
            if Instant::now() > deadline {
                child.kill().unwrap();
                panic!("-j{jobs}: the run did not end after its failure");
            }
            std::thread::sleep(Duration::from_millis(20));
        }
        let out = child.wait_with_output().unwrap();
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(1), "-j{jobs}: {stderr}");
        assert!(
            stderr.contains("a-gone.html is a dangling symlink"),
            "{stderr}"
        );
        assert_eq!(fs::read(site.sitemap_path()).unwrap(), before);
        assert_eq!(site.all_files(), files);
    }
}

#[test]
fn a_listed_dangling_symlink_is_a_warning_and_an_error_under_strict() {
    let site = Site::with_pages(&["index.html", "a.html"]);
    symlink("nowhere/at-all.html", site.path("gone.html")).unwrap();
    site.command(&["--files-from", "-"])
        .stdin("a.html\ngone.html\nindex.html\n")
        .run()
        .success()
        .stderr_has(&["warning: ", "gone.html is a dangling symlink; not listed"]);
    let urls = validate::sitemap(&site.sitemap_path(), BASE);
    assert_eq!(locs(&urls), [BASE, "https://example.com/a.html"]);
    let before = fs::read(site.sitemap_path()).unwrap();
    let files = site.all_files();
    site.command(&["--files-from", "-", "--strict"])
        .stdin("a.html\ngone.html\n")
        .run()
        .expect_code(1)
        .stderr_has(&["gone.html is a dangling symlink"]);
    assert_eq!(fs::read(site.sitemap_path()).unwrap(), before);
    assert_eq!(site.all_files(), files);
}

/// Twenty pages `p00.html`…`p19.html`, and a sitemap of them.
fn twenty_pages() -> Site {
    let site = Site::empty();
    for i in 0..20 {
        site.page(format!("p{i:02}.html"));
    }
    site.run(&["--lastmod", "none"]).success();
    site
}

#[test]
fn a_page_that_vanishes_between_the_walk_and_its_stat_is_a_warning() {
    if !strace_works() {
        return;
    }
    for strict in [false, true] {
        let site = twenty_pages();
        let before = fs::read(site.sitemap_path()).unwrap();
        // Every stat is held up 50 ms. Once the first page's has begun, the walk has listed
        // the directory, and the last page is a second away from its own: remove it then.
        let trace = site.outside().join("trace");
        let args: &[&str] = if strict { &["--strict"] } else { &[] };
        let inject = [
            "-e",
            "trace=newfstatat",
            "-e",
            "inject=newfstatat:delay_enter=50000",
        ];
        let child = spawn_traced(&site, &trace, &inject, args);
        let start = Instant::now();
        while !fs::read_to_string(&trace).is_ok_and(|t| t.contains("\"p00.html\"")) {
            assert!(
                start.elapsed() < Duration::from_secs(60),
                "no stat of p00.html"
            );
            std::thread::sleep(Duration::from_millis(5));
        }
        fs::remove_file(site.path("p19.html")).unwrap();
        fs::remove_file(&trace).unwrap();
        let out = child.wait_with_output().unwrap();
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(
            stderr.contains("p19.html vanished while the site was being read"),
            "{stderr}"
        );
        if strict {
            assert_eq!(out.status.code(), Some(1), "{stderr}");
            assert_eq!(fs::read(site.sitemap_path()).unwrap(), before);
        } else {
            assert!(out.status.success(), "{stderr}");
            assert!(stderr.contains("warning: "), "{stderr}");
            let urls = validate::sitemap(&site.sitemap_path(), BASE);
            assert_eq!(urls.len(), 19);
            assert!(!locs(&urls).iter().any(|loc| loc.contains("p19")));
        }
        assert_no_leftovers(&site);
    }
}

#[test]
fn a_page_that_vanishes_between_its_stat_and_its_read_is_a_warning() {
    if !strace_works() {
        return;
    }
    // The page's open fails as if it had just been removed: the head reader's open, and with
    // --state the digest's.
    for with in ["", "--state", "--strict"] {
        let site = twenty_pages();
        let state = site.outside().join("sitemap.state");
        let args = match with {
            "--state" => vec!["--state", state.to_str().unwrap()],
            "" => vec![],
            flag => vec![flag],
        };
        let before = fs::read(site.sitemap_path()).unwrap();
        let victim = site.path("p05.html");
        let trace = site.outside().join("trace");
        // Pages are opened through their directory's descriptor, by name: strace matches
        // the name as given.
        let inject = [
            "-P",
            victim.to_str().unwrap(),
            "-P",
            "p05.html",
            "-e",
            "trace=openat",
            "-e",
            "inject=openat:error=ENOENT",
        ];
        let out = spawn_traced(&site, &trace, &inject, &args)
            .wait_with_output()
            .unwrap();
        fs::remove_file(&trace).unwrap();
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(
            stderr.contains("p05.html vanished while the site was being read"),
            "{args:?}: {stderr}"
        );
        if with == "--strict" {
            assert_eq!(out.status.code(), Some(1), "{stderr}");
            assert_eq!(fs::read(site.sitemap_path()).unwrap(), before);
        } else {
            assert!(out.status.success(), "{args:?}: {stderr}");
            let urls = validate::sitemap(&site.sitemap_path(), BASE);
            assert_eq!(urls.len(), 19, "{args:?}");
            assert!(!locs(&urls).iter().any(|loc| loc.contains("p05")));
        }
        assert_no_leftovers(&site);
    }
}

#[test]
fn a_page_symlink_that_loops_on_itself_is_a_warning_like_a_dangling_one() {
    // Like a dangling symlink, a page that resolves to nothing because of a loop is not a
    // page: a warning (an error under --strict).
    let site = Site::with_pages(&["index.html"]);
    site.run(&[]).success();
    let before = fs::read(site.sitemap_path()).unwrap();
    symlink("ping.html", site.path("pong.html")).unwrap();
    symlink("pong.html", site.path("ping.html")).unwrap();
    let files = site.all_files();
    site.run(&["--strict"])
        .expect_code(1)
        .stderr_has(&["error: ping.html is a symlink loop (--strict)"]);
    assert_eq!(fs::read(site.sitemap_path()).unwrap(), before);
    assert_eq!(site.all_files(), files);
    site.run(&[]).success().stderr_has(&[
        "warning: ping.html is a symlink loop; not listed",
        "warning: pong.html is a symlink loop; not listed",
    ]);
    assert_eq!(locs(&validate::sitemap(&site.sitemap_path(), BASE)), [BASE]);
}

// ---------------------------------------------------------------------------------------
// 6. Symlink loops under --follow

#[test]
fn symlink_loops_one_and_two_levels_up_and_across_are_warnings_under_follow() {
    let site = Site::with_pages(&["index.html", "a/page.html", "a/b/page.html", "c/page.html"]);
    symlink("../..", site.path("a/b/up")).unwrap();
    symlink(".", site.path("self")).unwrap();
    symlink("../a", site.path("c/to-a")).unwrap();
    symlink("../../c", site.path("a/b/to-c")).unwrap();
    let run = site.run(&["-L", "-v"]);
    run.success().stderr_has(&[
        "warning: symlink loop:",
        "a/b/up leads back to",
        "self leads back to",
    ]);
    // Without -v, a few warnings of a kind, and a count of the others.
    site.run(&["-L"]).success().stderr_has(&[
        "warning: symlink loop:",
        "warning: and 2 more symlink loops (-v lists all)",
    ]);
    let urls = validate::sitemap(&site.sitemap_path(), BASE);
    let listed: Vec<String> = urls
        .iter()
        .map(|u| u.loc.strip_prefix(BASE).unwrap().to_string())
        .collect();
    // c/to-a is not an ancestor of itself: followed once; inside it, a/b/to-c leads back to c.
    assert_eq!(
        listed,
        [
            "",
            "a/b/page.html",
            "a/b/to-c/page.html",
            "a/page.html",
            "c/page.html",
            "c/to-a/b/page.html",
            "c/to-a/page.html",
        ]
    );
    for loc in &listed {
        assert!(
            site.path(percent_decode(loc)).exists() || loc.is_empty(),
            "{loc}"
        );
    }
    let before = fs::read(site.sitemap_path()).unwrap();
    site.run(&["-L", "--strict"])
        .expect_code(1)
        .stderr_has(&["symlink loop"]);
    assert_eq!(fs::read(site.sitemap_path()).unwrap(), before);
    assert_no_leftovers(&site);
}

// ---------------------------------------------------------------------------------------
// 7. Two runs on the same output at once

#[test]
fn two_concurrent_runs_leave_one_complete_sitemap_never_a_mix() {
    let site = Site::empty();
    empty_pages(&site, 5_000);
    let variants = [["--lastmod", "none"], ["--lastmod", "2024-01-01"]];
    let references: Vec<Vec<u8>> = variants
        .iter()
        .map(|args| {
            site.run(args).success();
            validate::sitemap(&site.sitemap_path(), BASE);
            fs::read(site.sitemap_path()).unwrap()
        })
        .collect();
    assert_ne!(references[0], references[1]);
    let mut seen = [0; 2];
    for round in 0..10 {
        let (first, second) = (round % 2, 1 - round % 2);
        let a = spawn(&site, &variants[first]);
        let b = spawn(&site, &variants[second]);
        for child in [a, b] {
            let out = child.wait_with_output().unwrap();
            assert!(
                out.status.success(),
                "round {round}: {}",
                String::from_utf8_lossy(&out.stderr)
            );
        }
        let now = fs::read(site.sitemap_path()).unwrap();
        let which = references
            .iter()
            .position(|r| *r == now)
            .unwrap_or_else(|| panic!("round {round}: the sitemap is neither run's output"));
        seen[which] += 1;
        assert_no_leftovers(&site);
    }
    validate::sitemap(&site.sitemap_path(), BASE);
    eprintln!("faults: concurrent runs, final sitemap of each variant: {seen:?}");
}

#[test]
fn two_concurrent_split_runs_leave_one_complete_set() {
    if !strace_works() {
        return;
    }
    // Made certain rather than left to chance: run A is held for 3 s at the rename of its
    // index (its 6th: 5 shards first), while run B does all of its own.
    let site = Site::empty();
    empty_pages(&site, 5_000);
    site.run(&["--max-urls", "1000", "--lastmod", "none"])
        .success();
    // A's shards all differ from the index's, so they go under their second names.
    let last_shard = site.path("sitemap-5.b.xml");
    let a = Command::new("strace")
        .args([
            "-f",
            "-qq",
            "-o",
            "/dev/null",
            "-e",
            "trace=rename,renameat,renameat2",
        ])
        .args([
            "-e",
            "inject=rename,renameat,renameat2:delay_enter=3000000:when=6",
        ])
        .arg(bin())
        .args([
            "-q",
            "-b",
            BASE,
            "--max-urls",
            "1000",
            "--lastmod",
            "2024-01-01",
        ])
        .arg(&site.root)
        .spawn()
        .unwrap();
    // Wait for A's shards to be in place (it is then held before its index rename).
    let waiting = Instant::now();
    while !last_shard.exists() {
        assert!(
            waiting.elapsed() < Duration::from_secs(60),
            "run A never got there"
        );
        std::thread::sleep(Duration::from_millis(5));
    }
    site.run(&["--max-urls", "1000", "--lastmod", "2024-01-02"])
        .success();
    assert!(a.wait_with_output().unwrap().status.success());
    let index = validate::index(&site.sitemap_path(), BASE);
    for entry in &index {
        let shard = site.path(entry.loc.strip_prefix(BASE).unwrap());
        let urls = validate::sitemap(&shard, BASE);
        assert_eq!(
            entry.lastmod,
            urls.iter().filter_map(|u| u.lastmod.clone()).max(),
            "the index and {} are of different runs",
            shard.display()
        );
    }
    assert_no_leftovers(&site);
}

#[test]
fn a_run_going_on_makes_its_temp_file_again_when_another_takes_it_for_a_leftover() {
    if !strace_works() {
        return;
    }
    // Run B is held for 3 s between creating its first temp file and locking it; run A
    // starts meanwhile, takes it for a killed run's and removes it, and finishes. B finds
    // it gone once locked, makes another, and must still complete.
    let site = Site::empty();
    empty_pages(&site, 100);
    site.run(&["--lastmod", "none"]).success();
    assert_no_leftovers(&site);
    let b = Command::new("strace")
        .args(["-f", "-qq", "-o", "/dev/null", "-e", "trace=flock"])
        .args(["-e", "inject=flock:delay_enter=3000000:when=1"])
        .arg(bin())
        .args(["-q", "-b", BASE, "--lastmod", "2024-01-02"])
        .arg(&site.root)
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let waiting = Instant::now();
    while leftovers(&site).is_empty() {
        assert!(
            waiting.elapsed() < Duration::from_secs(60),
            "run B never got there"
        );
        std::thread::sleep(Duration::from_millis(5));
    }
    site.run(&["--lastmod", "2024-01-01"]).success();
    let out = b.wait_with_output().unwrap();
    assert!(
        out.status.success(),
        "run B: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let urls = validate::sitemap(&site.sitemap_path(), BASE);
    assert!(
        urls.iter()
            .all(|u| u.lastmod.as_deref() == Some("2024-01-02"))
    );
    assert_no_leftovers(&site);
}

// ---------------------------------------------------------------------------------------
// 8. Bad input: every byte in a name, depth, length, dates, empty sites, DIR not a dir

#[test]
fn a_name_with_each_byte_from_1_to_255_is_listed_and_decodes_back() {
    let site = Site::empty();
    let mut names = BTreeSet::new();
    for byte in (1..=255u8).filter(|b| *b != b'/') {
        let name = [b"b".as_slice(), &[byte], b".html"].concat();
        fs::write(site.root.join(OsStr::from_bytes(&name)), "").unwrap();
        names.insert(name);
    }
    site.run(&["--lastmod", "none"]).success();
    let xml = fs::read(site.sitemap_path()).unwrap();
    let urls = validate::sitemap(&site.sitemap_path(), BASE);
    let decoded: BTreeSet<Vec<u8>> = urls.iter().map(|u| decoded_path(&u.loc)).collect();
    assert_eq!(urls.len(), 254);
    assert_eq!(decoded, names);
    // No control character and no non-ASCII byte reaches the XML raw.
    let raw: Vec<u8> = xml
        .iter()
        .copied()
        .filter(|b| (*b < 0x20 && *b != b'\n') || *b >= 0x7f)
        .collect();
    assert!(raw.is_empty(), "raw bytes in the XML: {raw:x?}");

    // The same names through a NUL-separated list give the same bytes.
    let list: Vec<u8> = names
        .iter()
        .flat_map(|n| [n.as_slice(), b"\0"].concat())
        .collect();
    site.command(&["--lastmod", "none", "--files-from", "-", "-0"])
        .stdin(list)
        .run()
        .success();
    assert_eq!(fs::read(site.sitemap_path()).unwrap(), xml);
}

#[test]
fn names_of_255_bytes_are_listed_and_decode_back() {
    let site = Site::with_pages(&["index.html"]);
    let mut names: Vec<Vec<u8>> = vec![
        [vec![b'x'; 250], b".html".to_vec()].concat(),
        [vec![0xff; 250], b".html".to_vec()].concat(),
        ["\u{e9}".repeat(125).into_bytes(), b".html".to_vec()].concat(),
        [vec![b'%'; 250], b".html".to_vec()].concat(),
    ];
    // A Windows name is Unicode.
    names.retain(|name| !windows_binary() || std::str::from_utf8(name).is_ok());
    for name in &names {
        assert_eq!(name.len(), 255);
        site.page(name);
    }
    site.run(&[]).success();
    let urls = validate::sitemap(&site.sitemap_path(), BASE);
    let decoded: BTreeSet<Vec<u8>> = urls[1..].iter().map(|u| decoded_path(&u.loc)).collect();
    assert_eq!(decoded, names.into_iter().collect());
}

/// Creates `depth` nested directories `a/a/…` with `p.html` at the bottom, through
/// directory descriptors: the path soon passes PATH_MAX (4,096), which path-based calls
/// refuse.
fn nest(root: &Path, depth: usize) {
    use rustix::fs::{Mode, OFlags, mkdirat, openat};
    let dir_flags = OFlags::RDONLY | OFlags::DIRECTORY | OFlags::CLOEXEC;
    let mut fd = openat(rustix::fs::CWD, root, dir_flags, Mode::empty()).unwrap();
    for _ in 0..depth {
        mkdirat(&fd, "a", Mode::from_raw_mode(0o755)).unwrap();
        fd = openat(&fd, "a", dir_flags, Mode::empty()).unwrap();
    }
    let flags = OFlags::WRONLY | OFlags::CREATE | OFlags::CLOEXEC;
    openat(&fd, "p.html", flags, Mode::from_raw_mode(0o644)).unwrap();
}

/// Removes a tree too deep for path-based removal (GNU rm walks it by descriptors).
fn remove_deep(path: &Path) {
    let status = Command::new("rm").arg("-rf").arg(path).status().unwrap();
    assert!(status.success());
}

#[test]
fn a_tree_1100_levels_deep_skips_its_overlong_url_with_a_warning() {
    // 1,100 levels of `a/`: a URL of 2,226 characters, a path still under PATH_MAX.
    let site = Site::with_pages(&["index.html"]);
    nest(&site.root, 1_100);
    let run = site.run(&[]);
    remove_deep(&site.path("a"));
    run.success()
        .stderr_has(&["warning: ", "p.html", "its URL has 2226 characters"]);
    let urls = validate::sitemap(&site.sitemap_path(), BASE);
    assert_eq!(locs(&urls), [BASE]);
}

#[test]
fn a_tree_10000_levels_deep_does_not_crash_the_run() {
    let site = Site::with_pages(&["index.html"]);
    site.run(&[]).success();
    let before = fs::read(site.sitemap_path()).unwrap();
    nest(&site.root, 10_000);
    let run = site.run(&[]);
    let files = leftovers(&site);
    remove_deep(&site.path("a"));
    // An exit, not a signal (stack overflow, abort).
    let code = run.code();
    assert!(code == 0 || code == 1, "exit {code}: {}", run.stderr());
    if code == 1 {
        run.stderr_has(&["error: ", "a/a/a/a", "File name too long"]);
        assert_eq!(fs::read(site.sitemap_path()).unwrap(), before);
    }
    assert!(files.is_empty(), "{files:?}");
}

#[test]
fn a_tree_10000_levels_deep_skips_its_overlong_url_with_a_warning() {
    let site = Site::with_pages(&["index.html"]);
    nest(&site.root, 10_000);
    let run = site.run(&[]);
    remove_deep(&site.path("a"));
    run.success().stderr_has(&[
        "warning: ",
        "the path is too long to read (and its URLs would be); not listed",
    ]);
    let urls = validate::sitemap(&site.sitemap_path(), BASE);
    assert_eq!(locs(&urls), [BASE]);
}

#[test]
fn urls_of_2046_and_2049_characters_either_side_of_the_limit() {
    // tests/cli/mapping.rs covers 2,047 and 2,048.
    let dir = (b'a'..b'i')
        .map(|c| (c as char).to_string().repeat(230))
        .collect::<Vec<_>>()
        .join("/");
    let site = Site::with_pages(&["index.html"]);
    let room = 2047 - BASE.len() - dir.len() - 1;
    site.page(format!("{dir}/{}.html", "k".repeat(room - 6)));
    site.page(format!("{dir}/{}.html", "l".repeat(room - 3)));
    site.run(&[])
        .success()
        .stderr_has(&["its URL has 2049 characters, the limit is 2047; not listed"]);
    let urls = validate::sitemap(&site.sitemap_path(), BASE);
    assert_eq!(urls.len(), 2);
    assert_eq!(urls[1].loc.len(), 2046);
}

fn formatted(seconds: i64) -> String {
    let format =
        time::macros::format_description!("[year]-[month]-[day]T[hour]:[minute]:[second]+00:00");
    time::OffsetDateTime::from_unix_timestamp(seconds)
        .unwrap()
        .format(&format)
        .unwrap()
}

/// Sets a page's mtime; returns what the filesystem kept (ext4 stops at 2446).
fn set_mtime(site: &Site, page: &str, seconds: i64) -> i64 {
    let path = site.path(page);
    set_file_mtime(&path, FileTime::from_unix_time(seconds, 0)).unwrap();
    FileTime::from_last_modification_time(&fs::symlink_metadata(&path).unwrap()).unix_seconds()
}

#[test]
fn mtimes_at_and_beyond_the_ends_of_the_range() {
    let site = Site::with_pages(&[
        "index.html",
        "m1-second-before-1970.html",
        "m2-epoch.html",
        "m3-1906.html",
        "m4-year-3000.html",
        "m5-end-of-9999.html",
        "m6-year-10000.html",
    ]);
    assert_eq!(set_mtime(&site, "m1-second-before-1970.html", -1), -1);
    assert_eq!(set_mtime(&site, "m2-epoch.html", 0), 0);
    let early = set_mtime(&site, "m3-1906.html", -2_000_000_000);
    let y3000 = set_mtime(&site, "m4-year-3000.html", 32_503_680_000);
    let end_9999 = set_mtime(&site, "m5-end-of-9999.html", 253_402_300_799);
    let y10000 = set_mtime(&site, "m6-year-10000.html", 253_402_300_800);
    if y3000 != 32_503_680_000 {
        eprintln!(
            "note: the filesystem keeps no mtime past {}: the later pages get that date",
            formatted(y3000)
        );
    }
    let run = site.run(&[]);
    run.success().stderr_has(&[
        "warning: m1-second-before-1970.html: mtime -1",
        &format!("warning: m3-1906.html: mtime {early}"),
    ]);
    let urls = validate::sitemap(&site.sitemap_path(), BASE);
    let dates: Vec<(&str, Option<&str>)> = urls[1..]
        .iter()
        .map(|u| (u.loc.strip_prefix(BASE).unwrap(), u.lastmod.as_deref()))
        .collect();
    let in_range = |s: i64| (0..=253_402_300_799).contains(&s).then(|| formatted(s));
    assert_eq!(
        dates,
        [
            ("m1-second-before-1970.html", None),
            ("m2-epoch.html", Some("1970-01-01T00:00:00+00:00")),
            ("m3-1906.html", None),
            ("m4-year-3000.html", in_range(y3000).as_deref()),
            ("m5-end-of-9999.html", in_range(end_9999).as_deref()),
            ("m6-year-10000.html", in_range(y10000).as_deref()),
        ]
    );
    if y10000 > 253_402_300_799 {
        run.stderr_has(&["warning: m6-year-10000.html: mtime "]);
    }
    let before = fs::read(site.sitemap_path()).unwrap();
    site.run(&["--strict"]).expect_code(1);
    assert_eq!(fs::read(site.sitemap_path()).unwrap(), before);
    assert_no_leftovers(&site);
}

#[test]
fn an_empty_site_writes_nothing_whatever_the_output() {
    let site = Site::empty();
    for args in [
        &[][..],
        &["--gzip"][..],
        &["--max-urls", "1"][..],
        &["--include", "*"][..],
    ] {
        site.run(args)
            .expect_code(1)
            .stderr_has(&["sitemapgen: error: no pages in "]);
        assert_eq!(site.all_files(), Vec::<PathBuf>::new(), "{args:?}");
    }
    // Only files that are never pages: still nothing.
    site.write("404.html", "x");
    site.write(".hidden.html", "x");
    site.write("style.css", "x");
    let files = site.all_files();
    site.run(&[])
        .expect_code(1)
        .stderr_has(&["error: no pages in "]);
    assert_eq!(site.all_files(), files);
}

#[test]
fn dir_that_is_not_a_directory_is_a_usage_error() {
    let site = Site::empty();
    let file = site.write("file.html", "x");
    symlink(&file, site.outside().join("link-to-file")).unwrap();
    symlink("nowhere", site.outside().join("dangling")).unwrap();
    let fifo = site.outside().join("fifo");
    let made = Command::new("mkfifo").arg(&fifo).status().unwrap();
    assert!(made.success());
    let mut slash = file.clone().into_os_string();
    slash.push("/");
    for dir in [
        site.outside().join("link-to-file"),
        site.outside().join("dangling"),
        fifo,
        PathBuf::from(slash),
    ] {
        Cmd::new()
            .args(["-b", BASE])
            .arg(&dir)
            .run()
            .expect_code(2)
            .stderr_has(&["error: DIR "]);
    }
    assert_no_leftovers(&site);
}

// ---------------------------------------------------------------------------------------
// 9. Damaged state files

/// A site of three pages with pinned mtimes and its state; returns the state's path and text.
fn site_with_state() -> (Site, PathBuf, String) {
    let site = Site::with_pages(&["index.html", "a.html", "b.html"]);
    for (i, page) in ["index.html", "a.html", "b.html"].iter().enumerate() {
        set_file_mtime(
            site.path(page),
            FileTime::from_unix_time(1_714_557_600 + i as i64 * 86_400, 0),
        )
        .unwrap();
    }
    let state = site.outside().join("sitemap.state");
    site.run(&["--state", state.to_str().unwrap()]).success();
    let text = fs::read_to_string(&state).unwrap();
    assert_eq!(text.lines().count(), 6, "{text}");
    (site, state, text)
}

#[test]
fn every_damaged_state_file_stops_the_run_naming_it() {
    let (site, state, good) = site_with_state();
    let sitemap = fs::read(site.sitemap_path()).unwrap();
    let lines: Vec<&str> = good.lines().collect();
    let record = lines[2];
    let fields: Vec<&str> = record.split(' ').collect();
    let with_record = |line: &str| {
        format!(
            "{}\n{}\n{line}\n{}\n{}\n",
            lines[0], lines[1], lines[3], lines[4]
        )
    };
    let digest_at = good.find(fields[2]).unwrap();
    let cases: Vec<(&str, Vec<u8>, &str)> = vec![
        (
            "cut in the middle of a digest",
            good[..digest_at + 20].into(),
            "line 3 is malformed",
        ),
        (
            "cut after the lastmod",
            good[..digest_at - 1].into(),
            "line 3 is malformed",
        ),
        (
            "two spaces between fields",
            with_record(&record.replacen(' ', "  ", 1)).into(),
            "line 3 is malformed",
        ),
        (
            "a trailing space",
            with_record(&format!("{record} ")).into(),
            "line 3 is malformed",
        ),
        (
            "a leading space",
            with_record(&format!(" {record}")).into(),
            "line 3 is malformed",
        ),
        (
            "tabs between fields",
            with_record(&record.replace(' ', "\t")).into(),
            "line 3 is malformed",
        ),
        (
            "a duplicate key",
            format!("{}\n{}\n{record}\n{record}\nend 2\n", lines[0], lines[1]).into(),
            "repeats the URL /",
        ),
        (
            "a negative size",
            with_record(&[fields[0], fields[1], fields[2], "-1:2:3:4"].join(" ")).into(),
            "line 3 is malformed",
        ),
        (
            "a size that is not a number",
            with_record(&[fields[0], fields[1], fields[2], "12k:2:3:4"].join(" ")).into(),
            "line 3 is malformed",
        ),
        (
            "an mtime that is not a number",
            with_record(&[fields[0], fields[1], fields[2], "1:1.5:3:4"].join(" ")).into(),
            "line 3 is malformed",
        ),
        (
            "a stamp of three fields",
            with_record(&[fields[0], fields[1], fields[2], "1:2:3"].join(" ")).into(),
            "line 3 is malformed",
        ),
        (
            "a record of version 1 in a state of version 2",
            with_record(&[fields[0], fields[1], fields[2], "1", "2"].join(" ")).into(),
            "line 3 is malformed",
        ),
        (
            "a digest one digit short",
            with_record(&[fields[0], fields[1], &fields[2][1..], fields[3]].join(" ")).into(),
            "line 3 is malformed",
        ),
        (
            "a key without its /",
            with_record(&record[1..]).into(),
            "line 3 is malformed",
        ),
        (
            "a blank line between records",
            format!(
                "{}\n{}\n{}\n\n{}\n{}\n",
                lines[0], lines[1], lines[2], lines[3], lines[4]
            )
            .into(),
            "line 4 is malformed",
        ),
        (
            "no digest line",
            format!("{}\n{}\n{}\n", lines[0], lines[2], lines[3]).into(),
            "line 2 is not a digest line",
        ),
        (
            "the header alone",
            format!("{}\n", lines[0]).into(),
            "it ends after line 1",
        ),
        (
            "a byte that is not UTF-8",
            [good.as_bytes(), b"/x\xff.html - 0 0 0\n"].concat(),
            "is not UTF-8",
        ),
        (
            "a line of 20,000 bytes",
            format!("{}\n{}\n/{}\n", lines[0], lines[1], "a".repeat(20_000)).into(),
            "a line is longer than 16 KiB",
        ),
        (
            "a NUL-filled file",
            vec![0; 4096],
            "line 1 is not a sitemapgen-state header",
        ),
        (
            "a byte-order mark",
            [b"\xef\xbb\xbf".as_slice(), good.as_bytes()].concat(),
            "line 1 is not a sitemapgen-state header",
        ),
    ];
    for (what, content, message) in cases {
        fs::write(&state, &content).unwrap();
        let files = site.all_files();
        site.run(&["--state", state.to_str().unwrap()])
            .expect_code(1)
            .stderr_has(&[
                "sitemapgen: error: state file ",
                "sitemap.state is not usable",
                message,
            ]);
        assert_eq!(fs::read(site.sitemap_path()).unwrap(), sitemap, "{what}");
        assert_eq!(fs::read(&state).unwrap(), content, "{what}");
        assert_eq!(site.all_files(), files, "{what}");
    }

    // A directory where the state should be: a bad --state, as a directory is a bad -o.
    fs::remove_file(&state).unwrap();
    fs::create_dir(&state).unwrap();
    let files = site.all_files();
    site.run(&["--state", state.to_str().unwrap()])
        .expect_code(2)
        .stderr_has(&["error: --state ", "sitemap.state is not a regular file"]);
    assert_eq!(fs::read(site.sitemap_path()).unwrap(), sitemap);
    assert_eq!(site.all_files(), files);
}

#[test]
fn an_unreadable_state_file_stops_the_run_naming_it() {
    let (site, state, good) = site_with_state();
    let sitemap = fs::read(site.sitemap_path()).unwrap();
    site.open_to_everyone();
    fs::set_permissions(&state, fs::Permissions::from_mode(0o000)).unwrap();
    let files = site.all_files();
    let run = Cmd::unprivileged()
        .args(["-b", BASE, "--state"])
        .arg(&state)
        .arg(&site.root)
        .run();
    fs::set_permissions(&state, fs::Permissions::from_mode(0o644)).unwrap();
    run.expect_code(1).stderr_has(&[
        "error: cannot read state file ",
        "sitemap.state",
        "Permission denied",
    ]);
    assert_eq!(fs::read(site.sitemap_path()).unwrap(), sitemap);
    assert_eq!(fs::read_to_string(&state).unwrap(), good);
    assert_eq!(site.all_files(), files);
}

#[test]
fn a_state_with_crlf_line_endings_is_read_as_written() {
    // Line ends are all a CRLF conversion (git's autocrlf) changes, and no field can hold a
    // CR: read as the same state, every date kept.
    let (site, state, good) = site_with_state();
    let sitemap = fs::read(site.sitemap_path()).unwrap();
    fs::write(&state, good.replace('\n', "\r\n")).unwrap();
    site.run(&["--state", state.to_str().unwrap()]).success();
    assert_eq!(fs::read(site.sitemap_path()).unwrap(), sitemap);
    assert_eq!(fs::read_to_string(&state).unwrap(), good);
}

#[test]
fn a_state_with_an_invalid_lastmod_stops_the_run() {
    let (site, state, good) = site_with_state();
    let sitemap = fs::read(site.sitemap_path()).unwrap();
    let lines: Vec<&str> = good.lines().collect();
    for bad in [
        "yesterday",
        "2024-13-45",
        "2024-05-01T10:00:00",
        "2024-05-0",
    ] {
        let mut fields: Vec<&str> = lines[2].split(' ').collect();
        fields[1] = bad;
        let content = format!(
            "{}\n{}\n{}\n{}\n{}\n",
            lines[0],
            lines[1],
            fields.join(" "),
            lines[3],
            lines[4]
        );
        fs::write(&state, &content).unwrap();
        site.run(&["--state", state.to_str().unwrap()])
            .expect_code(1)
            .stderr_has(&["error: state file ", "sitemap.state is not usable"]);
        assert_eq!(fs::read(site.sitemap_path()).unwrap(), sitemap, "{bad}");
        assert_eq!(fs::read_to_string(&state).unwrap(), content, "{bad}");
    }
}

#[test]
fn a_state_cut_at_a_line_boundary_stops_the_run() {
    let (site, state, good) = site_with_state();
    let sitemap = fs::read(site.sitemap_path()).unwrap();
    let cut: String = good.lines().take(4).map(|l| format!("{l}\n")).collect();
    fs::write(&state, &cut).unwrap();
    site.run(&["--state", state.to_str().unwrap()])
        .expect_code(1)
        .stderr_has(&["error: state file ", "sitemap.state is not usable"]);
    assert_eq!(fs::read(site.sitemap_path()).unwrap(), sitemap);
    assert_eq!(fs::read_to_string(&state).unwrap(), cut);
}
