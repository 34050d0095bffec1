//! Paths to URLs, lastmod, changefreq/priority, order and determinism.

use std::fs;
use std::time::{Duration, SystemTime};

use filetime::{FileTime, set_file_mtime};

use crate::harness::{BASE, OLD_SITEMAP, Site, windows_binary};
use crate::validate::{self, locs};

fn sitemap_locs(site: &Site, args: &[&str]) -> Vec<String> {
    site.run(args).success();
    let urls = validate::sitemap(&site.sitemap_path(), BASE);
    locs(&urls).into_iter().map(String::from).collect()
}

#[test]
fn tricky_names_are_percent_encoded_byte_for_byte() {
    let site = Site::empty();
    let cases: &[(&[u8], &str)] = &[
        (b"a b.html", "a%20b.html"),
        (b"caf\xc3\xa9.html", "caf%C3%A9.html"),
        (b"q?x#y.html", "q%3Fx%23y.html"),
        (b"100%.html", "100%25.html"),
        (b"bad\xff.html", "bad%FF.html"),
        (b"ctl\x01\x1f\x7f.html", "ctl%01%1F%7F.html"),
        (b"it's&(ok)!.html", "it's&(ok)!.html"),
        (b"\"<>\\^`{|}.html", "%22%3C%3E%5C%5E%60%7B%7C%7D.html"),
        (b"dir \xe2\x9c\x93/x.html", "dir%20%E2%9C%93/x.html"),
        (b"x#y^`{}.html", "x%23y%5E%60%7B%7D.html"),
    ];
    // Those a Windows name can be: Unicode, without a control character or `"*:<>?\|`.
    let cases: Vec<_> = cases
        .iter()
        .filter(|(name, _)| {
            !windows_binary()
                || std::str::from_utf8(name).is_ok_and(|name| {
                    !name.contains(|c: char| c.is_control() || "\"*:<>?\\|".contains(c))
                })
        })
        .collect();
    for (name, _) in &cases {
        site.page(name);
    }
    let mut expected: Vec<String> = cases
        .iter()
        .map(|(_, url)| format!("{BASE}{url}"))
        .collect();
    expected.sort();
    let mut got = sitemap_locs(&site, &[]);
    got.sort();
    assert_eq!(got, expected);
    // The XML carries `&` and `'` as entities.
    let xml = fs::read_to_string(site.sitemap_path()).unwrap();
    assert!(
        xml.contains("<loc>https://example.com/it&apos;s&amp;(ok)!.html</loc>"),
        "{xml}"
    );
}

#[test]
fn index_pages_clean_urls_and_trailing_slashes() {
    let pages = [
        "index.html",
        "about.html",
        "docs/index.htm",
        "docs/a.html",
        "paper.pdf",
    ];
    let table: &[(&[&str], &[&str])] = &[
        (&[], &["", "about.html", "docs/", "docs/a.html"]),
        (&["--clean-urls"], &["", "about", "docs/", "docs/a"]),
        (
            &["--no-trailing-slash"],
            &["", "about.html", "docs", "docs/a.html"],
        ),
        (
            &["--clean-urls", "--no-trailing-slash"],
            &["", "about", "docs", "docs/a"],
        ),
        (
            &[
                "--clean-urls",
                "--include",
                "*.html",
                "--include",
                "*.htm",
                "--include",
                "*.pdf",
            ],
            &["", "about", "docs/", "docs/a", "paper.pdf"],
        ),
    ];
    for (args, expected) in table {
        let site = Site::with_pages(&pages);
        let expected: Vec<String> = expected.iter().map(|p| format!("{BASE}{p}")).collect();
        assert_eq!(sitemap_locs(&site, args), expected, "with {args:?}");
    }
}

#[test]
fn a_base_path_prefix_holds_every_url_and_gets_its_final_slash() {
    let site = Site::with_pages(&["index.html", "guide/index.html", "guide/x.html"]);
    for base in ["https://example.com/docs", "https://example.com/docs/"] {
        site.run(&["-b", base, "--no-trailing-slash"]).success();
        let urls = validate::sitemap(&site.sitemap_path(), "https://example.com/docs/");
        assert_eq!(
            locs(&urls),
            [
                "https://example.com/docs/",
                "https://example.com/docs/guide",
                "https://example.com/docs/guide/x.html"
            ]
        );
    }
}

