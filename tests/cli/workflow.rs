//! Fitting Makefiles and CI: --check, text sitemaps, robots.txt, the config file,
//! completions, progress.

use std::fs;

use crate::harness::{BASE, Cmd, Site};
use crate::validate::{self, locs};

fn site() -> Site {
    Site::with_pages(&["index.html", "a.html", "b/index.html", "b/c.html"])
}

#[test]
fn check_compares_without_writing() {
    let site = site();
    let missing = site.run(&["--check", "--lastmod", "none"]);
    missing
        .expect_code(1)
        .stderr_has(&["sitemap.xml is out of date: there is no sitemap yet"]);
    assert!(!site.sitemap_path().exists());

    site.run(&["--lastmod", "none"]).success();
    let files = site.all_files();
    let before = fs::read(site.sitemap_path()).unwrap();
    site.run(&["--check", "--lastmod", "none"])
        .success()
        .stderr_has(&["sitemap.xml is up to date"]);

    site.page("new.html");
    fs::remove_file(site.path("a.html")).unwrap();
    let run = site.run(&["--check", "--lastmod", "2024-05-01"]);
    run.expect_code(1).stderr_has(&[
        "is out of date: 1 added, 1 removed, 3 re-dated",
        "  + https://example.com/new.html",
        "  - https://example.com/a.html",
        "  ~ https://example.com/ (none -> 2024-05-01)",
        "hint: run sitemapgen without --check",
    ]);
    assert_eq!(
        fs::read(site.sitemap_path()).unwrap(),
        before,
        "--check wrote"
    );
    let mut now = site.all_files();
    now.retain(|p| !p.ends_with("new.html"));
    let mut was = files;
    was.retain(|p| !p.ends_with("a.html"));
    assert_eq!(now, was, "--check left files behind");

    // Split: every shard is compared, and a stale shard is a difference.
    site.run(&["--max-urls", "2", "--lastmod", "none"])
        .success();
    site.run(&["--check", "--max-urls", "2", "--lastmod", "none"])
        .success();
    fs::write(site.path("sitemap-9.xml"), "stale").unwrap();
    site.run(&["--check", "--max-urls", "2", "--lastmod", "none"])
        .expect_code(1)
        .stderr_has(&["the same URLs and dates, other changes"]);
    site.run(&["--check", "-o", "-"]).expect_code(2);
}

#[test]
fn text_sitemaps_hold_the_same_urls_one_per_line() {
    let site = site();
    site.run(&[]).success();
    let xml = validate::sitemap(&site.sitemap_path(), BASE);
    site.run(&["--format", "txt"]).success();
    let text = fs::read_to_string(site.path("sitemap.txt")).unwrap();
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(lines, locs(&xml));
    assert!(text.ends_with('\n'));

    // Split: shards only, no index (none exists for text), the unsplit file removed.
    site.run(&["--format", "txt", "--max-urls", "3", "--robots"])
        .success()
        .stderr_has(&["in 2 sitemaps"]);
    assert!(!site.path("sitemap.txt").exists());
    let shards: Vec<String> = (1..=2)
        .map(|n| fs::read_to_string(site.path(format!("sitemap-{n}.txt"))).unwrap())
        .collect();
    assert_eq!(shards.concat(), text);
    let robots = fs::read_to_string(site.path("robots.txt")).unwrap();
    assert!(robots.ends_with(
        "Sitemap: https://example.com/sitemap-1.txt\nSitemap: https://example.com/sitemap-2.txt\n"
    ));
    site.run(&["--format", "html"])
        .expect_code(2)
        .stderr_has(&["--format \"html\""]);
}

#[test]
fn robots_txt_gets_one_sitemap_line() {
    let site = site();
    site.run(&["--robots"]).success();
    assert_eq!(
        fs::read_to_string(site.path("robots.txt")).unwrap(),
        "User-agent: *\nAllow: /\n\nSitemap: https://example.com/sitemap.xml\n"
    );
    site.run(&["--robots"]).success();
    assert_eq!(
        fs::read_to_string(site.path("robots.txt")).unwrap(),
        "User-agent: *\nAllow: /\n\nSitemap: https://example.com/sitemap.xml\n",
        "not duplicated"
    );
    let crlf = "User-agent: *\r\nDisallow: /private/\r\nSITEMAP: http://old.example.org/sitemap.xml\r\n\r\n# end";
    fs::write(site.path("robots.txt"), crlf).unwrap();
    site.run(&["--robots", "--gzip"]).success();
    assert_eq!(
        fs::read_to_string(site.path("robots.txt")).unwrap(),
        "User-agent: *\r\nDisallow: /private/\r\nSitemap: https://example.com/sitemap.xml.gz\r\n\r\n# end"
    );
    let outside = site.outside().join("sitemap.xml");
    site.command(&["--robots", "-o"])
        .arg(&outside)
        .run()
        .expect_code(2)
        .stderr_has(&["--robots needs the output inside DIR"]);
}

