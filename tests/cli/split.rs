//! Past 50,000 URLs or 50 MiB: an index over shards, gzip, stale shards, failures.

use std::fs;
use std::path::{Path, PathBuf};

use filetime::{FileTime, set_file_mtime};

use crate::harness::{BASE, Site};
use crate::validate::{self, UrlRecord, gunzip, locs};

const MAX_BYTES: u64 = 52_428_800;

/// A site of `n` pages `p00000.html`…, page i dated 2024-01-01 plus i days.
pub(crate) fn numbered_site(n: usize) -> Site {
    let site = Site::empty();
    for i in 0..n {
        let page = site.page(format!("p{i:05}.html"));
        set_file_mtime(
            page,
            FileTime::from_unix_time(1_704_067_200 + i as i64 * 86_400, 0),
        )
        .unwrap();
    }
    site
}

/// Validates an index and its shards (the shards beside it, named in it); returns, per
/// shard, its path and its URLs.
#[track_caller]
fn split(index_path: &Path, base: &str) -> Vec<(PathBuf, Vec<UrlRecord>)> {
    let entries = validate::index(index_path, base);
    let index_url = entries[0].loc.rsplit_once('/').unwrap().0.to_string() + "/";
    entries
        .iter()
        .map(|entry| {
            // The protocol: an index lists sitemaps in its own directory or below.
            let name = entry
                .loc
                .strip_prefix(&index_url)
                .expect("shard beside its index");
            let path = index_path.parent().unwrap().join(name);
            let urls = validate::sitemap(&path, base);
            assert_eq!(
                entry.lastmod,
                urls.iter().filter_map(|u| u.lastmod.clone()).max(),
                "index lastmod of {name} is its newest URL's"
            );
            (path, urls)
        })
        .collect()
}

fn all_locs(shards: &[(PathBuf, Vec<UrlRecord>)]) -> Vec<String> {
    shards
        .iter()
        .flat_map(|(_, urls)| locs(urls).into_iter().map(String::from))
        .collect()
}

#[test]
fn max_urls_splits_into_an_index_of_shards_in_walk_order() {
    let site = numbered_site(7);
    site.run(&[]).success();
    let whole: Vec<String> = locs(&validate::sitemap(&site.sitemap_path(), BASE))
        .into_iter()
        .map(String::from)
        .collect();

    site.run(&["--max-urls", "3"])
        .success()
        .stderr_has(&["wrote 7 URLs in 3 sitemaps indexed by "]);
    let shards = split(&site.sitemap_path(), BASE);
    let names: Vec<_> = shards
        .iter()
        .map(|(p, _)| p.file_name().unwrap().to_owned())
        .collect();
    assert_eq!(names, ["sitemap-1.xml", "sitemap-2.xml", "sitemap-3.xml"]);
    let sizes: Vec<_> = shards.iter().map(|(_, urls)| urls.len()).collect();
    assert_eq!(sizes, [3, 3, 1]);
    assert_eq!(all_locs(&shards), whole);
    // Without heads to read, the URLs go straight into the sitemap: the same bytes.
    let read = (1..=3)
        .map(|n| fs::read(site.path(format!("sitemap-{n}.xml"))).unwrap())
        .collect::<Vec<_>>();
    site.run(&["--max-urls", "3", "--no-html"]).success();
    for (n, bytes) in read.iter().enumerate() {
        assert_eq!(
            &fs::read(site.path(format!("sitemap-{}.xml", n + 1))).unwrap(),
            bytes
        );
    }
    let index = fs::read_to_string(site.sitemap_path()).unwrap();
    assert!(index.contains("<loc>https://example.com/sitemap-2.xml</loc>\n    <lastmod>2024-01-06T00:00:00+00:00</lastmod>"), "{index}");

    // Without lastmod, the index has none either.
    site.run(&["--max-urls", "3", "--lastmod", "none"])
        .success();
    assert!(
        split(&site.sitemap_path(), BASE)
            .iter()
            .all(|(_, urls)| urls.iter().all(|u| u.lastmod.is_none()))
    );
    let index = validate::index(&site.sitemap_path(), BASE);
    assert!(index.iter().all(|entry| entry.lastmod.is_none()));
}

