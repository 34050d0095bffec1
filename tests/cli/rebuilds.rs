//! Truthful lastmod on real rebuilds (`fixtures/rebuilds/`, see its README): real sites,
//! each built from scratch five times (base; the same source again; one page's text edited;
//! one page added; only site-wide changes: site name, footer, theme colour, a new nav link,
//! an asset's fingerprint). Every file of a rebuild gets a new mtime, as in CI. Under
//! `--state`, exactly the pages whose main content changed get a new lastmod.

use std::collections::BTreeMap;
use std::fs;
use std::path::Path;

use filetime::{FileTime, set_file_mtime};

use crate::harness::{Site, fixture_dir};
use crate::validate;

const VARIANTS: [&str; 4] = ["rebuild", "edit", "add", "sitewide"];

/// Copies `from` over `to`, file by file.
pub fn overlay(from: &Path, to: &Path) {
    let Ok(entries) = fs::read_dir(from) else {
        return; // A variant with no file that differs has no directory in a checkout.
    };
    for entry in entries {
        let entry = entry.unwrap();
        let target = to.join(entry.file_name());
        if entry.file_type().unwrap().is_dir() {
            fs::create_dir_all(&target).unwrap();
            overlay(&entry.path(), &target);
        } else {
            fs::copy(entry.path(), &target).unwrap();
        }
    }
}

/// Gives every file below `dir` the mtime `seconds`.
pub fn touch_all(dir: &Path, seconds: i64) {
    for entry in fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            touch_all(&path, seconds);
        } else {
            set_file_mtime(&path, FileTime::from_unix_time(seconds, 0)).unwrap();
        }
    }
}

/// For each variant, the URL paths (under `base`) that a `--state` run re-dates after the
/// base build, with `args` added to both runs.
fn redated(generator: &str, base: &str, args: &[&str]) -> BTreeMap<&'static str, Vec<String>> {
    let fixture = fixture_dir("rebuilds").join(generator);
    let mut found = BTreeMap::new();
    for variant in VARIANTS {
        let site = Site::empty();
        overlay(&fixture.join("base"), &site.root);
        touch_all(&site.root, 1_700_000_000);
        let state = site.outside().join("sitemap.state");
        let first = site.outside().join("first.xml");
        site.command(&["-b", base, "--lastmod", "2024-01-01", "--state"])
            .arg(&state)
            .arg("-o")
            .arg(&first)
            .args(args)
            .run()
            .success();
        overlay(&fixture.join(variant), &site.root);
        touch_all(&site.root, 1_800_000_000);
        let second = site.outside().join("second.xml");
        let run = site
            .command(&["-b", base, "--lastmod", "2025-01-01", "--state"])
            .arg(&state)
            .arg("-o")
            .arg(&second)
            .args(args)
            .run();
        run.success();
        assert_eq!(
            run.stderr().lines().count(),
            1,
            "{generator} {variant}: {}",
            run.stderr()
        );
        let urls = validate::sitemap(&second, base);
        let paths = urls
            .iter()
            .filter(|url| url.lastmod.as_deref() == Some("2025-01-01"))
            .map(|url| url.loc.strip_prefix(base).unwrap().to_string())
            .collect();
        found.insert(variant, paths);
    }
    found
}

#[track_caller]
fn assert_redated(generator: &str, base: &str, edit: &[&str], add: &[&str]) {
    let found = redated(generator, base, &[]);
    let expected: BTreeMap<&str, Vec<String>> = [
        ("rebuild", vec![]),
        ("edit", edit.iter().map(|p| p.to_string()).collect()),
        ("add", add.iter().map(|p| p.to_string()).collect()),
        ("sitewide", vec![]),
    ]
    .into_iter()
    .collect();
    assert_eq!(found, expected, "{generator}: the pages re-dated");
}

#[test]
fn mkdocs_material_re_dates_only_what_changed() {
    // Material puts its whole navigation inside <main>: adding a page changes every page's
    // bytes (12 of 12), and no page's content.
    assert_redated(
        "mkdocs-material",
        "https://python-markdown.example.org/",
        &["extensions/nl2br/"],
        &["test_tools/"],
    );
}

