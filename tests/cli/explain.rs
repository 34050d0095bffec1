//! --explain: why one page is or is not in the sitemap, by its file or its URL; a test for
//! each rule that can leave a page out, where its date came from, and that nothing is written.

use std::fs;

use filetime::FileTime;

use crate::harness::{BASE, Run, Site};

/// What `--explain PAGE` prints (it must succeed and write nothing), with ARGS.
#[track_caller]
fn explain(site: &Site, page: &str, args: &[&str]) -> String {
    let files = site.all_files();
    let run = site.command(&[args, &["--explain", page]].concat()).run();
    let told = told(&run);
    assert_eq!(site.all_files(), files, "--explain wrote or removed a file");
    told
}

#[track_caller]
fn told(run: &Run) -> String {
    run.success();
    String::from_utf8(run.stdout().to_vec()).unwrap()
}

#[track_caller]
fn says(told: &str, parts: &[&str]) {
    for part in parts {
        assert!(told.contains(part), "lacks {part:?}:\n{told}");
    }
}

fn head(inside: &str) -> String {
    format!("<!doctype html><html><head><title>t</title>{inside}</head><body>x</body></html>\n")
}

#[test]
fn a_listed_page_is_told_with_its_url_its_date_and_where_the_date_came_from() {
    let site = Site::with_pages(&["index.html", "posts/index.html"]);
    let page = site.path("posts/index.html");
    filetime::set_file_mtime(&page, FileTime::from_unix_time(1_714_557_600, 0)).unwrap();
    let by_file = explain(&site, "posts/index.html", &[]);
    assert_eq!(
        by_file.lines().next().unwrap(),
        "posts/index.html: listed at https://example.com/posts/"
    );
    says(
        &by_file,
        &[
            "lastmod 2024-05-01T10:00:00+00:00: the file's mtime",
            "not known from this page alone: whether another file has its URL",
        ],
    );
    // The same page by its path from the current directory, and by its URL.
    assert_eq!(explain(&site, "site/posts/index.html", &[]), by_file);
    let by_url = explain(&site, &format!("{BASE}posts/"), &[]);
    assert_eq!(
        by_url,
        format!("{BASE}posts/: the file posts/index.html\n{by_file}")
    );
    // And by the URL's path, on the base URL's host.
    assert_eq!(explain(&site, "/posts/", &[]), by_url);
    // A clean URL finds its file as the run maps it.
    site.page("about.html");
    says(
        &explain(&site, &format!("{BASE}about"), &["--clean-urls"]),
        &["about.html: listed at https://example.com/about\n"],
    );
}