#[test]
fn a_late_alternate_or_image_gives_every_shard_its_namespace() {
    // URLs go into the sitemap as they are decided until one names an alternate or an
    // image; past that, the documents are written anew from the spool, every one of them
    // declaring the extension's namespace. Here the last page of the last shard is the
    // first to name one.
    for (extra, head, body, namespace) in [
        (
            None,
            "<link rel=alternate hreflang=de href=/p00000.html>",
            "",
            "xmlns:xhtml=",
        ),
        (
            Some("--images"),
            "",
            "<main><img src=/a.png></main>",
            "xmlns:image=",
        ),
    ] {
        let site = numbered_site(7);
        site.write(
            "p00006.html",
            format!("<!doctype html><head>{head}</head><body>{body}"),
        );
        let mut args = vec!["--max-urls", "3"];
        args.extend(extra);
        site.run(&args).success();
        let shards = split(&site.sitemap_path(), BASE);
        assert_eq!(shards.len(), 3);
        for (path, _) in &shards {
            let text = fs::read_to_string(path).unwrap();
            assert!(text.contains(namespace), "{}: {text}", path.display());
        }
        let temps: Vec<_> = site
            .all_files()
            .into_iter()
            .filter(|path| {
                path.file_name()
                    .unwrap()
                    .to_string_lossy()
                    .ends_with(".tmp")
            })
            .collect();
        assert!(temps.is_empty(), "{temps:?}");
    }
}

#[test]
fn adding_a_page_at_the_end_rewrites_only_the_last_shard() {
    let site = numbered_site(7);
    site.run(&["--max-urls", "3"]).success();
    let before: Vec<Vec<u8>> = (1..=3)
        .map(|n| fs::read(site.path(format!("sitemap-{n}.xml"))).unwrap())
        .collect();
    site.page("p99999.html");
    site.run(&["--max-urls", "3"]).success();
    assert_eq!(fs::read(site.path("sitemap-1.xml")).unwrap(), before[0]);
    assert_eq!(fs::read(site.path("sitemap-2.xml")).unwrap(), before[1]);
    // The changed shard under the name the old index did not list; its old name is gone.
    assert_ne!(fs::read(site.path("sitemap-3.b.xml")).unwrap(), before[2]);
    assert!(!site.path("sitemap-3.xml").exists());
    let index = validate::index(&site.sitemap_path(), BASE);
    assert_eq!(
        locs(&index),
        ["sitemap-1.xml", "sitemap-2.xml", "sitemap-3.b.xml"].map(|n| format!("{BASE}{n}"))
    );
}

#[test]
fn shards_in_a_subdirectory_under_a_base_path() {
    let site = numbered_site(5);
    fs::create_dir(site.path("maps")).unwrap();
    let base = "https://example.com/docs/";
    site.command(&["-b", "https://example.com/docs", "--max-urls", "2", "-o"])
        .arg(site.path("maps/sitemap.xml"))
        .run()
        .success();
    let index = validate::index(&site.path("maps/sitemap.xml"), base);
    assert_eq!(
        locs(&index),
        [
            "https://example.com/docs/maps/sitemap-1.xml",
            "https://example.com/docs/maps/sitemap-2.xml",
            "https://example.com/docs/maps/sitemap-3.xml"
        ]
    );
    assert_eq!(
        all_locs(&split(&site.path("maps/sitemap.xml"), base)).len(),
        5
    );
}

