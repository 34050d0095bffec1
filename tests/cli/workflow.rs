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
        .stderr_has(&["in 2 text sitemaps"]);
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

    // --no-config, and --config naming another file. What is missing is told as clap tells
    // any mistake on the command line: with the usage, and a pointer to --help.
    Cmd::new()
        .current_dir(dir)
        .arg("--no-config")
        .run()
        .expect_code(2)
        .stderr_has(&[
            "sitemapgen: error: --base-url is required (on the command line, or in \
             sitemapgen.toml)\n\nUsage: sitemapgen [OPTIONS] --base-url <URL> <DIR>\n",
            "\n\nFor more information, try '--help'.\n",
        ]);
    Cmd::new()
        .current_dir(dir)
        .args(["--no-config", "-b", BASE])
        .run()
        .expect_code(2)
        .stderr_has(&["error: DIR is required", "\nUsage: ", "try '--help'"]);
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
        // TOML's usual snake_case, and a typo: the key meant, as clap suggests a flag.
        (
            "base_url = \"https://example.com/\"",
            "unknown key \"base_url\"; did you mean \"base-url\"?",
        ),
        (
            "exlude = [\"drafts/**\"]",
            "unknown key \"exlude\"; did you mean \"exclude\"?",
        ),
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
        // The command line gives -b and DIR: the file's mistakes show all the same.
        (
            "base-url = [\"https://example.com/\"]",
            "key \"base-url\" must be a string",
        ),
        ("dir = 5", "key \"dir\" must be a string"),
        ("max-urls = true", "key \"max-urls\" must be a number"),
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
    // A value of the right type but wrong for its option fails as the flag would, naming
    // the key and the file.
    let cases = [
        ("max-urls = 0", "key \"max-urls\"", "--max-urls"),
        (
            "lastmod = \"yesterday\"",
            "key \"lastmod\"",
            "--lastmod \"yesterday\"",
        ),
        ("format = \"html\"", "key \"format\"", "--format \"html\""),
        ("max-churn = 500", "key \"max-churn\"", "--max-churn 500"),
        ("max-urls = -1", "key \"max-urls\"", "'-1'"),
        ("max-churn = -2.5", "key \"max-churn\"", "--max-churn -2.5"),
        (
            "exclude = [\"--x/[\"]",
            "key \"exclude\"",
            "\"--x/[\" is not a valid glob",
        ),
        (
            "include = [\"a/[b\"]",
            "key \"include\"",
            "is not a valid glob",
        ),
        (
            "changefreq = [\"*=Daily\"]",
            "key \"changefreq\"",
            "\"Daily\"",
        ),
        (
            "digest-ignore = [\"(\"]",
            "key \"digest-ignore\"",
            "not a valid regex",
        ),
    ];
    for (text, key, message) in cases {
        fs::write(&config, text).unwrap();
        site.command(&["--config"])
            .arg(&config)
            .run()
            .expect_code(2)
            .stderr_has(&["sitemapgen: error: config file ", "bad.toml", key, message]);
    }
    // A setting of the file that breaks a rule of how flags combine is named by its key, the
    // command line's flags counting as the file's do; a flag given as false is absent.
    let cases: [(&str, &[&str], &str); 9] = [
        // Checked as the settings are built, by the flag the key stands for.
        (
            "output = \"x.gz\"",
            &[],
            "key \"output\": -o x.gz ends in .gz",
        ),
        (
            "lastmod = \"none\"",
            &["--state", "s"],
            "key \"lastmod\": --state keeps dates, and --lastmod none writes none",
        ),
        (
            "images = true",
            &["--no-html"],
            "key \"images\": --images reads the pages, and --no-html reads none",
        ),
        (
            "digest = \"bytes\"",
            &[],
            "key \"digest\": --digest needs --state",
        ),
        (
            "images = true\nimage-host = [\"cdn.example.com\"]",
            &["--images=false"],
            "key \"image-host\": --image-host needs --images",
        ),
        (
            "check = true",
            &["--summary-json", "-"],
            "key \"check\": --check writes nothing",
        ),
        // A hint gives the line to write in the file, not the flag.
        ("output = \"x.gz\"", &[], "\nhint: add gzip = true (in "),
        (
            "digest = \"bytes\"",
            &[],
            "\nhint: add state = \"FILE\" to ",
        ),
        (
            "digest-region = \"main\"",
            &[],
            "\nhint: add state = \"FILE\" or images = true to ",
        ),
    ];
    for (text, args, message) in cases {
        fs::write(&config, text).unwrap();
        site.command(args)
            .arg("--config")
            .arg(&config)
            .run()
            .expect_code(2)
            .stderr_has(&["sitemapgen: error: config file ", "bad.toml: ", message]);
    }
    fs::write(&config, "images = true").unwrap();
    let run = site
        .command(&["--images=false", "--no-html", "-o", "-", "--config"])
        .arg(&config)
        .run();
    run.success();
    validate::sitemap_bytes(run.stdout(), BASE);
    let cases: [(&str, &[&str]); 2] = [
        (
            "base-url = \"ftp://x.example.com/\"",
            &[
                "config file ",
                "bad.toml: key \"base-url\": ",
                "http or https",
            ],
        ),
        (
            "base-url = \"example.com\"",
            &["\nhint: base-url = \"https://example.com/\" (in "],
        ),
    ];
    for (text, parts) in cases {
        fs::write(&config, text).unwrap();
        Cmd::new()
            .arg("--config")
            .arg(&config)
            .arg(&site.root)
            .run()
            .expect_code(2)
            .stderr_has(parts);
    }
}