#[test]
fn each_rule_that_leaves_a_page_out_is_named() {
    let site = Site::with_pages(&["index.html", "drafts/a.html", "b.html", "404.html"]);
    site.page(".hidden.html");
    site.write("style.css", "body {}");
    site.write(
        "noindex.html",
        head(r#"<meta name="robots" content="noindex">"#),
    );
    site.write(
        "old.html",
        head(r#"<meta http-equiv="refresh" content="0; url=/b.html">"#),
    );
    site.write(
        "copy.html",
        head(r#"<link rel="canonical" href="https://example.com/b.html">"#),
    );
    site.write(
        "syndicated.html",
        head(r#"<link rel="canonical" href="https://elsewhere.org/post">"#),
    );
    site.write(
        "robots.txt",
        "User-agent: *\nDisallow: /tmp/\n# the private pages\nDisallow: /private/\n",
    );
    site.page("private/p.html");
    // Ten folders of 220 characters: a URL over 2,048, each name within the system's limit.
    let long = format!("{}/x.html", vec!["d".repeat(220); 10].join("/"));
    site.page(&long);
    site.run(&[]).success();
    let cases: &[(&str, &[&str], &str)] = &[
        (
            "b.html",
            &["--exclude", "b.html"],
            "skip b.html: --exclude b.html",
        ),
        (
            "drafts/a.html",
            &["--exclude", "drafts/"],
            "skip drafts/a.html: inside drafts: --exclude drafts/",
        ),
        (
            "404.html",
            &[],
            "skip 404.html: default exclude /404.html (use --no-default-excludes)",
        ),
        (
            ".hidden.html",
            &[],
            "skip .hidden.html: hidden (use --hidden)",
        ),
        (
            "style.css",
            &[],
            "skip style.css: matches no --include glob",
        ),
        ("noindex.html", &[], "skip noindex.html: marked noindex"),
        (
            "old.html",
            &[],
            "skip old.html: a redirect to https://example.com/b.html",
        ),
        (
            "copy.html",
            &[],
            "skip copy.html: its canonical URL is https://example.com/b.html",
        ),
        (
            "syndicated.html",
            &[],
            "skip syndicated.html: its canonical URL https://elsewhere.org/post is outside the \
             base URL",
        ),
        (
            "private/p.html",
            &[],
            "skip private/p.html: robots.txt disallows its URL (line 4: Disallow: /private/)",
        ),
        (&long, &[], "URL too long"),
        (
            "sitemap.xml",
            &[],
            "skip sitemap.xml: sitemapgen's own output",
        ),
    ];
    for (page, args, why) in cases {
        let told = explain(&site, page, args);
        let first = told.lines().next().unwrap();
        assert!(
            first.starts_with(&format!("{page}: not listed (its URL would be {BASE}")),
            "{told}"
        );
        says(&told, &[why]);
        assert!(!told.contains("listed at"), "{told}");
    }
    // Without the rule, the page is listed.
    says(&explain(&site, "b.html", &[]), &["b.html: listed at "]);
    says(
        &explain(&site, "private/p.html", &["--ignore-disallow"]),
        &["listed at https://example.com/private/p.html"],
    );
}

#[test]
fn the_state_tells_since_when_a_date_is_kept_and_why_a_page_is_re_dated() {
    let site = Site::with_pages(&["index.html", "a.html", "b.html"]);
    let state = site.outside().join("sitemap.state");
    let state = state.to_str().unwrap();
    site.run(&["--state", state, "--lastmod", "2024-05-01"])
        .success();
    site.write("b.html", "<!doctype html><title>page</title><p>new text\n");
    site.page("c.html");
    let args = ["--state", state, "--lastmod", "2024-06-01"];
    says(
        &explain(&site, "a.html", &args),
        &["lastmod 2024-05-01: kept from the state, the date its content last changed"],
    );
    says(
        &explain(&site, "b.html", &args),
        &[
            "re-dated: its content changed since the state's record (2024-05-01)",
            "lastmod 2024-06-01: the date --lastmod gives every page",
        ],
    );
    says(
        &explain(&site, "c.html", &args),
        &["new to the state: dated as a new page"],
    );
}

#[test]
fn a_page_s_alternates_and_declared_date_are_told() {
    let site = Site::empty();
    site.write(
        "en/index.html",
        head(
            r#"<link rel="alternate" hreflang="fr" href="https://example.com/fr/">
               <meta property="article:modified_time" content="2024-03-02T10:00:00+00:00">"#,
        ),
    );
    site.write(
        "fr/index.html",
        head(r#"<link rel="alternate" hreflang="en" href="https://example.com/en/">"#),
    );
    says(
        &explain(&site, "en/index.html", &["--lastmod", "page"]),
        &[
            "alternates: fr https://example.com/fr/",
            "lastmod 2024-03-02T10:00:00+00:00: the date the page declares",
        ],
    );
}

#[test]
fn a_page_that_is_not_there_is_a_usage_error() {
    let site = Site::with_pages(&["index.html"]);
    for (page, message) in [
        (
            "missing.html",
            "--explain missing.html: no such file in DIR",
        ),
        (
            "https://example.com/gone/",
            "--explain https://example.com/gone/: no file in DIR",
        ),
        (
            "https://other.org/",
            "--explain https://other.org/ is not under the base URL",
        ),
        (
            "/gone/",
            "--explain https://example.com/gone/: no file in DIR",
        ),
    ] {
        site.run(&["--explain", page])
            .expect_code(2)
            .stderr_has(&["sitemapgen: error: ", message]);
    }
    assert!(!fs::exists(site.sitemap_path()).unwrap());
}