#[test]
fn stale_shards_go_and_other_files_stay() {
    let site = numbered_site(7);
    site.write("sitemap-x.xml", "not ours");
    site.write("news-1.xml", "not ours");
    site.write("sitemap-1.xml.gz", "another format's shard");
    site.run(&["--max-urls", "2"]).success();
    assert!(site.path("sitemap-4.xml").exists());
    site.run(&["--max-urls", "3"]).success();
    assert!(!site.path("sitemap-4.xml").exists());
    assert_eq!(split(&site.sitemap_path(), BASE).len(), 3);
    site.run(&[]).success();
    validate::sitemap(&site.sitemap_path(), BASE);
    for gone in ["sitemap-1.xml", "sitemap-2.xml", "sitemap-3.xml"] {
        assert!(!site.path(gone).exists(), "{gone} left behind");
    }
    for kept in ["sitemap-x.xml", "news-1.xml", "sitemap-1.xml.gz"] {
        assert!(site.path(kept).exists(), "{kept} removed");
    }
}

#[test]
fn the_byte_limit_splits_before_the_count_does() {
    // ~2 KB per entry: long URLs (a 920-character directory) and a long fixed lastmod.
    let site = Site::empty();
    let dir = (b'a'..b'e')
        .map(|c| (c as char).to_string().repeat(229))
        .collect::<Vec<_>>()
        .join("/");
    fs::create_dir_all(site.path(&dir)).unwrap();
    for i in 0..26_000 {
        fs::write(
            site.path(format!("{dir}/{i:05}{}.html", "x".repeat(150))),
            "",
        )
        .unwrap();
    }
    let lastmod = format!("2024-05-01T10:00:00.{}Z", "0".repeat(900));
    site.run(&["--lastmod", &lastmod])
        .success()
        .stderr_has(&["in 2 sitemaps"]);
    let shards = split(&site.sitemap_path(), BASE);
    let first = fs::metadata(&shards[0].0).unwrap().len();
    let entry = (first - 100) / shards[0].1.len() as u64;
    assert!(
        first <= MAX_BYTES && first + entry > MAX_BYTES,
        "first shard {first} bytes"
    );
    assert!(shards[0].1.len() < 50_000);
    assert_eq!(shards[0].1.len() + shards[1].1.len(), 26_000);
}

#[test]
fn a_120001_page_site_gives_an_index_of_3_shards() {
    let site = Site::empty();
    for d in 0..=120 {
        fs::create_dir(site.path(format!("d{d:03}"))).unwrap();
        for p in 0..1000 {
            if d * 1000 + p <= 120_000 {
                fs::write(site.path(format!("d{d:03}/p{p:03}.html")), "").unwrap();
            }
        }
    }
    site.run(&["--lastmod", "2024-05-01"])
        .success()
        .stderr_has(&["wrote 120,001 URLs in 3 sitemaps"]);
    let shards = split(&site.sitemap_path(), BASE);
    let sizes: Vec<_> = shards.iter().map(|(_, urls)| urls.len()).collect();
    assert_eq!(sizes, [50_000, 50_000, 20_001]);
    assert_eq!(
        shards[2].1.last().unwrap().loc,
        "https://example.com/d120/p000.html"
    );
}

#[test]
fn gzip_gives_the_same_documents_compressed_and_reproducibly() {
    let site = numbered_site(5);
    site.run(&["--max-urls", "2"]).success();
    let plain: Vec<Vec<u8>> = (1..=3)
        .map(|n| fs::read(site.path(format!("sitemap-{n}.xml"))).unwrap())
        .collect();

    site.run(&["--max-urls", "2", "--gzip"])
        .success()
        .stderr_has(&["sitemap.xml.gz"]);
    let index_path = site.path("sitemap.xml.gz");
    let index = validate::index(&index_path, BASE);
    assert_eq!(locs(&index)[0], "https://example.com/sitemap-1.xml.gz");
    split(&index_path, BASE);
    let gz: Vec<Vec<u8>> = (1..=3)
        .map(|n| fs::read(site.path(format!("sitemap-{n}.xml.gz"))).unwrap())
        .collect();
    for (compressed, plain) in gz.iter().zip(&plain) {
        assert_eq!(&gunzip(compressed), plain);
        assert_eq!(&compressed[4..8], [0, 0, 0, 0], "gzip header mtime is 0");
        assert_eq!(compressed[3] & 0x08, 0, "no file name in the gzip header");
    }
    let first = fs::read(&index_path).unwrap();
    site.run(&["--max-urls", "2", "--gzip"]).success();
    assert_eq!(fs::read(&index_path).unwrap(), first);

    // One document: a single compressed urlset.
    site.run(&["--gzip"]).success();
    assert_eq!(validate::sitemap(&index_path, BASE).len(), 5);
    assert!(!site.path("sitemap-1.xml.gz").exists());
}