#[test]
fn config_settings_count_for_the_flags_that_need_them_and_flags_turn_them_off() {
    let site = site();
    let dir = site.outside();
    let state = dir.join("sitemap.state");
    fs::write(
        dir.join("sitemapgen.toml"),
        format!(
            "base-url = \"{BASE}\"\ndir = \"{}\"\nstate = \"{}\"\nrobots = true\n",
            site.root.display(),
            state.display()
        ),
    )
    .unwrap();
    // The hint a refused churn gives works: --max-churn needs the config's state.
    Cmd::new().current_dir(dir).run().success();
    Cmd::new()
        .current_dir(dir)
        .args(["--max-churn", "50"])
        .run()
        .success()
        .stderr_has(&["0 re-dated"]);
    // A preview on standard output takes no robots.txt from the config, and writes none.
    fs::remove_file(site.path("robots.txt")).unwrap();
    let run = Cmd::new().current_dir(dir).args(["-o", "-"]).run();
    run.success();
    validate::sitemap_bytes(run.stdout(), BASE);
    assert!(!site.path("robots.txt").exists());
    // A flag turns off what the file turns on.
    Cmd::new()
        .current_dir(dir)
        .arg("--robots=false")
        .run()
        .success();
    assert!(!site.path("robots.txt").exists());
    Cmd::new().current_dir(dir).run().success();
    assert!(site.path("robots.txt").exists());
    // On the command line alone, --robots with -o - is refused.
    site.run(&["--robots", "-o", "-"])
        .expect_code(2)
        .stderr_has(&["-o - is a preview and writes no robots.txt"]);
    site.run(&["--gzip=maybe"])
        .expect_code(2)
        .stderr_has(&["invalid value 'maybe' for '--gzip'"]);
    // Any of clap's words for true or false.
    fs::remove_file(site.path("robots.txt")).unwrap();
    Cmd::new()
        .current_dir(dir)
        .args(["--robots=no", "--gzip=yes", "-o"])
        .arg(site.path("sitemap.xml.gz"))
        .run()
        .success();
    assert!(!site.path("robots.txt").exists());
    let gzipped = fs::read(site.path("sitemap.xml.gz")).unwrap();
    validate::sitemap_bytes(&validate::gunzip(&gzipped), BASE);
}

#[test]
fn a_preview_on_standard_output_writes_no_state() {
    let site = site();
    let state = site.outside().join("sitemap.state");
    site.command(&["--state"]).arg(&state).run().success();
    let before = fs::read(&state).unwrap();
    site.write("a.html", "<p>changed</p>");
    let run = site.command(&["-o", "-", "--state"]).arg(&state).run();
    run.success().stderr_has(&["1 re-dated"]);
    assert_eq!(
        fs::read(&state).unwrap(),
        before,
        "the preview wrote the state"
    );
    // So the real run still sees the change, and --max-churn with it.
    site.command(&["--state"])
        .arg(&state)
        .run()
        .success()
        .stderr_has(&["1 re-dated"]);
    let fresh = site.outside().join("fresh.state");
    site.command(&["-o", "-", "--state"])
        .arg(&fresh)
        .run()
        .success();
    assert!(!fresh.exists());
}