#[test]
fn the_config_file_sits_under_the_command_line() {
    let site = site();
    let dir = site.outside();
    fs::write(
        dir.join("sitemapgen.toml"),
        format!(
            "base-url = \"https://config.example.com/\"\ndir = \"{}\"\nlastmod = \"2024-01-01\"\n\
             exclude = [\"b/\"]\nquiet = true\nmax-urls = 50000\n",
            site.root.display()
        ),
    )
    .unwrap();
    // Everything from the file.
    let run = Cmd::new().current_dir(dir).run();
    run.success();
    assert_eq!(run.stderr(), "", "quiet from the file");
    let urls = validate::sitemap(&site.sitemap_path(), "https://config.example.com/");
    assert_eq!(
        locs(&urls),
        [
            "https://config.example.com/",
            "https://config.example.com/a.html"
        ]
    );
    assert!(
        urls.iter()
            .all(|u| u.lastmod.as_deref() == Some("2024-01-01"))
    );

    // Flags win, a repeatable flag replaces the file's list, -v silences the file's quiet.
    let run = Cmd::new()
        .current_dir(dir)
        .args(["-b", BASE, "--lastmod", "none", "--exclude", "a.html", "-v"])
        .run();
    run.success().stderr_has(&["wrote 3 URLs"]);
    let urls = validate::sitemap(&site.sitemap_path(), BASE);
    assert_eq!(
        locs(&urls),
        [
            BASE,
            "https://example.com/b/",
            "https://example.com/b/c.html"
        ]
    );
    assert!(urls.iter().all(|u| u.lastmod.is_none()));

    // --no-config, and --config naming another file.
    Cmd::new()
        .current_dir(dir)
        .arg("--no-config")
        .run()
        .expect_code(2)
        .stderr_has(&["--base-url is required"]);
    let other = dir.join("other.toml");
    fs::write(
        &other,
        format!("base-url = \"{BASE}\"\ndir = \"{}\"\n", site.root.display()),
    )
    .unwrap();
    Cmd::new()
        .current_dir(dir)
        .arg("--config")
        .arg(&other)
        .run()
        .success();
    Cmd::new()
        .current_dir(dir)
        .args(["--config", "missing.toml"])
        .run()
        .expect_code(2)
        .stderr_has(&["cannot read config file missing.toml"]);
}

#[test]
fn every_config_error_names_the_key_and_the_file() {
    let site = site();
    let cases = [
        ("colour = true", "unknown key \"colour\""),
        ("completions = \"bash\"", "unknown key \"completions\""),
        ("hidden = \"yes\"", "key \"hidden\" must be true or false"),
        (
            "include = \"*.html\"",
            "key \"include\" must be an array of strings",
        ),
        (
            "include = [1]",
            "key \"include\" must be an array of strings",
        ),
        ("lastmod = [\"none\"]", "key \"lastmod\" must be a string"),
        ("base-url = ", "is not valid TOML"),
    ];
    let config = site.outside().join("bad.toml");
    for (text, message) in cases {
        fs::write(&config, text).unwrap();
        site.command(&["--config"])
            .arg(&config)
            .run()
            .expect_code(2)
            .stderr_has(&["sitemapgen: error: ", "bad.toml", message]);
    }
    // A value of the right type but wrong for its option fails as the flag would.
    fs::write(&config, "max-urls = 0").unwrap();
    site.command(&["--config"])
        .arg(&config)
        .run()
        .expect_code(2)
        .stderr_has(&["--max-urls"]);
}

#[test]
fn completions_for_each_shell() {
    for (shell, marker) in [
        ("bash", "complete -F"),
        ("zsh", "#compdef sitemapgen"),
        ("fish", "complete -c sitemapgen"),
    ] {
        let run = Cmd::new().args(["--completions", shell]).run();
        run.success();
        let script = String::from_utf8_lossy(run.stdout()).into_owned();
        assert!(script.contains(marker), "{shell}: {script}");
        assert!(
            script.contains("base-url"),
            "{shell} script lacks the options"
        );
    }
    Cmd::new()
        .args(["--completions", "bash", "-b", BASE])
        .run()
        .expect_code(2);
}

#[test]
fn progress_never_shows_in_captured_output() {
    let site = Site::empty();
    for i in 0..3000 {
        site.page(format!("p{i}.html"));
    }
    let run = site.command(&[]).env("CI", "").run();
    run.success();
    let stderr = run.stderr();
    assert!(
        !stderr.contains('\r') && !stderr.contains("URLs,"),
        "{stderr}"
    );
    assert_eq!(stderr.lines().count(), 1);
}
