//! Which files the walk makes pages: globs, hidden files, symlinks, messages.

use std::os::unix::fs::symlink;

use crate::harness::{BASE, Site};
use crate::validate;

pub(crate) fn listed(site: &Site) -> Vec<String> {
    validate::listed(&site.sitemap_path(), BASE)
}

#[test]
fn default_includes_and_excludes() {
    let site = Site::with_pages(&[
        "index.html",
        "a.htm",
        "404.html",
        "en/404.html",
        "google0123456789abcdef.html",
        "yandex_8a7b.html",
        "style.css",
        "doc.pdf",
    ]);
    site.run(&[])
        .success()
        .stderr_has(&["(left out: 4 by the default excludes; 2 files that are not pages)"]);
    assert_eq!(listed(&site), ["", "a.htm"]);

    site.run(&["--no-default-excludes"]).success();
    assert_eq!(
        listed(&site),
        [
            "",
            "404.html",
            "a.htm",
            "en/404.html",
            "google0123456789abcdef.html",
            "yandex_8a7b.html"
        ]
    );

    site.run(&["--include", "*.pdf", "--include", "/index.html"])
        .success();
    assert_eq!(listed(&site), ["", "doc.pdf"]);
}

#[test]
fn exclude_globs_follow_gitignore_anchoring_and_prune_directories() {
    let site = Site::with_pages(&[
        "index.html",
        "drafts/a.html",
        "blog/drafts/b.html",
        "blog/post.html",
        "old/x.html",
        "blog/old/y.html",
        "tmp.html",
        "blog/tmp.html",
    ]);
    site.run(&[
        "--exclude",
        "drafts/",
        "--exclude",
        "old/**",
        "--exclude",
        "/tmp.html",
        "-v",
    ])
    .success()
    .stderr_has(&[
        "skip blog/drafts: --exclude drafts/",
        "skip drafts: --exclude drafts/",
        "skip old: --exclude old/**",
        "skip tmp.html: --exclude /tmp.html",
    ]);
    assert_eq!(
        listed(&site),
        ["", "blog/old/y.html", "blog/post.html", "blog/tmp.html"]
    );
}

#[test]
fn hidden_files_and_directories_only_with_hidden() {
    let site = Site::with_pages(&[
        "index.html",
        ".secret.html",
        ".well-known/x.html",
        "a/.b/c.html",
    ]);
    site.run(&["-v"]).success().stderr_has(&[
        "skip .secret.html: hidden (use --hidden)",
        "skip .well-known: hidden (use --hidden)",
    ]);
    assert_eq!(listed(&site), [""]);
    site.run(&["--hidden"]).success();
    assert_eq!(
        listed(&site),
        ["", ".secret.html", ".well-known/x.html", "a/.b/c.html"]
    );
}

#[test]
fn symlinked_files_are_listed_and_symlinked_directories_only_with_follow() {
    let site = Site::with_pages(&["index.html", "v2/index.html", "v2/page.html"]);
    symlink("v2", site.path("latest")).unwrap();
    symlink("v2/page.html", site.path("alias.html")).unwrap();
    site.run(&["-v"]).success().stderr_has(&[
        "skip latest: a symlink to a directory (use -L to enter it)",
        "/sitemap.xml\n",
    ]);
    assert_eq!(listed(&site), ["", "alias.html", "v2/", "v2/page.html"]);
    site.run(&["-L"]).success();
    assert_eq!(
        listed(&site),
        [
            "",
            "alias.html",
            "latest/",
            "latest/page.html",
            "v2/",
            "v2/page.html"
        ]
    );
}

#[test]
fn a_symlink_loop_under_follow_is_a_warning_not_a_hang() {
    let site = Site::with_pages(&["index.html", "a/page.html"]);
    symlink("..", site.path("a/up")).unwrap();
    site.run(&["-L"])
        .success()
        .stderr_has(&["warning: symlink loop:", "a/up leads back to"]);
    assert_eq!(listed(&site), ["", "a/page.html"]);
    site.run(&["-L", "--strict"]).expect_code(1);
}

