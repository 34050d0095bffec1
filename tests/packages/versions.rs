//! `--sub-builds` on versioned documentation as the real tools deploy it: three versions of
//! a MkDocs site deployed by mike into a local repository's `gh-pages` branch (an alias a
//! symlink, another a copy), and a sphinx-multiversion-style tree of two Sphinx builds.
//! The root index must list each version once, dated by its newest page, and no page twice.

use std::collections::BTreeSet;
use std::fs;
use std::path::Path;
use std::process::Command;

use crate::built::{run, tool};
use crate::harness::Site;
use crate::validate::{self, UrlRecord};

const BASE: &str = "https://example.com/";

/// Runs the cargo build's sitemapgen on `dir`, which must succeed.
fn sitemapgen(dir: &Path, args: &[&str]) {
    run(Command::new(env!("CARGO_BIN_EXE_sitemapgen"))
        .arg(dir)
        .args(["-b", BASE, "--no-config"])
        .args(args));
}

/// The root index's entries, and every URL the sitemaps it lists give, each checked.
fn listed(root: &Path) -> (Vec<UrlRecord>, Vec<String>) {
    let entries = validate::index(&root.join("sitemap.xml"), BASE);
    let mut urls = Vec::new();
    for entry in &entries {
        let rel = entry.loc.strip_prefix(BASE).unwrap();
        let urlset = validate::sitemap(&root.join(rel), BASE);
        let newest = urlset.iter().filter_map(|u| u.lastmod.clone()).max();
        assert_eq!(entry.lastmod, newest, "{rel} is dated by its newest page");
        urls.extend(urlset.into_iter().map(|u| u.loc));
    }
    let distinct: BTreeSet<&String> = urls.iter().collect();
    assert_eq!(distinct.len(), urls.len(), "a page listed twice: {urls:#?}");
    (entries, urls)
}

fn locs(entries: &[UrlRecord]) -> Vec<String> {
    entries.iter().map(|e| e.loc.replace(BASE, "/")).collect()
}

/// The entries whose date differs between two runs.
fn redated(before: &[UrlRecord], after: &[UrlRecord]) -> Vec<String> {
    assert_eq!(locs(before), locs(after));
    let changed = before
        .iter()
        .zip(after)
        .filter(|(b, a)| b.lastmod != a.lastmod);
    changed.map(|(_, a)| a.loc.replace(BASE, "/")).collect()
}

/// SOURCE_DATE_EPOCH of a day: MkDocs dates every page of its sitemap with the build's day.
fn epoch(day: &str) -> String {
    let format = time::macros::format_description!("[year]-[month]-[day]");
    let date = time::Date::parse(day, format).unwrap();
    date.midnight().assume_utc().unix_timestamp().to_string()
}

fn git(repo: &Path, args: &[&str]) {
    run(Command::new("git").arg("-C").arg(repo).args(args));
}

