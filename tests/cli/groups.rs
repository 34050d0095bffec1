//! `--group` and `--index-add`: a sitemap per group under one index, the index listing
//! others' sitemaps, stale groups' files, and what cannot be grouped.

use std::fs;
use std::path::{Path, PathBuf};

use filetime::{FileTime, set_file_mtime};

use crate::harness::{BASE, Site};
use crate::validate::{self, UrlRecord, locs};

/// Validates the index at `index_path` and each of our sitemaps it lists (those beside it);
/// returns the index's entries and, per sitemap of ours, its file name and URLs.
#[track_caller]
fn grouped(index_path: &Path) -> (Vec<UrlRecord>, Vec<(String, Vec<UrlRecord>)>) {
    let entries = validate::index(index_path, BASE);
    let dir = index_path.parent().unwrap();
    let ours = entries
        .iter()
        .filter_map(|entry| {
            let name = entry.loc.strip_prefix(BASE)?;
            let path = dir.join(name);
            (!name.contains('/') && path.exists()).then(|| {
                let urls = validate::sitemap(&path, BASE);
                assert_eq!(
                    entry.lastmod,
                    urls.iter().filter_map(|u| u.lastmod.clone()).max(),
                    "index lastmod of {name} is its newest URL's"
                );
                (name.to_string(), urls)
            })
        })
        .collect();
    (entries, ours)
}

fn names(sitemaps: &[(String, Vec<UrlRecord>)]) -> Vec<&str> {
    sitemaps.iter().map(|(name, _)| name.as_str()).collect()
}

/// The URLs of each group, in walk order, are the ungrouped sitemap's, taken apart.
#[test]
fn a_real_docusaurus_site_grouped_by_section_with_an_older_version_added() {
    let site = Site::fixture("real/docusaurus");
    site.run(&[]).success();
    let whole = validate::sitemap(&site.sitemap_path(), BASE);

    let old_docs = "https://example.com/v1/sitemap.xml";
    // The older version's build, deployed beside this one by another tool.
    site.write("v1/sitemap.xml", SHOP_SITEMAP.replace("shop/", "v1/"));
    let run = site.run(&[
        "--group",
        "blog=blog/**",
        "--group",
        "docs=docs/**",
        "--group",
        "fr=fr/**",
        "--index-add",
        old_docs,
    ]);
    run.success().stderr_has(&[&format!(
        "wrote {} URLs in 4 sitemaps indexed by ",
        whole.len()
    )]);
    assert!(!run.stderr().contains("warning"), "{}", run.stderr());
    let (entries, sitemaps) = grouped(&site.sitemap_path());
    assert_eq!(
        locs(&entries),
        [
            "https://example.com/sitemap-blog.xml",
            "https://example.com/sitemap-docs.xml",
            "https://example.com/sitemap-fr.xml",
            "https://example.com/sitemap-pages.xml",
            old_docs,
        ]
    );
    assert_eq!(
        entries[4].lastmod.as_deref(),
        Some("2024-03-02"),
        "an added sitemap's newest date"
    );
    let group_of = |loc: &str| {
        let path = loc.strip_prefix(BASE).unwrap();
        ["blog", "docs", "fr"]
            .into_iter()
            .find(|group| path == *group || path.starts_with(&format!("{group}/")))
            .unwrap_or("pages")
    };
    for (name, urls) in &sitemaps {
        let group = name
            .strip_prefix("sitemap-")
            .and_then(|n| n.strip_suffix(".xml"))
            .unwrap();
        let expected: Vec<&UrlRecord> =
            whole.iter().filter(|u| group_of(&u.loc) == group).collect();
        assert!(!expected.is_empty(), "{group}");
        assert_eq!(urls.iter().collect::<Vec<_>>(), expected, "{name}");
    }
    let total: usize = sitemaps.iter().map(|(_, urls)| urls.len()).sum();
    assert_eq!(total, whole.len());
    // Our own files are no pages of the site; Docusaurus's fr/sitemap.xml stays as it was.
    assert_eq!(
        fs::read(site.path("fr/sitemap.xml")).unwrap(),
        fs::read(crate::harness::fixture_dir(
            "real/docusaurus/fr/sitemap.xml"
        ))
        .unwrap()
    );

    // The same run again changes nothing, and --check says so.
    let before = site.all_files();
    let bytes: Vec<Vec<u8>> = before.iter().map(|p| fs::read(p).unwrap()).collect();
    let again = [
        "--group",
        "blog=blog/**",
        "--group",
        "docs=docs/**",
        "--group",
        "fr=fr/**",
        "--index-add",
        old_docs,
    ];
    site.run(&again).success();
    let after: Vec<Vec<u8>> = before.iter().map(|p| fs::read(p).unwrap()).collect();
    assert_eq!(site.all_files(), before);
    assert_eq!(after, bytes);
    let mut check = again.to_vec();
    check.push("--check");
    site.run(&check).success().stderr_has(&["is up to date"]);
}