#[test]
fn sphinx_re_dates_only_what_changed() {
    // The general index lists the new page's objects: it changed for a reader too.
    assert_redated(
        "sphinx",
        "https://packaging.example.org/",
        &["security.html"],
        &["dependency_groups.html", "genindex.html"],
    );
}

#[test]
fn hugo_re_dates_a_post_and_the_lists_that_show_it() {
    assert_redated(
        "hugo",
        "https://gohugo.io/",
        &["categories/releases/", "news/", "news/0.89.0-relnotes/"],
        &["news/", "news/no-more-releasenotes-here/"],
    );
}

#[test]
fn jekyll_re_dates_a_post_and_the_home_page_that_shows_its_excerpt() {
    assert_redated(
        "jekyll",
        "https://minima.example.org/",
        &["", "2016/05/20/welcome-to-jekyll.html"],
        &[
            "",
            "junk/2016/05/20/this-post-demonstrates-post-content-styles.html",
        ],
    );
}

#[test]
fn docusaurus_re_dates_a_post_and_the_lists_that_show_it() {
    // Every page's bytes change on each kind of rebuild here (a webpack runtime's name).
    assert_redated(
        "docusaurus",
        "https://your-docusaurus-site.example.com/",
        &[
            "blog",
            "blog/authors/all-sebastien-lorber-articles",
            "blog/authors/yangshun",
            "blog/tags/docusaurus",
            "blog/tags/facebook",
            "blog/tags/hello",
            "blog/welcome",
        ],
        &[
            "blog",
            "blog/archive",
            "blog/greetings",
            "blog/tags",
            "blog/tags/greetings",
        ],
    );
}

#[test]
fn pelican_re_dates_the_lists_that_feature_an_edited_article() {
    // The notmyidea theme has no <main>: its content is <section id="content">, and each
    // list page shows its newest article in full in <aside id="featured"> (a list of one
    // article has only that); the blogroll and the social links sit in
    // <section id="extras">, beside the content.
    let found = redated("pelican", "http://blog.notmyidea.org/", &[]);
    assert_eq!(found["rebuild"], [] as [&str; 0]);
    assert_eq!(
        found["edit"],
        [
            "",
            "author/alexis-metaireau.html",
            "category/misc.html",
            "second-article.html",
            "tag/bar.html",
            "tag/foo.html",
        ]
    );
    // A new article moves every later one down a page of the lists it is in.
    assert_eq!(
        found["add"],
        [
            "",
            "archives.html",
            "author/alexis-metaireau.html",
            "author/alexis-metaireau2.html",
            "author/alexis-metaireau3.html",
            "authors.html",
            "categories.html",
            "category/misc.html",
            "category/misc2.html",
            "index2.html",
            "index3.html",
            "tag/yeah.html",
            "tags.html",
            "third-article.html",
        ]
    );
    // The one page with its text loose in the body (a template page, "Some text") counts
    // the body less its chrome, the blogroll with it.
    assert_eq!(found["sitewide"], ["jinja2_template.html"]);
}

#[test]
fn starlight_re_dates_a_page_and_its_locale_fallback() {
    // A page with no French translation is built at /fr/ too, showing the English text.
    assert_redated(
        "starlight",
        "https://starlight-template.example.org/",
        &["fr/guides/example/", "guides/example/"],
        &["fr/reference/configuration/", "reference/configuration/"],
    );
}

#[test]
fn vitepress_re_dates_the_page_that_shows_the_site_config() {
    // The template's "Runtime API Examples" page prints the theme config in its content:
    // a new sidebar entry, nav link or footer is a change of that page's text.
    let found = redated(
        "vitepress",
        "https://vitepress-template.example.org/",
        &["--clean-urls"],
    );
    assert_eq!(found["rebuild"], [] as [&str; 0]);
    assert_eq!(found["edit"], ["markdown-examples"]);
    assert_eq!(found["add"], ["about", "api-examples"]);
    assert_eq!(found["sitewide"], ["api-examples"]);
}