#[test]
fn a_dangling_symlink_page_is_a_warning() {
    let site = Site::with_pages(&["index.html"]);
    symlink("nowhere.html", site.path("gone.html")).unwrap();
    symlink("nowhere.css", site.path("gone.css")).unwrap();
    for follow in [&[][..], &["-L"][..]] {
        site.run(follow)
            .success()
            .stderr_has(&["gone.html is a dangling symlink; not listed"]);
        assert_eq!(listed(&site), [""]);
    }
    site.run(&["--strict"]).expect_code(1);
}

#[test]
fn summary_quiet_and_verbose() {
    let site = Site::with_pages(&["index.html", "a.html", "style.css"]);
    let run = site.run(&[]);
    run.success();
    let summary = format!(
        "wrote 2 URLs to {} (1 file that is not a page)\n",
        site.shown("sitemap.xml")
    );
    assert_eq!(run.stderr(), summary);
    assert_eq!(site.run(&["-q"]).success().stderr(), "");
    let one = Site::empty();
    one.write("style.css", "");
    one.run(&[])
        .expect_code(1)
        .stderr_has(&["(1 file left out)"]);
    site.run(&["-v"])
        .success()
        .stderr_has(&["sitemapgen: skip style.css: matches no --include glob"]);
}

#[test]
fn dir_may_be_given_in_any_spelling() {
    let site = Site::with_pages(&["index.html", "a/b.html", "a/.c.html"]);
    site.run(&["-o", "-", "--lastmod", "none"]).success();
    let expected = site.run(&["-o", "-", "--lastmod", "none"]).0.stdout;
    for dir in ["site", "site/", "./site", "site/../site", "site//"] {
        let run = crate::harness::Cmd::new()
            .current_dir(site.outside())
            .args(["-b", BASE, "-o", "-", "--lastmod", "none", dir])
            .run();
        run.success();
        assert_eq!(run.stdout(), expected.as_slice(), "DIR {dir}");
    }
    let run = crate::harness::Cmd::new()
        .current_dir(&site.root)
        .args(["-b", BASE, "-o", "-", "--lastmod", "none", "."])
        .run();
    assert_eq!(run.stdout(), expected.as_slice(), "DIR .");
}

/// The order of the walk, stated independently: depth first, a directory's names with
/// index.html first, then byte-wise.
fn walk_order(rels: &mut [String]) {
    let key = |rel: &String| -> Vec<(u8, Vec<u8>)> {
        rel.split('/')
            .map(|name| (u8::from(name != "index.html"), name.as_bytes().to_vec()))
            .collect()
    };
    rels.sort_by_key(key);
}

/// The URLs of `pages` (paths in DIR) in the walk's order.
fn locs_in_walk_order(pages: &mut [String]) -> Vec<String> {
    walk_order(pages);
    pages
        .iter()
        .map(|page| format!("{BASE}{}", page.strip_suffix("index.html").unwrap_or(page)))
        .collect()
}

/// A -v walk without heads or dates on `jobs` threads: the sitemap and the messages.
fn walked(site: &Site, jobs: &str, extra: &[&str]) -> (Vec<u8>, String) {
    let mut args = vec![
        "-v",
        "--no-html",
        "--lastmod",
        "none",
        "-o",
        "-",
        "-j",
        jobs,
    ];
    args.extend(extra);
    let run = site.run(&args);
    let run = run.success();
    (run.stdout().to_vec(), run.stderr())
}

/// The locs of a sitemap, in order.
fn locs_of(xml: &[u8]) -> Vec<String> {
    validate::parse_urls(xml)
        .into_iter()
        .map(|url| url.loc)
        .collect()
}