#[test]
fn mike_versions_deployed_to_gh_pages_get_one_root_index() {
    let (Some(mike), Some(_)) = (tool("mike"), tool("git")) else {
        return;
    };
    let work = tempfile::tempdir().unwrap();
    let repo = work.path().join("repo");
    fs::create_dir_all(repo.join("docs")).unwrap();
    fs::write(
        repo.join("mkdocs.yml"),
        "site_name: Versions\nsite_url: https://example.com/\nplugins:\n  - search\n  - mike\n",
    )
    .unwrap();
    fs::write(repo.join("docs/index.md"), "# Home\n\nWelcome.\n").unwrap();
    fs::write(repo.join("docs/guide.md"), "# Guide\n\nHow to.\n").unwrap();
    git(&repo, &["init", "-q", "-b", "main"]);
    git(&repo, &["config", "user.email", "docs@example.com"]);
    git(&repo, &["config", "user.name", "Docs"]);
    git(&repo, &["add", "-A"]);
    git(&repo, &["commit", "-q", "-m", "docs"]);
    let deploy = |args: &[&str], day: &str| {
        run(Command::new(&mike)
            .args(["-q", "deploy"])
            .args(args)
            .current_dir(&repo)
            .env("SOURCE_DATE_EPOCH", epoch(day))
            .env("NO_MKDOCS_2_WARNING", "1"));
    };
    deploy(&["1.0"], "2024-01-10");
    deploy(&["--alias-type", "copy", "2.0", "stable"], "2024-06-10");
    deploy(&["3.0", "latest"], "2025-01-10");
    run(Command::new(&mike)
        .args(["-q", "set-default", "latest"])
        .current_dir(&repo));
    let pages = work.path().join("pages");
    run(Command::new("git")
        .arg("-C")
        .arg(&repo)
        .args(["worktree", "add", "-q", "--detach"])
        .arg(&pages)
        .arg("gh-pages"));
    assert!(pages.join("latest").is_symlink(), "mike's default alias");
    assert!(pages.join("stable/sitemap.xml").is_file(), "a copy alias");
    // A page of the site's own beside the versions (mike's index.html only redirects).
    fs::create_dir(pages.join("about")).unwrap();
    fs::write(
        pages.join("about/index.html"),
        "<!doctype html><html><head><title>About</title></head><body>About</body></html>",
    )
    .unwrap();

    sitemapgen(&pages, &["--sub-builds"]);
    let (before, urls) = listed(&pages);
    assert_eq!(
        locs(&before),
        [
            "/sitemap-pages.xml",
            "/1.0/sitemap.xml",
            "/2.0/sitemap.xml",
            "/3.0/sitemap.xml"
        ]
    );
    let dates: Vec<_> = before.iter().map(|e| e.lastmod.clone().unwrap()).collect();
    assert_eq!(dates[1..], ["2024-01-10", "2024-06-10", "2025-01-10"]);
    assert!(urls.contains(&format!("{BASE}about/")));
    assert!(
        !urls
            .iter()
            .any(|u| u.contains("/latest/") || u.contains("/stable/"))
    );

    // One page of 2.0 changed and rebuilt: only 2.0's entry is re-dated.
    fs::write(repo.join("docs/guide.md"), "# Guide\n\nHow to, better.\n").unwrap();
    deploy(&["--alias-type", "copy", "2.0", "stable"], "2025-03-02");
    git(&pages, &["checkout", "-q", "--detach", "gh-pages"]);
    sitemapgen(&pages, &["--sub-builds"]);
    let (after, _) = listed(&pages);
    assert_eq!(redated(&before, &after), ["/2.0/sitemap.xml"]);
    assert_eq!(after[2].lastmod.as_deref(), Some("2025-03-02"));
}

#[test]
fn sphinx_builds_side_by_side_get_one_root_index() {
    let Some(sphinx) = tool("sphinx-build") else {
        return;
    };
    let work = tempfile::tempdir().unwrap();
    let site = Site::empty();
    let html = &site.root;
    // As sphinx-multiversion builds each tag: html/<version>/, each with its own
    // html_baseurl; sitemapgen writes each build's sitemap, dated by its pages.
    for (version, day) in [("v1.0", "2024-05-01"), ("v2.0", "2025-02-01")] {
        let src = work.path().join(version);
        fs::create_dir_all(&src).unwrap();
        fs::write(
            src.join("conf.py"),
            format!("project = 'Docs'\nhtml_baseurl = '{BASE}{version}/'\n"),
        )
        .unwrap();
        fs::write(
            src.join("index.rst"),
            "Docs\n====\n\n.. toctree::\n\n   guide\n",
        )
        .unwrap();
        fs::write(src.join("guide.rst"), "Guide\n=====\n\nHow to.\n").unwrap();
        let out = html.join(version);
        run(Command::new(&sphinx)
            .args(["-q", "-b", "html"])
            .arg(&src)
            .arg(&out));
        run(Command::new(env!("CARGO_BIN_EXE_sitemapgen"))
            .arg(&out)
            .args(["-b", &format!("{BASE}{version}/"), "--no-config"])
            .args(["--lastmod", day]));
    }
    site.write(
        "index.html",
        "<!doctype html><html><head><title>Versions</title></head><body>\
         <a href=\"v2.0/\">2.0</a> <a href=\"v1.0/\">1.0</a></body></html>",
    );
    sitemapgen(html, &["--sub-builds"]);
    let (entries, urls) = listed(html);
    assert_eq!(
        locs(&entries),
        [
            "/sitemap-pages.xml",
            "/v1.0/sitemap.xml",
            "/v2.0/sitemap.xml"
        ]
    );
    assert_eq!(entries[1].lastmod.as_deref(), Some("2024-05-01"));
    assert_eq!(entries[2].lastmod.as_deref(), Some("2025-02-01"));
    // Sphinx's search and genindex pages are each build's own, listed by its sitemap.
    assert_eq!(
        urls.iter().filter(|u| u.ends_with("/guide.html")).count(),
        2
    );
    assert_eq!(urls.iter().filter(|u| *u == BASE).count(), 1);
}