#[test]
fn a_digest_of_the_bytes_re_dates_what_the_build_touched() {
    // What the content digest is for: with every byte counted, adding a page re-dates all
    // of MkDocs Material's pages, and a new site name all of them but the 404 page's peers.
    let found = redated(
        "mkdocs-material",
        "https://python-markdown.example.org/",
        &["--digest", "bytes"],
    );
    assert_eq!(found["edit"], ["extensions/nl2br/"]);
    assert_eq!(found["add"].len(), 12, "{:?}", found["add"]);
    assert_eq!(found["sitewide"].len(), 11, "{:?}", found["sitewide"]);
}

#[test]
fn a_state_of_other_digest_rules_keeps_every_date() {
    // A state written with the digest of bytes, then a run with the content digest after a
    // site-wide change: every date kept, and the digests made anew.
    let fixture = fixture_dir("rebuilds").join("mkdocs-material");
    let site = Site::empty();
    overlay(&fixture.join("base"), &site.root);
    let base = "https://python-markdown.example.org/";
    let state = site.outside().join("sitemap.state");
    let state_arg = state.to_str().unwrap();
    site.run(&[
        "-b",
        base,
        "--lastmod",
        "2024-01-01",
        "--digest",
        "bytes",
        "--state",
        state_arg,
    ])
    .success();
    overlay(&fixture.join("sitewide"), &site.root);
    site.run(&["-b", base, "--lastmod", "2025-01-01", "--state", state_arg])
        .success()
        .stderr_has(&[
            "warning: the digest rules (--digest, --digest-region, --digest-ignore) differ",
            "every recorded date is kept",
            "0 re-dated, 11 kept",
        ]);
    assert!(
        fs::read_to_string(&state)
            .unwrap()
            .contains("\ndigest content-2 ignore=- region=-\n")
    );
    let urls = validate::sitemap(&site.sitemap_path(), base);
    assert!(
        urls.iter()
            .all(|u| u.lastmod.as_deref() == Some("2024-01-01"))
    );
}

#[test]
fn a_named_region_is_the_digest() {
    // MkDocs Material's article holds the page's text; with it named, the same dates.
    let found = redated(
        "mkdocs-material",
        "https://python-markdown.example.org/",
        &["--digest-region", "article.md-content__inner"],
    );
    assert_eq!(found["edit"], ["extensions/nl2br/"]);
    assert_eq!(found["add"], ["test_tools/"]);
    assert!(found["sitewide"].is_empty());
}

#[test]
fn a_named_aside_is_content() {
    // Naming Pelican's featured aside with its content column: the same dates as the
    // guess, and the template page without either counts its body.
    let named = redated(
        "pelican",
        "http://blog.notmyidea.org/",
        &["--digest-region", "aside#featured,section#content"],
    );
    assert_eq!(named, redated("pelican", "http://blog.notmyidea.org/", &[]));
    assert_eq!(named["sitewide"], ["jinja2_template.html"]);
}

#[test]
fn a_page_re_dated_on_every_run_is_named() {
    // Hugo's docs shuffle showcase tiles inside <main> on every build: no digest can tell
    // that from an edit, so the page is re-dated each time, and after three runs in a row
    // a warning says so.
    let site = Site::empty();
    let state = site.outside().join("sitemap.state");
    let state = state.to_str().unwrap();
    let base = "https://example.org/";
    fs::write(
        site.path("about.html"),
        "<title>a</title><main>About</main>",
    )
    .unwrap();
    let run = |tiles: &str, verbose: bool| {
        let page = format!("<title>x</title><main><p>Showcase</p>{tiles}</main>");
        fs::write(site.path("index.html"), page).unwrap();
        let args = [
            "-b",
            base,
            "--lastmod",
            "2024-01-01",
            "--state",
            state,
            "-v",
        ];
        site.run(&args[..args.len() - usize::from(!verbose)])
            .success()
            .stderr()
    };
    let (ab, ba) = (
        "<a href=/a>A</a><a href=/b>B</a>",
        "<a href=/b>B</a><a href=/a>A</a>",
    );
    // A first run, then two re-dated in a row.
    for tiles in [ab, ba, ab] {
        let stderr = run(tiles, false);
        assert!(!stderr.contains("warning"), "{stderr}");
    }
    let stderr = run(ba, true);
    assert!(
        stderr.contains(
            "warning: 1 page re-dated on each of the last 3 runs or more: their content may \
             change on every build"
        ) && stderr.contains("-v lists them")
            && stderr.contains("re-dated on 3 runs in a row or more: https://example.org/\n"),
        "{stderr}"
    );
    assert!(!stderr.contains("about.html"), "{stderr}");
    // A run that keeps its date ends the streak.
    let stderr = run(ba, false);
    assert!(!stderr.contains("warning"), "{stderr}");
    let state = fs::read_to_string(site.outside().join("sitemap.state")).unwrap();
    // A record: key, lastmod, digest, stamp, streak, fingerprint.
    let streaks: Vec<&str> = state
        .lines()
        .filter(|line| line.starts_with('/'))
        .map(|line| line.split(' ').nth(4).unwrap())
        .collect();
    assert_eq!(streaks, ["0", "0"], "{state}");
}

