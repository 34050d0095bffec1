//! Names Windows opens otherwise than a folder lists them: a device's name (`nul.html`), a
//! name ending in a dot or a space, names that differ only in case; and the outputs'
//! names, compared as the file system compares them. The trees are made here, on Unix,
//! which names them all as they are; the Windows build (run under Wine by
//! scripts/windows.sh) sees the same trees. Each test asserts the Windows rule when the
//! program under test is the Windows build, and the unchanged Unix behaviour otherwise.

use std::fs;

use crate::harness::{BASE, OLD_SITEMAP, Site, windows_binary};
use crate::validate::listed;

/// A warning line of the run's stderr that names `name` and says `why`.
fn warned(stderr: &str, name: &str, why: &str) -> bool {
    stderr.lines().any(|line| {
        line.starts_with("sitemapgen: warning: ") && line.contains(name) && line.contains(why)
    })
}

#[test]
fn device_names_are_left_out_on_windows_and_pages_on_unix() {
    let site = Site::with_pages(&[
        "index.html",
        "nul.html",
        "Con.html",
        "aux.tar.html",
        "prn .html",
        "com1.html",
        "LPT9.htm",
        "aux/page.html",
        // Not devices: a digit 0, a longer name, a name that only begins like one.
        "com0.html",
        "console.html",
        "nul-page.html",
    ]);
    // -v: every warning shown.
    let run = site.run(&["-v"]);
    run.success();
    let listed = listed(&site.sitemap_path(), BASE);
    if windows_binary() {
        assert_eq!(
            listed,
            ["", "com0.html", "console.html", "nul-page.html"],
            "{}",
            run.stderr()
        );
        let stderr = run.stderr();
        for (name, device) in [
            ("nul.html", "nul"),
            ("Con.html", "Con"),
            ("aux.tar.html", "aux"),
            ("prn .html", "prn"),
            ("com1.html", "com1"),
            ("LPT9.htm", "LPT9"),
            ("aux", "aux"),
        ] {
            let why = format!("the name is that of the device {device} on Windows");
            let path = format!("/{name}: ");
            assert!(
                warned(&stderr, &path, &why),
                "no warning for {name}:\n{stderr}"
            );
        }
        // --strict makes it an error, nothing written.
        let before = fs::read(site.sitemap_path()).unwrap();
        site.run(&["--strict"])
            .expect_code(1)
            .stderr_has(&["Con.html: the name is that of the device Con on Windows"]);
        assert_eq!(fs::read(site.sitemap_path()).unwrap(), before);
    } else {
        assert_eq!(
            listed,
            [
                "",
                "Con.html",
                "LPT9.htm",
                "aux/page.html",
                "aux.tar.html",
                "com0.html",
                "com1.html",
                "console.html",
                "nul-page.html",
                "nul.html",
                "prn%20.html",
            ]
        );
        assert!(!run.stderr().contains("warning"), "{}", run.stderr());
    }
}

#[test]
fn names_ending_in_a_dot_or_a_space_are_left_out_on_windows() {
    let site = Site::with_pages(&["a.html", "b.html.", "c.html ", "d./e.html"]);
    let run = site.run(&["--include", "*.html*"]);
    run.success();
    let listed = listed(&site.sitemap_path(), BASE);
    if windows_binary() {
        assert_eq!(listed, ["a.html"], "{}", run.stderr());
        let stderr = run.stderr();
        for name in ["b.html.", "c.html ", "d."] {
            assert!(
                warned(&stderr, &format!("/{name}: "), "ends in a dot or a space"),
                "no warning for {name:?}:\n{stderr}"
            );
        }
    } else {
        assert_eq!(listed, ["a.html", "b.html.", "c.html%20", "d./e.html"]);
    }
}