/// Another tool's sitemap of a shop, to be listed by --index-add.
const SHOP_SITEMAP: &str = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n\
    <urlset xmlns=\"http://www.sitemaps.org/schemas/sitemap/0.9\">\n\
    <url><loc>https://example.com/shop/</loc><lastmod>2024-03-02</lastmod></url>\n\
    <url><loc>https://example.com/shop/cart/</loc><lastmod>2023-11-30</lastmod></url>\n\
    </urlset>\n";

/// A site of `n` pages under blog/ and `n` at the root, page i dated 2024-01-01 plus i days.
fn blog_site(n: usize) -> Site {
    let site = Site::empty();
    for i in 0..n {
        for dir in ["blog/", ""] {
            let page = site.page(format!("{dir}p{i:03}.html"));
            let day = 1_704_067_200 + i as i64 * 86_400;
            set_file_mtime(page, FileTime::from_unix_time(day, 0)).unwrap();
        }
    }
    site
}

#[test]
fn a_group_past_the_limit_is_split_and_every_file_is_valid_plain_or_gzip() {
    let site = blog_site(5);
    for (extra, ext) in [(None, ".xml"), (Some("--gzip"), ".xml.gz")] {
        let mut args = vec!["--group", "blog=blog/**", "--max-urls", "2", "--no-html"];
        args.extend(extra);
        site.run(&args)
            .success()
            .stderr_has(&["in 6 sitemaps indexed by "]);
        let index = site.path(format!("sitemap{ext}"));
        let (entries, sitemaps) = grouped(&index);
        let expected: Vec<String> = [
            "blog-1", "blog-2", "blog-3", "pages-1", "pages-2", "pages-3",
        ]
        .iter()
        .map(|n| format!("sitemap-{n}{ext}"))
        .collect();
        assert_eq!(names(&sitemaps), expected);
        assert_eq!(entries.len(), 6);
        let blog: Vec<&str> = sitemaps[..3].iter().flat_map(|(_, u)| locs(u)).collect();
        assert_eq!(
            blog,
            (0..5)
                .map(|i| format!("{BASE}blog/p{i:03}.html"))
                .collect::<Vec<_>>()
        );
        assert_eq!(
            entries[1].lastmod.as_deref(),
            Some("2024-01-04T00:00:00+00:00"),
            "the newest of blog part 2 (p002, p003)"
        );
    }
    // The gzip run removed the plain run's files: the run switched --gzip on.
    assert!(!site.path("sitemap-blog-1.xml").exists());
    assert!(!site.path("sitemap.xml").exists());
}

#[test]
fn heads_read_or_not_the_grouped_files_are_the_same() {
    let site = blog_site(3);
    let args = ["--group", "blog=blog/*.html", "--xsl", "/map.xsl"];
    site.run(&args).success();
    let read: Vec<Vec<u8>> = ["sitemap.xml", "sitemap-blog.xml", "sitemap-pages.xml"]
        .iter()
        .map(|name| fs::read(site.path(name)).unwrap())
        .collect();
    let mut no_html = args.to_vec();
    no_html.push("--no-html");
    site.run(&no_html).success();
    for (name, bytes) in ["sitemap.xml", "sitemap-blog.xml", "sitemap-pages.xml"]
        .iter()
        .zip(&read)
    {
        assert_eq!(&fs::read(site.path(name)).unwrap(), bytes, "{name}");
        let text = String::from_utf8_lossy(bytes);
        assert!(
            text.contains("<?xml-stylesheet type=\"text/xsl\" href=\"/map.xsl\"?>"),
            "{name}"
        );
    }
    grouped(&site.sitemap_path());
}