/// Each listed URL's lastmod.
fn dates(path: &Path, base: &str) -> BTreeMap<String, Option<String>> {
    validate::sitemap(path, base)
        .into_iter()
        .map(|url| (url.loc, url.lastmod))
        .collect()
}

#[test]
fn the_dates_hugo_pages_declare_are_hugos_own() {
    let base = "https://gohugo.io/";
    let site = Site::empty();
    overlay(
        &fixture_dir("rebuilds").join("hugo").join("base"),
        &site.root,
    );
    let hugos: BTreeMap<String, Option<String>> =
        validate::parse_urls(&fs::read(site.sitemap_path()).unwrap())
            .into_iter()
            .map(|url| (url.loc, url.lastmod))
            .collect();
    let ours = site.outside().join("ours.xml");
    site.command(&["-b", base, "--lastmod", "page,none", "-o"])
        .arg(&ours)
        .run()
        .success();
    let ours = dates(&ours, base);
    // Hugo's pages (its posts) declare article:modified_time; its list pages declare none,
    // and so get none here, where Hugo's sitemap dates them by their newest page.
    let mut compared = 0;
    for (loc, date) in &ours {
        if date.is_some() {
            assert_eq!(date, &hugos[loc], "{loc}");
            compared += 1;
        }
    }
    assert!(compared >= 8, "{compared} dated pages");
}

#[test]
fn the_dates_jekyll_pages_declare_are_listed_and_a_newer_one_moves_a_frozen_date() {
    let base = "https://minima.example.org/";
    let site = Site::empty();
    overlay(
        &fixture_dir("rebuilds").join("jekyll").join("base"),
        &site.root,
    );
    let state = site.outside().join("sitemap.state");
    site.command(&["-b", base, "--lastmod", "page,none", "--state"])
        .arg(&state)
        .run()
        .success();
    let expected = [
        ("", None),
        (
            "2016/05/20/my-example-post.html",
            Some("2016-05-20T00:00:00+00:00"),
        ),
        (
            "2016/05/20/welcome-to-jekyll.html",
            Some("2016-05-20T00:00:00+00:00"),
        ),
        ("about/", None),
        (
            "misc/2016/05/19/super-short-article.html",
            Some("2016-06-02T14:30:00+00:00"),
        ),
        (
            "misc/2016/05/20/super-long-article.html",
            Some("2016-07-15T00:00:00+00:00"),
        ),
    ]
    .map(|(path, date)| (format!("{base}{path}"), date.map(String::from)));
    assert_eq!(
        dates(&site.sitemap_path(), base),
        expected.into_iter().collect()
    );
    // A page that declares a newer date in its head, its content the same, gets that date.
    let post = site.path("2016/05/20/my-example-post.html");
    let html = fs::read_to_string(&post).unwrap().replacen(
        "</head>",
        "<meta property=\"article:modified_time\" content=\"2017-01-01T00:00:00+00:00\"></head>",
        1,
    );
    fs::write(&post, html).unwrap();
    site.command(&["-b", base, "--lastmod", "page,none", "--state"])
        .arg(&state)
        .run()
        .success()
        .stderr_has(&["1 re-dated"]);
    assert_eq!(
        dates(&site.sitemap_path(), base)[&format!("{base}2016/05/20/my-example-post.html")]
            .as_deref(),
        Some("2017-01-01T00:00:00+00:00")
    );
}