#[test]
fn robots_txt_keeps_a_foreign_sitemap_line_that_only_ends_like_ours() {
    let site = site();
    let theirs = "User-agent: *\nSitemap: https://example.com/blog/sitemap.xml\n\
                  Sitemap: https://example.com/sitemap.xml?v=2\n";
    fs::write(site.path("robots.txt"), theirs).unwrap();
    site.run(&["--robots"]).success();
    assert_eq!(
        fs::read_to_string(site.path("robots.txt")).unwrap(),
        format!("{theirs}Sitemap: https://example.com/sitemap.xml\n")
    );
    // Ours, moved from http to https, is replaced where it stood.
    fs::write(
        site.path("robots.txt"),
        "Sitemap: http://example.com/sitemap.xml\nUser-agent: *\n",
    )
    .unwrap();
    site.run(&["--robots"]).success();
    assert_eq!(
        fs::read_to_string(site.path("robots.txt")).unwrap(),
        "Sitemap: https://example.com/sitemap.xml\nUser-agent: *\n"
    );
}

#[test]
fn robots_under_a_path_prefix_warns_that_crawlers_will_not_read_it() {
    let site = site();
    site.run(&["-b", "https://example.com/docs/", "--robots"])
        .success()
        .stderr_has(&[
            "warning: crawlers read robots.txt only at the root of a host",
            "https://example.com/docs/robots.txt",
        ]);
    site.run(&["-b", "https://example.com/docs/", "--robots", "--strict"])
        .expect_code(1);
}