#[test]
fn a_group_that_takes_no_page_writes_no_file_and_one_given_twice_gathers_both_globs() {
    let site = Site::with_pages(&["a/1.html", "b/2.html", "c/3.html"]);
    site.run(&[
        "--group",
        "ab=a/**",
        "--group",
        "none=zzz/**",
        "--group",
        "ab=b/**",
    ])
    .success();
    let (_, sitemaps) = grouped(&site.sitemap_path());
    assert_eq!(names(&sitemaps), ["sitemap-ab.xml", "sitemap-pages.xml"]);
    assert_eq!(
        locs(&sitemaps[0].1),
        [
            "https://example.com/a/1.html",
            "https://example.com/b/2.html"
        ]
    );
    assert!(!site.path("sitemap-none.xml").exists());

    // Every page in a group: no default group's file; --index-add alone: every page in it.
    site.run(&["--group", "all=**"]).success();
    site.write("shop/sitemap.xml", SHOP_SITEMAP);
    assert_eq!(names(&grouped(&site.sitemap_path()).1), ["sitemap-all.xml"]);
    site.run(&["--index-add", "https://example.com/shop/sitemap.xml"])
        .success()
        .stderr_has(&["in 1 sitemap indexed by "]);
    let (entries, sitemaps) = grouped(&site.sitemap_path());
    assert_eq!(names(&sitemaps), ["sitemap-pages.xml"]);
    assert_eq!(entries.len(), 2);
    assert!(
        !site.path("sitemap-all.xml").exists(),
        "a stale group's file"
    );
}

/// Files of groups an earlier run wrote and this one does not are removed; sitemaps other
/// tools wrote beside ours (without our mark) stay, whatever their names.
#[test]
fn stale_groups_files_go_and_others_sitemaps_stay() {
    let site = Site::with_pages(&["blog/a.html", "news/b.html", "c.html"]);
    let foreign = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n\
        <urlset xmlns=\"http://www.sitemaps.org/schemas/sitemap/0.9\"></urlset>\n";
    site.write("sitemap-shop.xml", foreign);
    site.write("sitemap-news-2.xml", foreign);

    // An ungrouped split run's shards go when the run is grouped.
    site.run(&["--max-urls", "1"]).success();
    assert!(site.path("sitemap-3.xml").exists());
    site.run(&["--group", "blog=blog/**", "--group", "news=news/**"])
        .success();
    assert!(!site.path("sitemap-1.xml").exists());
    assert!(site.path("sitemap-news.xml").exists());

    // A group renamed: its old file goes.
    site.run(&["--group", "blog=blog/**", "--group", "posts=news/**"])
        .success();
    assert!(!site.path("sitemap-news.xml").exists());
    assert_eq!(
        names(&grouped(&site.sitemap_path()).1),
        ["sitemap-blog.xml", "sitemap-posts.xml", "sitemap-pages.xml"]
    );
    // --check sees a stale group's file as a difference.
    site.write(
        "sitemap-news.xml",
        fs::read(site.path("sitemap-posts.xml")).unwrap(),
    );
    site.run(&[
        "--group",
        "blog=blog/**",
        "--group",
        "posts=news/**",
        "--check",
    ])
    .expect_code(1);

    // Back to one sitemap: every group's file goes, the others' stay.
    site.run(&[]).success();
    let mut left: Vec<PathBuf> = site
        .all_files()
        .iter()
        .map(|p| p.strip_prefix(&site.root).unwrap().to_path_buf())
        .collect();
    left.retain(|p| p.to_string_lossy().starts_with("sitemap"));
    assert_eq!(
        left,
        ["sitemap-news-2.xml", "sitemap-shop.xml", "sitemap.xml"].map(PathBuf::from)
    );
    assert_eq!(
        fs::read(site.path("sitemap-shop.xml")).unwrap(),
        foreign.as_bytes()
    );
    validate::sitemap(&site.sitemap_path(), BASE);
}

