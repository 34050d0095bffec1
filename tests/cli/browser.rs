//! The human view: a real browser (Debian's headless Chromium) opens the sitemap, its index
//! and a shard from a server on the loopback address, through `--write-xsl`'s stylesheet.

use std::fs;
use std::path::Path;
use std::process::Command;

use crate::harness::Site;
use crate::rebuilds::overlay;
use crate::serve::Server;
use crate::validate;

const BASE: &str = "https://python-markdown.example.org/";

/// What Chromium made of `url`: its DOM after the stylesheet, and a screenshot at `png`.
fn chromium(url: &str, png: &Path, profile: &Path) -> String {
    let run = |what: &[String]| {
        let out = Command::new("chromium")
            .args([
                "--headless",
                "--no-sandbox",
                "--disable-gpu",
                "--disable-quic",
                "--no-first-run",
                "--disable-background-networking",
                "--disable-component-update",
                "--disable-sync",
                "--window-size=1280,1600",
            ])
            .arg(format!("--user-data-dir={}", profile.display()))
            .args(what)
            .arg(url)
            .output();
        match out {
            Ok(out) => {
                assert!(
                    out.status.success(),
                    "{}",
                    String::from_utf8_lossy(&out.stderr)
                );
                String::from_utf8_lossy(&out.stdout).into_owned()
            }
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
                panic!("chromium is not on PATH: install it (apt-get install chromium)")
            }
            Err(e) => panic!("chromium: {e}"),
        }
    };
    run(&[format!("--screenshot={}", png.display())]);
    run(&["--dump-dom".to_string()])
}

/// The table rows' links of a DOM Chromium dumped.
fn links(dom: &str) -> Vec<String> {
    dom.split("<td><a href=\"")
        .skip(1)
        .map(|rest| rest[..rest.find('"').unwrap()].replace("&amp;", "&"))
        .collect()
}

#[test]
fn a_browser_shows_every_url_and_every_shard_in_a_table() {
    let site = Site::empty();
    overlay(
        &crate::harness::fixture_dir("rebuilds")
            .join("mkdocs-material")
            .join("base"),
        &site.root,
    );
    site.command(&["-b", BASE, "--write-xsl", "--max-urls", "4"])
        .run()
        .success();
    let index = validate::index(&site.sitemap_path(), BASE);
    let server = Server::files(site.root.clone());
    let profile = tempfile::tempdir().unwrap();
    let png = site.outside().join("index.png");
    let dom = chromium(&server.url("/sitemap.xml"), &png, profile.path());
    assert!(dom.contains("<h1>Sitemap index</h1>"), "{dom}");
    assert_eq!(links(&dom), validate::locs(&index));
    // The screenshot shows a table, not the blank page a failed transform leaves.
    let blank = site.outside().join("blank.png");
    chromium("about:blank", &blank, profile.path());
    let size = |png: &Path| fs::metadata(png).unwrap().len();
    assert!(
        size(&png) > 3 * size(&blank),
        "{} vs {}",
        size(&png),
        size(&blank)
    );
    let mut listed = Vec::new();
    for n in 1..=3 {
        let shard = site.root.join(format!("sitemap-{n}.xml"));
        let urls = validate::sitemap(&shard, BASE);
        let png = site.outside().join(format!("shard-{n}.png"));
        let dom = chromium(
            &server.url(&format!("/sitemap-{n}.xml")),
            &png,
            profile.path(),
        );
        assert!(
            dom.contains(&format!("<p>{} URLs</p>", urls.len())),
            "{dom}"
        );
        assert_eq!(links(&dom), validate::locs(&urls), "shard {n}");
        listed.extend(links(&dom));
    }
    assert_eq!(listed.len(), 11, "every URL of the site, once");
    // The stylesheet is requested from the site itself, as browsers insist.
    let paths: Vec<String> = server.requests().iter().map(|r| r.path.clone()).collect();
    assert!(paths.contains(&"/sitemap.xsl".to_string()), "{paths:?}");
}

#[test]
fn the_stylesheet_is_written_once_and_never_over_someone_elses() {
    let site = Site::with_pages(&["index.html"]);
    site.run(&["--write-xsl"]).success();
    let xsl = site.root.join("sitemap.xsl");
    let ours = fs::read(&xsl).unwrap();
    let before = fs::metadata(&xsl).unwrap().modified().unwrap();
    site.run(&["--write-xsl"]).success();
    assert_eq!(
        fs::metadata(&xsl).unwrap().modified().unwrap(),
        before,
        "left as it is"
    );
    // An earlier version of ours is replaced.
    let mut older = ours.clone();
    older.extend(b"<!-- an older version -->\n");
    fs::write(&xsl, &older).unwrap();
    site.run(&["--write-xsl"]).success();
    assert_eq!(fs::read(&xsl).unwrap(), ours);
    // Someone else's is not, and nothing is written.
    fs::write(&xsl, "<xsl:stylesheet/>").unwrap();
    let sitemap = fs::read(site.sitemap_path()).unwrap();
    site.run(&["--write-xsl", "--lastmod", "2020-01-01"])
        .expect_code(2)
        .stderr_has(&[
            &format!(
                "{} exists and holds something else",
                site.shown("sitemap.xsl")
            ),
            "than sitemapgen's stylesheet",
        ]);
    assert_eq!(fs::read(site.sitemap_path()).unwrap(), sitemap);
    // --xsl names another stylesheet: it is the one the sitemap points to.
    fs::remove_file(&xsl).unwrap();
    // On another origin, browsers will not apply it: a warning says so.
    site.run(&["--xsl", "https://cdn.example.com/s.xsl?a=1&b=\"2\""])
        .success()
        .stderr_has(&[
            "warning: --xsl https://cdn.example.com/s.xsl?a=1&b=\"2\" is on \
             https://cdn.example.com, and browsers apply a stylesheet only from the sitemap's \
             own origin",
        ]);
    let text = fs::read_to_string(site.sitemap_path()).unwrap();
    assert!(
        text.contains(
            "<?xml-stylesheet type=\"text/xsl\" href=\"https://cdn.example.com/s.xsl?a=1&amp;b=&quot;2&quot;\"?>\n<urlset"
        ),
        "{text}"
    );
    assert!(!xsl.exists(), "--xsl alone writes no stylesheet");
    validate::sitemap(&site.sitemap_path(), crate::harness::BASE);
    for same_origin in ["/map.xsl", "map.xsl", "https://example.com/a/map.xsl"] {
        let run = site.run(&["--xsl", same_origin]);
        assert!(!run.success().stderr().contains("warning"), "{same_origin}");
    }
    site.run(&["--xsl", "//cdn.example.com/s.xsl", "--strict"])
        .expect_code(1)
        .stderr_has(&["is on https://cdn.example.com", "(--strict)"]);
    for (args, expected) in [
        (&["--xsl", "a b.xsl"][..], "--xsl \"a b.xsl\" is not a URL"),
        (
            &["--xsl", "javascript:alert(1)"],
            "--xsl \"javascript:alert(1)\" is not an http or https URL nor a path on the site",
        ),
        (&["--xsl", "data:text/xsl,x"], "is not an http or https URL"),
        (
            &["--write-xsl", "--format", "txt"],
            "a text sitemap has no stylesheet",
        ),
        (
            &["--write-xsl", "-o", "-"],
            "writes nothing into DIR: drop --write-xsl",
        ),
    ] {
        site.run(args).expect_code(2).stderr_has(&[expected]);
    }
}