#[test]
fn check_covers_robots_txt_churn_and_a_damaged_index() {
    let site = site();
    let state = site.outside().join("sitemap.state");
    site.command(&["--state"]).arg(&state).run().success();
    // robots.txt without our line is a difference under --robots.
    site.command(&["--check", "--robots", "--state"])
        .arg(&state)
        .run()
        .expect_code(1)
        .stderr_has(&["robots.txt does not name the sitemap"]);
    site.command(&["--robots", "--state"])
        .arg(&state)
        .run()
        .success();
    site.command(&["--check", "--robots", "--state"])
        .arg(&state)
        .run()
        .success();
    // Past --max-churn, --check still shows what differs.
    for page in ["a.html", "b/c.html"] {
        site.write(page, "<p>new</p>");
    }
    site.command(&[
        "--check",
        "--max-churn",
        "10",
        "--lastmod",
        "2030-01-01",
        "--state",
    ])
    .arg(&state)
    .run()
    .expect_code(1)
    .stderr_has(&[
        "is out of date: 0 added, 0 removed, 2 re-dated",
        "  ~ https://example.com/a.html",
        "more than --max-churn 10%",
    ]);
    // A damaged index naming the directory is a difference, not an error about it.
    fs::write(
        site.sitemap_path(),
        "<?xml version=\"1.0\"?><sitemapindex><sitemap><loc>https://example.com/</loc>\
         </sitemap><sitemap><loc>https://example.com/../x</loc></sitemap></sitemapindex>",
    )
    .unwrap();
    let run = site.run(&["--check"]);
    run.expect_code(1).stderr_has(&["is out of date: "]);
    assert!(!run.stderr().contains("Is a directory"), "{}", run.stderr());
    // A text sitemap shows no date, so its bytes do not change: the churn stop names the
    // URLs it would re-date, with its hint the only one.
    let text_state = site.outside().join("text.state");
    let text_run = |extra: &[&str]| {
        site.command(&[&["--format", "txt"], extra, &["--state"]].concat())
            .arg(&text_state)
            .run()
    };
    text_run(&[]).success();
    for page in ["a.html", "b/c.html"] {
        site.write(page, "<p>newer</p>");
    }
    let run = text_run(&["--check", "--max-churn", "10"]);
    run.expect_code(1).stderr_has(&[
        "2 of 4 known URLs (50.0%) would get a new lastmod, more than --max-churn 10%",
        "\n  ~ https://example.com/a.html\n  ~ https://example.com/b/c.html\nhint: ",
    ]);
    assert_eq!(run.stderr().matches("hint:").count(), 1, "{}", run.stderr());
    assert!(!run.stderr().contains("out of date"), "{}", run.stderr());
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
    // Words are offered for the flags that take words, not file names.
    let run = Cmd::new().args(["--completions", "bash"]).run();
    let script = String::from_utf8_lossy(run.stdout()).into_owned();
    for words in [
        "\"xml txt\"",
        "\"mtime git none page page,git page,none\"",
        "\"content bytes\"",
    ] {
        assert!(script.contains(words), "bash lacks {words}");
    }
    let help = Cmd::new().arg("--help").run();
    let help = String::from_utf8_lossy(help.stdout()).into_owned();
    assert!(
        help.contains("(bash, elvish, fish, powershell or zsh)"),
        "{help}"
    );
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

#[test]
fn urls_robots_txt_disallows_are_left_out_where_crawlers_read_it() {
    let site = site();
    site.page("private/p.html");
    fs::write(
        site.path("robots.txt"),
        "User-agent: *\nDisallow: /private/\nDisallow: /*.html$\nAllow: /a.html$\n",
    )
    .unwrap();
    site.run(&["-v"]).success().stderr_has(&[
        "skip private/p.html: robots.txt disallows its URL",
        "skip b/c.html: robots.txt disallows its URL",
        "2 disallowed by robots.txt",
    ]);
    assert_eq!(
        locs(&validate::sitemap(&site.sitemap_path(), BASE)),
        [BASE, "https://example.com/a.html", "https://example.com/b/"]
    );
    // Under a path prefix, DIR/robots.txt is no robots.txt a crawler reads.
    let docs = "https://example.com/docs/";
    site.run(&["-b", docs]).success();
    assert_eq!(validate::sitemap(&site.sitemap_path(), docs).len(), 5);
    site.run(&["--ignore-disallow"]).success();
    assert_eq!(validate::sitemap(&site.sitemap_path(), BASE).len(), 5);
}

#[test]
fn summary_json_counts_the_run_in_its_documented_shape() {
    let site = site();
    site.write(
        "hidden.html",
        "<html><head><meta name=robots content=noindex></head><body>x</body></html>",
    );
    site.write("style.css", "body {}");
    let state = site.outside().join("sitemap.state");
    let summary = site.outside().join("summary.json");
    let run = |extra: &[&str]| {
        let mut cmd = site.command(extra);
        cmd.arg("--state")
            .arg(&state)
            .arg("--summary-json")
            .arg(&summary);
        let run = cmd.run();
        run.success();
        let text = fs::read_to_string(&summary).unwrap();
        let json: serde_json::Value = serde_json::from_str(&text).unwrap();
        // The summary line on stderr is the JSON's, word for word.
        assert!(run.stderr().lines().any(|l| l == json["summary"]), "{text}");
        (text, json)
    };
    let (text, json) = run(&[]);
    assert!(
        text.starts_with("{\n  \"version\": 1,\n  \"listed\": 4,\n"),
        "{text}"
    );
    let left_out = json["left_out"].as_object().unwrap();
    let keys: Vec<&str> = left_out.keys().map(String::as_str).collect();
    let mut all = vec![
        "canonical",
        "default_excluded",
        "duplicate",
        "elsewhere",
        "excluded",
        "hidden",
        "noindex",
        "not_page",
        "redirect",
        "robots",
        "too_long",
        "unusable",
    ];
    all.sort_unstable();
    assert_eq!(keys, all);
    assert_eq!(json["left_out"]["noindex"], 1);
    assert_eq!(json["left_out"]["not_page"], 1);
    assert_eq!(json["left_out"]["redirect"], 0);
    assert_eq!(
        json["since_state"],
        serde_json::json!({"added": 4, "removed": 0, "redated": 0, "kept": 0})
    );
    // The sitemap and the state.
    assert_eq!(json["files_written"], 2);

    fs::write(
        site.path("a.html"),
        "<html><body><main>new</main></body></html>",
    )
    .unwrap();
    fs::remove_file(site.path("b/c.html")).unwrap();
    let (_, json) = run(&["--lastmod", "2024-05-01", "--robots"]);
    assert_eq!(json["listed"], 3);
    assert_eq!(
        json["since_state"],
        serde_json::json!({"added": 0, "removed": 1, "redated": 1, "kept": 2})
    );
    // The sitemap, the state and robots.txt.
    assert_eq!(json["files_written"], 3);

    // `-`: standard output, the JSON alone there; none without --state.
    let out = site.run(&["-q", "--summary-json", "-"]);
    out.success();
    let json: serde_json::Value = serde_json::from_slice(out.stdout()).unwrap();
    assert_eq!(json["version"], 1);
    assert_eq!(json["since_state"], serde_json::Value::Null);
    assert!(out.stderr().is_empty(), "{}", out.stderr());
    validate::sitemap(&site.sitemap_path(), BASE);
}