#[test]
fn switching_gzip_on_or_off_removes_the_other_compressions_index_and_its_files() {
    let site = Site::with_pages(&["blog/a.html", "c.html", "d.html"]);
    let sitemaps = |site: &Site| -> Vec<String> {
        let mut names: Vec<String> = site
            .all_files()
            .iter()
            .map(|p| {
                p.strip_prefix(&site.root)
                    .unwrap()
                    .to_string_lossy()
                    .into_owned()
            })
            .filter(|name| name.starts_with("sitemap") || name.starts_with("other"))
            .collect();
        names.sort();
        names
    };
    let group = ["--group", "blog=blog/**"];
    let gz_output = site.path("sitemap.xml.gz");
    let gzipped = |args: &[&str]| {
        site.command(args)
            .args(["--gzip", "-o"])
            .arg(&gz_output)
            .run()
            .success();
    };
    site.run(&group).success();
    gzipped(&group);
    assert_eq!(
        sitemaps(&site),
        [
            "sitemap-blog.xml.gz",
            "sitemap-pages.xml.gz",
            "sitemap.xml.gz"
        ]
    );
    // And back, with the index split into shards.
    site.run(&["--max-urls", "2"]).success();
    assert_eq!(
        sitemaps(&site),
        ["sitemap-1.xml", "sitemap-2.xml", "sitemap.xml"]
    );
    gzipped(&["--max-urls", "2"]);
    assert_eq!(
        sitemaps(&site),
        ["sitemap-1.xml.gz", "sitemap-2.xml.gz", "sitemap.xml.gz"]
    );
    // An unsplit sitemap of the other compression may be another tool's, and so may an
    // index that lists other files than ours: both stay.
    site.write("sitemap.xml", crate::harness::OLD_SITEMAP);
    gzipped(&[]);
    assert_eq!(sitemaps(&site), ["sitemap.xml", "sitemap.xml.gz"]);
    let theirs = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n\
        <sitemapindex xmlns=\"http://www.sitemaps.org/schemas/sitemap/0.9\">\
        <sitemap><loc>https://example.com/other.xml</loc></sitemap></sitemapindex>\n";
    site.write("sitemap.xml", theirs);
    gzipped(&[]);
    assert_eq!(
        fs::read_to_string(site.path("sitemap.xml")).unwrap(),
        theirs
    );
}

#[test]
fn robots_txt_names_the_index_and_the_config_file_takes_groups() {
    let site = Site::with_pages(&["blog/a.html", "c.html"]);
    site.write("shop/sitemap.xml", SHOP_SITEMAP);
    site.write(
        "sitemapgen.toml",
        "group = [\"blog=blog/**\"]\nindex-add = [\"https://example.com/shop/sitemap.xml\"]\n",
    );
    site.command(&["--robots"])
        .current_dir(&site.root)
        .run()
        .success();
    let robots = fs::read_to_string(site.path("robots.txt")).unwrap();
    let sitemaps: Vec<&str> = robots
        .lines()
        .filter(|l| l.starts_with("Sitemap:"))
        .collect();
    assert_eq!(
        sitemaps,
        ["Sitemap: https://example.com/sitemap.xml"],
        "{robots}"
    );
    let (entries, sitemaps) = grouped(&site.sitemap_path());
    assert_eq!(names(&sitemaps), ["sitemap-blog.xml", "sitemap-pages.xml"]);
    assert_eq!(entries[2].loc, "https://example.com/shop/sitemap.xml");
}

#[test]
fn index_add_never_lists_another_output_a_page_or_a_file_that_is_no_sitemap() {
    let site = Site::with_pages(&["blog/a.html", "c.html"]);
    site.write("robots.txt", "User-agent: *\nDisallow: /private/\n");
    site.write("notes.xml", "<notes/>");
    let key = "index-add-key-01";
    let state = site.path("sitemap.state");
    let state = state.to_str().unwrap();
    let cases: &[(&[&str], &str)] = &[
        (
            &["--index-add", "https://example.com/robots.txt"],
            "names the site's robots.txt",
        ),
        (
            &[
                "--state",
                state,
                "--index-add",
                "https://example.com/sitemap.state",
            ],
            "names --state",
        ),
        (
            &[
                "--indexnow-key-env",
                "K",
                "--index-add",
                "https://example.com/index-add-key-01.txt",
            ],
            "names the IndexNow key file in DIR",
        ),
        (
            &["--index-add", "https://example.com/c.html"],
            "names a page of the site",
        ),
        (
            &["--index-add", "https://example.com/notes.xml"],
            "notes.xml, which is not a sitemap",
        ),
    ];
    for (args, message) in cases {
        let before = site.all_files();
        site.command(args)
            .env("K", key)
            .run()
            .expect_code(2)
            .stderr_has(&["sitemapgen: error: --index-add ", message]);
        assert_eq!(site.all_files(), before, "{args:?}");
    }
}