#[test]
fn names_that_differ_only_in_case_are_listed_only_when_each_opens_its_own_file() {
    let site = Site::empty();
    // Two files: each name must reach its own (A.html says noindex, a.html does not).
    site.write(
        "A.html",
        "<!doctype html><meta name=robots content=noindex><title>A</title>\n",
    );
    site.page("a.html");
    // One file by two names: a lookup that folded case would reach it as well, so the
    // names cannot be told apart by the file they open.
    site.page("B.html");
    fs::hard_link(site.path("B.html"), site.path("b.html")).unwrap();
    site.page("Docs/x.html");
    site.page("docs/y.html");
    let run = site.run(&[]);
    run.success();
    let listed = listed(&site.sitemap_path(), BASE);
    if windows_binary() {
        assert_eq!(
            listed,
            ["Docs/x.html", "a.html", "docs/y.html"],
            "{}",
            run.stderr()
        );
        let stderr = run.stderr();
        let line = stderr
            .lines()
            .find(|line| line.contains("differ only in case"))
            .unwrap_or_else(|| panic!("no warning:\n{stderr}"));
        assert!(
            line.contains("B.html, ") && line.contains("/b.html"),
            "{line}"
        );
        assert!(line.ends_with("; none listed"), "{line}");
        assert_eq!(stderr.matches("differ only in case").count(), 1, "{stderr}");
    } else {
        assert_eq!(
            listed,
            ["B.html", "Docs/x.html", "a.html", "b.html", "docs/y.html"]
        );
        assert!(!run.stderr().contains("warning"), "{}", run.stderr());
    }
}

#[test]
fn a_listed_file_named_as_a_device_is_an_error_on_windows() {
    let site = Site::with_pages(&["a.html", "nul.html", "aux/b.html"]);
    site.write("sitemap.xml", OLD_SITEMAP);
    for (list, message) in [
        (
            "a.html\nnul.html\n",
            "listed file nul.html: the name is that of the device nul",
        ),
        (
            "aux/b.html\n",
            "listed file aux/b.html: aux: the name is that of the device aux",
        ),
    ] {
        let run = site.command(&["--files-from", "-"]).stdin(list).run();
        if windows_binary() {
            run.expect_code(1)
                .stderr_has(&["sitemapgen: error: ", message]);
            assert_eq!(
                fs::read(site.sitemap_path()).unwrap(),
                OLD_SITEMAP.as_bytes()
            );
        } else {
            run.success();
            let pages: Vec<&str> = list.lines().collect();
            assert_eq!(listed(&site.sitemap_path(), BASE), pages);
        }
    }
}

#[test]
fn an_output_named_as_a_device_is_refused_on_windows_and_nothing_changes() {
    let site = Site::with_pages(&["index.html"]);
    site.write("sitemap.xml", OLD_SITEMAP);
    let state = site.outside().join("Aux.state");
    fs::create_dir(site.outside().join("aux")).unwrap();
    let cases: [(&[&str], &str); 4] = [
        (
            &["-o", "site/nul.xml"],
            "-o site/nul.xml: nul.xml is the device nul on Windows",
        ),
        (
            &["-o", "site/com3"],
            "-o site/com3: com3 is the device com3 on Windows",
        ),
        (
            &["-o", "aux/sitemap.xml"],
            "-o aux/sitemap.xml: aux is the device aux on Windows",
        ),
        (
            &["--state", "x.state", "--changes", "prn.changes"],
            "--changes prn.changes: prn.changes is the device prn on Windows",
        ),
    ];
    for (args, message) in cases {
        let before = site.all_files();
        let run = site.command(args).run();
        if windows_binary() {
            run.expect_code(2)
                .stderr_has(&["sitemapgen: error: ", message]);
            assert_eq!(site.all_files(), before);
            assert_eq!(
                fs::read(site.sitemap_path()).unwrap(),
                OLD_SITEMAP.as_bytes()
            );
        } else {
            run.success();
        }
    }
    let run = site.command(&["--state"]).arg(&state).run();
    if windows_binary() {
        run.expect_code(2)
            .stderr_has(&["Aux.state is the device Aux on Windows"]);
        assert!(!state.exists());
        assert_eq!(
            fs::read(site.sitemap_path()).unwrap(),
            OLD_SITEMAP.as_bytes()
        );
    } else {
        run.success();
        assert!(
            fs::read_to_string(&state)
                .unwrap()
                .starts_with("sitemapgen-state ")
        );
    }
}