#[test]
fn a_wide_and_deep_tree_is_walked_in_the_same_order_on_any_number_of_threads() {
    // More entries than the walk reads ahead of the caller (4,096), in directories of
    // every depth, with names whose order is easy to get wrong.
    let site = Site::empty();
    let names = [
        "B.html",
        "_.html",
        "a-b.html",
        "a.html",
        "a0.html",
        "style.css",
    ];
    let mut pages = Vec::new();
    for top in ["B", "_", "a", "a-b", "a0", "z"] {
        for wide in 0..4 {
            let mut dir = format!("{top}/w{wide}");
            for depth in 0..=(wide * 2) {
                for name in names
                    .iter()
                    .chain([&"index.html"].into_iter().filter(|_| depth % 2 == 0))
                {
                    site.write(format!("{dir}/{name}"), "");
                    if name.ends_with(".html") {
                        pages.push(format!("{dir}/{name}"));
                    }
                }
                std::fs::create_dir_all(site.path(format!("{dir}/empty"))).unwrap();
                dir.push_str(if depth % 2 == 0 { "/a" } else { "/a.b" });
            }
            for i in 0..700 {
                let page = format!("{dir}/p{i}.html");
                site.write(&page, "");
                pages.push(page);
            }
        }
    }
    for name in names {
        site.write(name, "");
        if name.ends_with(".html") {
            pages.push(name.to_string());
        }
    }
    assert!(pages.len() > 16_384);
    symlink("a", site.path("z/w0/into-a")).unwrap();
    symlink("../..", site.path("a/w1/a/up")).unwrap();
    symlink("nowhere.html", site.path("a-b/w2/gone.html")).unwrap();

    let expected = locs_in_walk_order(&mut pages);
    for follow in [&[][..], &["-L"][..]] {
        let run = |jobs: &str| walked(&site, jobs, follow);
        let one = run("1");
        assert!(
            one.1
                .contains("gone.html is a dangling symlink; not listed")
        );
        if follow.is_empty() {
            assert!(
                locs_of(&one.0) == expected,
                "the walk's order is not depth first, index.html, bytes"
            );
            assert!(one.1.contains("skip z/w0/into-a: a symlink to a directory"));
        } else {
            assert!(one.1.contains("a/w1/a/up leads back to"));
            assert!(one.0.len() > 2 * pages.len());
        }
        for jobs in ["2", "3", "16"] {
            assert!(run(jobs) == one, "{follow:?}: -j1 and -j{jobs} differ");
        }
    }
}

#[test]
fn a_large_directory_is_read_in_parts_and_listed_in_its_order() {
    // A directory of over 3,000 entries is split into parts (of 32) that any thread
    // reads. Among its pages sit a subdirectory with a large directory of its own, a
    // symlink to a directory and a file the rules leave out: the sitemap and every message
    // must be a one-thread walk's.
    let site = Site::empty();
    let mut pages = vec!["flat/index.html".to_string()];
    for i in 0..3_000 {
        pages.push(format!("flat/p{i:04}.html"));
    }
    for i in 0..1_500 {
        pages.push(format!("flat/p1500/q{i:04}.html"));
    }
    for page in &pages {
        site.write(page, "");
    }
    site.write("flat/p0999.css", "");
    symlink("p1500", site.path("flat/p2000")).unwrap();
    let expected = locs_in_walk_order(&mut pages);
    let run = |jobs: &str| walked(&site, jobs, &[]);
    let one = run("1");
    assert!(locs_of(&one.0) == expected, "the walk's order");
    assert!(
        one.1.contains("skip flat/p2000: a symlink to a directory"),
        "{}",
        one.1
    );
    for jobs in ["2", "3", "16"] {
        assert!(run(jobs) == one, "-j1 and -j{jobs} differ");
    }
}