#[test]
fn what_cannot_be_grouped_is_a_usage_error_and_nothing_is_written() {
    let site = Site::with_pages(&["blog/a.html", "c.html"]);
    let old = crate::harness::OLD_SITEMAP;
    site.write("sitemap.xml", old);
    let outside = site.outside().join("map.xml");
    let outside = outside.to_str().unwrap();
    let cases: &[(&[&str], &str)] = &[
        (&["--group", "blog"], "must have the form NAME=GLOB"),
        (
            &["--group", "pages=blog/**"],
            "pages is the default group's name",
        ),
        (&["--group", "blog-2=blog/**"], "a group's name is a letter"),
        (&["--group", "2024=blog/**"], "a group's name is a letter"),
        (&["--group", "b.log=blog/**"], "a group's name is a letter"),
        (
            &["--group", "blog=blog/"],
            "names a directory; use blog=blog/**",
        ),
        (&["--group", "blog=[a"], "is not a valid glob"),
        (
            &["--group", "blog=blog/**", "--format", "txt"],
            "a text sitemap has no index",
        ),
        (
            &["--group", "blog=blog/**", "-o", "-"],
            "-o - shows one file",
        ),
        (
            &["--group", "blog=blog/**", "-o", outside],
            "need the output inside DIR",
        ),
        (
            &["--index-add", "https://other.example/sitemap.xml"],
            "does not lie under https://example.com/, the index's directory",
        ),
        (
            &["--index-add", "https://example.com/"],
            "does not lie under",
        ),
        (
            &["--index-add", "ftp://example.com/a.xml"],
            "is not an http or https URL",
        ),
        (
            &["--index-add", "https://example.com/sitemap-pages.xml"],
            "names a file this run writes",
        ),
        (
            &["--index-add", "https://example.com/sitemap.xml"],
            "names a file this run writes",
        ),
        (
            &[
                "--index-add",
                "https://example.com/a.xml",
                "--index-add",
                "https://example.com/a.xml",
            ],
            "is given twice",
        ),
        (
            &["--index-add", "https://example.com/a.xml#x"],
            "has no fragment",
        ),
    ];
    for (args, message) in cases {
        site.run(args)
            .expect_code(2)
            .stderr_has(&["sitemapgen: error: ", message]);
        assert_eq!(
            fs::read_to_string(site.sitemap_path()).unwrap(),
            old,
            "{args:?}"
        );
        assert_eq!(
            site.all_files().len(),
            3,
            "{args:?}: {:?}",
            site.all_files()
        );
    }
    // Under a base path, an added sitemap must lie under it too.
    site.run(&[
        "-b",
        "https://example.com/docs/",
        "--index-add",
        "https://example.com/x.xml",
    ])
    .expect_code(2)
    .stderr_has(&["does not lie under https://example.com/docs/"]);
    site.write(
        "v1/sitemap.xml",
        SHOP_SITEMAP.replace("example.com/shop/", "example.com/docs/v1/"),
    );
    let run = site.run(&[
        "-b",
        "https://example.com/docs/",
        "--index-add",
        "https://example.com/docs/v1/sitemap.xml",
    ]);
    assert!(
        !run.success().stderr().contains("warning"),
        "{}",
        run.stderr()
    );
}

/// A group's file that a later run no longer writes, but lists with --index-add (the section
/// now written by another tool, say), stays: the index never names a file the run removed.
#[test]
fn a_former_groups_file_that_index_add_lists_stays() {
    let site = Site::with_pages(&["shop/a.html", "c.html"]);
    site.run(&["--group", "shop=shop/**"]).success();
    let shop = fs::read(site.path("sitemap-shop.xml")).unwrap();
    let added = "https://example.com/sitemap-shop.xml";
    site.run(&["--exclude", "shop/", "--index-add", added])
        .success();
    assert_eq!(fs::read(site.path("sitemap-shop.xml")).unwrap(), shop);
    let entries = validate::index(&site.sitemap_path(), BASE);
    assert_eq!(
        locs(&entries),
        ["https://example.com/sitemap-pages.xml", added]
    );
    // Dated by the file it names.
    let newest = validate::sitemap(&site.path("sitemap-shop.xml"), BASE)[0]
        .lastmod
        .clone();
    assert_eq!(entries[1].lastmod, newest);
    let pages = validate::sitemap(&site.path("sitemap-pages.xml"), BASE);
    assert_eq!(locs(&pages), ["https://example.com/c.html"]);
    // Without it, the file goes.
    site.run(&["--exclude", "shop/", "--group", "other=x/**"])
        .success();
    assert!(!site.path("sitemap-shop.xml").exists());
}