#[test]
fn order_is_index_first_then_names_bytewise_and_runs_are_byte_identical() {
    let site = Site::with_pages(&[
        "b.html",
        "a/index.html",
        "a.html",
        "a-b.html",
        "index.html",
        "Z.html",
        "a/z.html",
        "a/b/index.html",
    ]);
    let expected: Vec<String> = [
        "", "Z.html", "a/", "a/b/", "a/z.html", "a-b.html", "a.html", "b.html",
    ]
    .iter()
    .map(|p| format!("{BASE}{p}"))
    .collect();
    assert_eq!(sitemap_locs(&site, &["--lastmod", "none"]), expected);
    let first = fs::read(site.sitemap_path()).unwrap();
    site.run(&["--lastmod", "none"]).success();
    assert_eq!(fs::read(site.sitemap_path()).unwrap(), first);
}

#[test]
fn lastmod_is_the_mtime_in_utc_or_none_or_a_fixed_date() {
    let site = Site::with_pages(&["index.html", "old.html"]);
    set_file_mtime(
        site.path("index.html"),
        FileTime::from_unix_time(1_714_557_600, 0),
    )
    .unwrap();
    set_file_mtime(site.path("old.html"), FileTime::from_unix_time(0, 0)).unwrap();
    site.run(&[]).success();
    let urls = validate::sitemap(&site.sitemap_path(), BASE);
    let dates: Vec<_> = urls.iter().map(|u| u.lastmod.as_deref()).collect();
    assert_eq!(
        dates,
        [
            Some("2024-05-01T10:00:00+00:00"),
            Some("1970-01-01T00:00:00+00:00")
        ]
    );

    site.run(&["--lastmod", "none"]).success();
    let urls = validate::sitemap(&site.sitemap_path(), BASE);
    assert!(urls.iter().all(|u| u.lastmod.is_none()));

    for fixed in [
        "2024-05-01",
        "2024-05-01T10:00:00+02:00",
        "2024-05-01T10:00:00.5Z",
    ] {
        site.run(&["--lastmod", fixed]).success();
        let urls = validate::sitemap(&site.sitemap_path(), BASE);
        assert!(
            urls.iter().all(|u| u.lastmod.as_deref() == Some(fixed)),
            "{fixed}"
        );
    }
}

#[test]
fn an_mtime_before_1970_gives_no_lastmod_and_a_warning() {
    let site = Site::with_pages(&["index.html", "ancient.html"]);
    let before_epoch = SystemTime::UNIX_EPOCH - Duration::from_secs(86_400);
    set_file_mtime(
        site.path("ancient.html"),
        FileTime::from_system_time(before_epoch),
    )
    .unwrap();
    site.run(&[])
        .success()
        .stderr_has(&["warning: ancient.html: mtime -86400"]);
    let urls = validate::sitemap(&site.sitemap_path(), BASE);
    assert!(urls[0].lastmod.is_some());
    assert_eq!(urls[1].lastmod, None);
    site.run(&["--strict"]).expect_code(1);
}

#[test]
fn changefreq_and_priority_only_where_a_rule_matches_and_the_last_wins() {
    let site = Site::with_pages(&["index.html", "blog/a.html", "about.html"]);
    site.run(&[
        "--changefreq",
        "*.html=monthly",
        "--changefreq",
        "blog/*=daily",
        "--priority",
        "/index.html=1",
        "--priority",
        "blog/**=.50",
    ])
    .success();
    let urls = validate::sitemap(&site.sitemap_path(), BASE);
    let got: Vec<_> = urls
        .iter()
        .map(|u| {
            (
                u.loc.as_str(),
                u.changefreq.as_deref(),
                u.priority.as_deref(),
            )
        })
        .collect();
    assert_eq!(
        got,
        [
            ("https://example.com/", Some("monthly"), Some("1.0")),
            ("https://example.com/about.html", Some("monthly"), None),
            (
                "https://example.com/blog/a.html",
                Some("daily"),
                Some("0.5")
            ),
        ]
    );
    site.run(&[]).success();
    let urls = validate::sitemap(&site.sitemap_path(), BASE);
    assert!(
        urls.iter()
            .all(|u| u.changefreq.is_none() && u.priority.is_none())
    );
}

