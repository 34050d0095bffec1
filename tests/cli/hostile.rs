//! The third attack round (issue 44): what a run reads reaches a message only described,
//! escaped and cut (`report::shown`, `report::shown_path`, and the one writer of messages
//! `report::to_stderr`), and every URL a user gives goes through one gate (`url::given_url`).
//! Each case is the command as the setup.

use std::fs;
use std::os::unix::fs::symlink;

use crate::harness::Site;

/// Issue 44: `ln -s /etc/shadow L; sitemapgen --add-urls L` showed the line; so did a
/// `.env` line, and a 50 MB line was printed whole.
#[test]
fn a_line_of_an_input_file_that_is_no_url_is_described_not_shown() {
    let site = Site::with_pages(&["index.html"]);
    let shadow = site.outside().join("shadow");
    fs::write(
        &shadow,
        "root:*:20228:0:99999:7:::\ndaemon:*:20228:0:99999:7:::\n",
    )
    .unwrap();
    let link = site.outside().join("L");
    symlink(&shadow, &link).unwrap();
    let env = site.outside().join(".env");
    fs::write(&env, "DB_PASSWORD=hunter2\n").unwrap();
    for (file, secret, length) in [(&link, "root:*", 25), (&env, "hunter2", 19)] {
        let run = site.run(&["--add-urls", file.to_str().unwrap()]);
        run.expect_code(2).stderr_has(&[&format!(
            ":1: the line is not a URL: {length} characters, no http:// or https:// scheme"
        )]);
        run.shows_none_of(&[secret.to_string()]);
    }
    // 50 MB on one line, with no scheme or starting as a URL: a message of a few hundred bytes.
    for (start, said) in [
        ("x", "the line is not a URL: 52,428,814 characters"),
        ("https://example.com/", "characters more)\" is not a URL"),
    ] {
        let huge = site.outside().join("huge.txt");
        fs::write(
            &huge,
            format!("{start}{} 2024-01-01 x\n", "y".repeat(50 << 20)),
        )
        .unwrap();
        let run = site.run(&["--add-urls", huge.to_str().unwrap()]);
        run.expect_code(2).stderr_has(&[said]);
        assert!(run.stderr().len() < 1000, "{} bytes", run.stderr().len());
    }
}

/// Issue 44: a file named `ESC]0;PWNED BEL ESC[2Jevil.png` or a dangling symlink
/// `ESC[31mdang.html` drove the terminal of whoever read the log, -v or not.
#[test]
fn a_file_name_with_terminal_escapes_is_shown_escaped() {
    let site = Site::with_pages(&["index.html"]);
    site.write(b"\x1b]0;PWNED\x07\x1b[2Jevil.png", "png");
    symlink("nowhere", site.path(b"\x1b[31mdang.html")).unwrap();
    site.write(b"line\nsitemapgen: error: forged.html", "<title>x</title>");
    for verbose in [false, true] {
        let args: &[&str] = if verbose { &["-v"] } else { &[] };
        let run = site.run(args);
        run.success()
            .stderr_has(&["sitemapgen: warning: \\u{1b}[31mdang.html is a dangling symlink"]);
        if verbose {
            run.stderr_has(&[
                "skip \\u{1b}]0;PWNED\\u{7}\\u{1b}[2Jevil.png: matches no --include glob",
            ]);
        }
        assert!(
            !run.stderr()
                .lines()
                .any(|line| line.starts_with("sitemapgen: error")),
            "{}",
            run.stderr()
        );
    }
}

/// Issue 44: `-b $'https://e.com/a\nb/'` listed `https://e.com/ab/`; a space, a quote or `<`
/// was taken as `%20`, `%22`, `%3C`: a base the user never wrote.
#[test]
fn a_url_with_whitespace_control_or_delimiters_is_refused_by_every_input() {
    let site = Site::with_pages(&["index.html"]);
    let urls = site.outside().join("urls.txt");
    for hostile in [
        "https://example.com/a\nb/",
        "https://example.com/a\tb/",
        "https://example.com/a b/",
        "https://example.com/a\"b/",
        "https://example.com/a<b>/",
        "https://example.com/a\\b/",
        "https://example.com/a\u{1b}[2J/",
        " https://example.com/",
    ] {
        for flag in ["-b", "--state-url", "--previous-sitemap", "--index-add"] {
            site.run(&[flag, hostile])
                .expect_code(2)
                .stderr_has(&["holds whitespace, a control character or one of"]);
        }
        // An href, XML-escaped in the stylesheet instruction: whitespace and controls only.
        if hostile.contains(|c: char| c.is_whitespace() || c.is_control()) {
            site.run(&["--xsl", hostile])
                .expect_code(2)
                .stderr_has(&["is not a URL (no whitespace or control character"]);
        }
        fs::write(&urls, format!("{}\n", hostile.trim())).unwrap();
        if !hostile.contains(char::is_whitespace) {
            site.run(&["--add-urls", urls.to_str().unwrap()])
                .expect_code(2)
                .stderr_has(&["urls.txt:1", "holds whitespace, a control character"]);
        }
    }
    assert!(!site.sitemap_path().exists());
}

/// Issue 44: `--index-add` named the index itself through a query, `//` or `;`, and the
/// index listed itself.
#[test]
fn index_add_naming_a_file_of_the_run_in_any_served_form_is_refused() {
    let site = Site::with_pages(&["index.html", "blog/p.html"]);
    for named in [
        "https://example.com/docs/sitemap.xml?x=1",
        "https://example.com/docs/sitemap-blog.xml?",
        "https://example.com/docs//sitemap.xml",
        "https://example.com/docs/sitemap.xml;x",
        "https://example.com/docs/sitemap-1.xml?page=2",
    ] {
        site.run(&[
            "-b",
            "https://example.com/docs/",
            "--group",
            "blog=blog/**",
            "--index-add",
            named,
        ])
        .expect_code(2)
        .stderr_has(&[&format!("--index-add {named} names a file this run writes")]);
    }
    assert!(!site.sitemap_path().exists());
}

/// Issue 44: `--google-endpoint 'http://127.0.0.1:P/api/?x=1'` put the API's path in the
/// query; a base URL or endpoint has no query, fragment or empty segment.
#[test]
fn a_base_url_or_endpoint_with_a_query_fragment_or_empty_segment_is_refused() {
    let site = Site::with_pages(&["index.html"]);
    for (flag, url, said) in [
        (
            "--google-endpoint",
            "http://127.0.0.1:9/api/?x=1",
            "must not have a query",
        ),
        (
            "--google-endpoint",
            "http://127.0.0.1:9/api/#x",
            "must not have a query",
        ),
        (
            "--google-endpoint",
            "http://127.0.0.1:9/a//api/",
            "empty path segment",
        ),
        (
            "--indexnow-endpoint",
            "http://127.0.0.1:9/in?x=1",
            "must not have a query",
        ),
        (
            "--indexnow-endpoint",
            "http://127.0.0.1:9//in",
            "empty path segment",
        ),
        (
            "--base-url",
            "https://example.com/a//b/",
            "empty path segment",
        ),
    ] {
        site.run(&[flag, url])
            .expect_code(2)
            .stderr_has(&[&format!("{flag} \"{url}\" "), said]);
    }
}