#[test]
fn outputs_are_compared_as_windows_compares_names() {
    // A generator's own Sitemap.xml: on Windows the file sitemap.xml is, which the run
    // replaces and never lists; on Unix a file of its own, listed as any page.
    let site = Site::with_pages(&["index.html"]);
    site.write("Sitemap.xml", OLD_SITEMAP);
    let run = site.run(&["--include", "*.html", "--include", "*.xml"]);
    run.success();
    let names = |site: &Site| {
        let mut names: Vec<String> = fs::read_dir(&site.root)
            .unwrap()
            .map(|entry| entry.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        names.sort();
        names
    };
    if windows_binary() {
        let names = names(&site);
        let [name] = names
            .iter()
            .filter(|name| name.eq_ignore_ascii_case("sitemap.xml"))
            .collect::<Vec<_>>()[..]
        else {
            panic!("one sitemap expected: {names:?}");
        };
        assert_eq!(
            listed(&site.root.join(name), BASE),
            [""],
            "{}",
            run.stderr()
        );
    } else {
        assert_eq!(names(&site), ["Sitemap.xml", "index.html", "sitemap.xml"]);
        assert_eq!(listed(&site.sitemap_path(), BASE), ["", "Sitemap.xml"]);
        assert_eq!(
            fs::read(site.path("Sitemap.xml")).unwrap(),
            OLD_SITEMAP.as_bytes()
        );
    }

    // Someone's SITEMAP.XML that is no sitemap: on Windows the output would replace it.
    let site = Site::with_pages(&["index.html"]);
    site.write("SITEMAP.XML", "my notes\n");
    let run = site.run(&[]);
    if windows_binary() {
        run.expect_code(2)
            .stderr_has(&["exists and is not a sitemap"]);
        assert_eq!(names(&site), ["SITEMAP.XML", "index.html"]);
        assert_eq!(fs::read(site.path("SITEMAP.XML")).unwrap(), b"my notes\n");
    } else {
        run.success();
        assert_eq!(listed(&site.sitemap_path(), BASE), [""]);
        assert_eq!(fs::read(site.path("SITEMAP.XML")).unwrap(), b"my notes\n");
    }
}

#[test]
fn a_state_read_by_the_run_is_replaced_on_every_platform_and_no_temp_file_stays() {
    // Windows does not rename over a file that is open: the previous state, kept for a way
    // back while the new one is published, must not hold the name it leaves.
    let site = Site::with_pages(&["index.html", "a.html"]);
    let state = site.outside().join("sitemap.state");
    let state_arg = state.to_str().unwrap();
    site.run(&["--state", state_arg]).success();
    let files = site.all_files();
    site.write("b.html", "<html><body>b</body></html>");
    site.run(&["--state", state_arg])
        .success()
        .stderr_has(&["since the state: 1 added, 0 removed"]);
    let text = fs::read_to_string(&state).unwrap();
    assert!(text.contains("\n/b.html "), "{text}");
    let mut now = site.all_files();
    now.retain(|path| !path.ends_with("b.html"));
    assert_eq!(now, files, "a temp file stayed");
}

#[test]
fn each_test_the_windows_run_skips_is_named_once_and_says_why() {
    let list = fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/cli/unix-only.txt"
    ))
    .unwrap();
    let mut seen = std::collections::BTreeSet::new();
    for line in list
        .lines()
        .filter(|line| !line.is_empty() && !line.starts_with('#'))
    {
        let (name, why) = line.split_once("  ").unwrap_or((line, ""));
        assert!(!why.trim().is_empty(), "no reason given: {line}");
        assert!(seen.insert(name), "named twice: {name}");
        let (module, test) = name.split_once("::").unwrap();
        let file = format!("{}/tests/cli/{module}.rs", env!("CARGO_MANIFEST_DIR"));
        let source = fs::read_to_string(&file).unwrap_or_default();
        assert!(
            source.contains(&format!("\nfn {test}() {{")),
            "{name} is no test in {file}"
        );
    }
}