#[test]
fn two_files_with_one_url_give_one_entry_and_a_warning() {
    let site = Site::with_pages(&[
        "a.html",
        "a/index.html",
        "b.htm",
        "b.html",
        "c/index.htm",
        "c/index.html",
    ]);
    site.run(&["--clean-urls", "--no-trailing-slash"])
        .success()
        .stderr_has(&[
            "warning: a/index.html and a.html both map to https://example.com/a; listing only the first",
            "warning: b.htm and b.html both map to https://example.com/b",
            "warning: c/index.html and c/index.htm both map to https://example.com/c",
        ]);
    let urls = validate::sitemap(&site.sitemap_path(), BASE);
    assert_eq!(
        locs(&urls),
        [
            "https://example.com/a",
            "https://example.com/b",
            "https://example.com/c"
        ]
    );

    let before = fs::read(site.sitemap_path()).unwrap();
    site.run(&["--clean-urls", "--no-trailing-slash", "--strict"])
        .expect_code(1)
        .stderr_has(&["error: a/index.html and a.html both map to", "(--strict)"]);
    assert_eq!(fs::read(site.sitemap_path()).unwrap(), before);
}

#[test]
fn urls_of_2048_characters_or_more_are_skipped_with_a_warning() {
    // Names are at most 255 bytes: nest directories to reach the limit exactly.
    let dir = (b'a'..b'i')
        .map(|c| (c as char).to_string().repeat(230))
        .collect::<Vec<_>>()
        .join("/");
    let site = Site::empty();
    let room = 2047 - BASE.len() - dir.len() - 1;
    let fits = format!("{dir}/{}.html", "k".repeat(room - 5));
    let over = format!("{dir}/{}.html", "l".repeat(room - 4));
    site.page(&fits);
    site.page(&over);
    site.page("index.html");
    site.run(&[])
        .success()
        .stderr_has(&["its URL has 2048 characters, the limit is 2047; not listed"]);
    let urls = validate::sitemap(&site.sitemap_path(), BASE);
    assert_eq!(urls.len(), 2);
    assert_eq!(urls[1].loc.len(), 2047);
    site.run(&["--strict"]).expect_code(1);
}

#[test]
fn the_output_and_our_temp_files_are_never_listed() {
    let site = Site::with_pages(&["index.html", ".sitemapgen-abc123.tmp"]);
    site.write("sitemap.xml", OLD_SITEMAP);
    site.write("sub/map.xml", OLD_SITEMAP);
    let out = site.path("sub/map.xml");
    site.command(&["--include", "*", "--hidden"])
        .args(["-o".as_ref(), out.as_os_str()])
        .run()
        .success();
    let urls = validate::sitemap(&out, BASE);
    assert_eq!(
        locs(&urls),
        ["https://example.com/", "https://example.com/sitemap.xml"]
    );
    // -v names the output it passes over, not temp files: they come and go as the sitemap
    // is written beside the walk, so naming them would make the lines depend on timing.
    let run = site
        .command(&["-v", "--include", "*", "--hidden"])
        .args(["-o".as_ref(), out.as_os_str()])
        .run();
    let stderr = run.success().stderr();
    assert!(
        stderr.contains("skip sub/map.xml: sitemapgen's own output"),
        "{stderr}"
    );
    assert!(!stderr.contains(".sitemapgen-abc123.tmp"), "{stderr}");
}

#[test]
fn standard_output_gets_the_same_document_and_nothing_on_failure() {
    let site = Site::with_pages(&["index.html", "a.html"]);
    site.run(&["--lastmod", "2024-05-01"]).success();
    let file = fs::read(site.sitemap_path()).unwrap();
    fs::remove_file(site.sitemap_path()).unwrap();
    let run = site.run(&["--lastmod", "2024-05-01", "-o", "-"]);
    run.success()
        .stderr_has(&["wrote 2 URLs to standard output\n"]);
    assert_eq!(run.stdout(), file.as_slice());
    validate::sitemap_bytes(run.stdout(), BASE);
    assert!(!site.sitemap_path().exists());

    let run = site.run(&["--include", "*.php", "-o", "-"]);
    run.expect_code(1);
    assert_eq!(run.stdout(), b"", "a failed run prints no partial document");
}

#[test]
fn an_output_symlink_is_followed_and_an_existing_mode_kept() {
    use std::os::unix::fs::{PermissionsExt, symlink};
    let site = Site::with_pages(&["index.html"]);
    let real = site.outside().join("real.xml");
    fs::write(&real, OLD_SITEMAP).unwrap();
    fs::set_permissions(&real, fs::Permissions::from_mode(0o640)).unwrap();
    let link = site.outside().join("link.xml");
    symlink(&real, &link).unwrap();
    site.command(&["-o"]).arg(&link).run().success();
    assert!(fs::symlink_metadata(&link).unwrap().is_symlink());
    validate::sitemap(&real, BASE);
    assert_eq!(
        fs::metadata(&real).unwrap().permissions().mode() & 0o777,
        0o640
    );
}