#[test]
fn heads_read_on_the_walk_threads_come_back_in_order_on_any_number_of_threads() {
    // Every page's head decides it: noindex pages are left out, redirect stubs too, others
    // declare their canonical URL in another form (listed so) or name an alternate. Pages
    // are read by the thread that walked their directory or its part (a directory of
    // 2,000, others of 150), or, from a list, in batches on -j threads: the sitemap, the
    // state and every line printed must be one thread's, in the walk's order.
    let site = Site::empty();
    let mut rels = Vec::new();
    for dir in ["big", "d0/a", "d0/b", "d1", "d2/x/y"] {
        let count = if dir == "big" { 2_000 } else { 150 };
        for i in 0..count {
            rels.push(format!("{dir}/p{i}.html"));
        }
    }
    let mut listed = std::collections::HashMap::new();
    for (i, rel) in rels.iter().enumerate() {
        let stem = rel.strip_suffix(".html").unwrap();
        let head = match i % 5 {
            0 => "<meta name=robots content=noindex>".to_string(),
            1 => "<meta http-equiv=refresh content='0; url=/elsewhere'>".to_string(),
            2 => format!("<link rel=canonical href=/{stem}>"),
            3 => format!("<link rel=alternate hreflang=de href=/{rel}>"),
            _ => String::new(),
        };
        site.write(rel, format!("<!doctype html><head>{head}</head><p>{i}</p>"));
        let loc = match i % 5 {
            0 | 1 => None,
            2 => Some(format!("{BASE}{stem}")),
            _ => Some(format!("{BASE}{rel}")),
        };
        listed.insert(rel.clone(), loc);
    }
    // The list in the order the pages were made (p0, p1, p2, …), not the walk's.
    let list: Vec<u8> = rels
        .iter()
        .flat_map(|rel| format!("{rel}\n").into_bytes())
        .collect();
    walk_order(&mut rels);
    let in_walk_order: Vec<String> = rels.iter().filter_map(|rel| listed[rel].clone()).collect();
    // The state records a file's stamp once it is 2 s old (it might be written again
    // within the same clock tick before): past that, every run records the same.
    std::thread::sleep(std::time::Duration::from_millis(2_100));
    let (state, output) = (site.outside().join("state"), site.outside().join("s.xml"));
    let run = |jobs: &str, from_list: bool| {
        let _ = std::fs::remove_file(&state);
        let mut args = vec!["-v", "-j", jobs];
        args.extend(["-o", output.to_str().unwrap()]);
        args.extend(["--state", state.to_str().unwrap()]);
        if from_list {
            args.extend(["--files-from", "-"]);
        }
        let run = site.command(&args).stdin(list.clone()).run();
        let stderr = run.success().stderr();
        validate::sitemap(&output, BASE);
        (
            std::fs::read(&output).unwrap(),
            stderr,
            std::fs::read(&state).unwrap(),
        )
    };
    let walked = run("1", false);
    assert!(locs_of(&walked.0) == in_walk_order, "the walk's order");
    assert!(
        walked.1.contains("big/p0.html: marked noindex"),
        "{}",
        walked.1
    );
    for jobs in ["2", "3", "16"] {
        assert!(run(jobs, false) == walked, "-j1 and -j{jobs} differ");
    }
    // A list is put in the walk's order.
    let from_list = run("1", true);
    let first_diff = |a: &[u8], b: &[u8]| {
        let (a, b) = (String::from_utf8_lossy(a), String::from_utf8_lossy(b));
        a.lines()
            .zip(b.lines())
            .find(|(x, y)| x != y)
            .map(|(x, y)| format!("{x}\n{y}"))
    };
    assert!(
        from_list.0 == walked.0,
        "{:?}",
        first_diff(&from_list.0, &walked.0)
    );
    assert!(
        from_list.2 == walked.2,
        "{:?}",
        first_diff(&from_list.2, &walked.2)
    );
    for jobs in ["2", "16"] {
        assert!(
            run(jobs, true) == from_list,
            "--files-from: -j1 and -j{jobs} differ"
        );
    }
}

#[test]
fn include_also_adds_to_the_default_pages_or_the_includes() {
    let site = crate::harness::Site::with_pages(&["index.html", "a.htm", "paper.pdf", "b.txt"]);
    site.run(&["--include-also", "*.pdf"]).success();
    assert_eq!(
        crate::validate::listed(&site.sitemap_path(), crate::harness::BASE),
        ["", "a.htm", "paper.pdf"]
    );
    site.run(&["--include", "*.txt", "--include-also", "*.pdf"])
        .success();
    assert_eq!(
        crate::validate::listed(&site.sitemap_path(), crate::harness::BASE),
        ["b.txt", "paper.pdf"]
    );
    site.run(&["--include-also", "docs/"])
        .expect_code(2)
        .stderr_has(&["--include-also \"docs/\" names a directory"]);
}

#[test]
fn the_exit_status_is_the_runs_own_however_its_walk_threads_end() {
    // The walk's threads end just before a run that found no page exits with 1. Under Wine a
    // thread still ending when the process exits once made one run in four exit with 0.
    let site = Site::empty();
    site.write("style.css", "");
    for _ in 0..20 {
        site.run(&["-j", "8"])
            .expect_code(1)
            .stderr_has(&["no pages in"]);
    }
}