#[test]
fn a_split_to_stdout_or_outside_dir_is_a_usage_error() {
    let site = numbered_site(3);
    let run = site.run(&["--max-urls", "2", "-o", "-"]);
    run.expect_code(2)
        .stderr_has(&["standard output can carry only one file"]);
    assert_eq!(run.stdout(), b"");
    let outside = site.outside().join("sitemap.xml");
    site.command(&["--max-urls", "2", "-o"])
        .arg(&outside)
        .run()
        .expect_code(2)
        .stderr_has(&["the output lies outside DIR", "hint: "]);
    assert!(!outside.exists());
    // Unsplit, either is fine.
    site.command(&["-o"]).arg(&outside).run().success();
}

fn snapshot(site: &Site) -> Vec<(PathBuf, Vec<u8>)> {
    site.all_files()
        .into_iter()
        .filter(|p| {
            p.file_name()
                .unwrap()
                .to_string_lossy()
                .starts_with("sitemap")
        })
        .map(|p| {
            let bytes = fs::read(&p).unwrap_or_default();
            (p, bytes)
        })
        .collect()
}

#[test]
fn a_failure_mid_split_leaves_the_previous_index_and_shards() {
    let site = numbered_site(5);
    site.run(&["--max-urls", "2"]).success();
    let before = snapshot(&site);
    let files_before = site.all_files();

    // Something in the way of a shard's rename (new shards take the names the index does
    // not list).
    fs::create_dir(site.path("sitemap-3.b.xml")).unwrap();
    let in_the_way = snapshot(&site);
    site.run(&["--max-urls", "2", "--lastmod", "none"])
        .expect_code(1)
        .stderr_has(&["sitemap-3.b.xml: it is not a regular file"]);
    assert_eq!(snapshot(&site), in_the_way);
    fs::remove_dir(site.path("sitemap-3.b.xml")).unwrap();
    site.run(&["--max-urls", "2"]).success();
    assert_eq!(snapshot(&site), before);
    assert_eq!(site.all_files(), files_before, "a temp file was left");
}

#[test]
fn a_write_past_the_file_size_limit_mid_split_leaves_the_previous_index_and_shards() {
    let site = numbered_site(5);
    site.run(&["--max-urls", "2"]).success();
    let before = snapshot(&site);
    let files_before = site.all_files();
    // A write that fails part way: no file may grow past 2 blocks (1 or 2 KiB); the first
    // shard stays under that, the second, of long URLs, does not.
    let long = format!("{}/{}", "y".repeat(230), "z".repeat(230));
    for i in 0..5 {
        site.page(format!("z/{long}{i}.html"));
    }
    let run = std::process::Command::new("sh")
        .arg("-c")
        .arg("trap '' XFSZ; ulimit -f 2; exec \"$@\"")
        .arg("sh")
        .arg(crate::harness::bin())
        .args(["-b", BASE, "--max-urls", "5"])
        .arg(&site.root)
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&run.stderr);
    assert_eq!(run.status.code(), Some(1), "{stderr}");
    assert!(stderr.contains("File too large"), "{stderr}");
    assert_eq!(snapshot(&site), before);
    assert_eq!(
        site.all_files().len(),
        files_before.len() + 5,
        "a temp file was left"
    );
}
