//! --files-from: a list stands in for the walk; the rules still apply.

use std::fs;
use std::os::unix::fs::symlink;
use std::process::Command;

use crate::harness::{BASE, Site, os_says, windows_binary};
use crate::validate::{self, locs};

fn site() -> Site {
    Site::with_pages(&[
        "index.html",
        "a.html",
        "b/index.html",
        "b/c.html",
        "drafts/d.html",
        "x.css",
    ])
}

#[test]
fn a_list_gives_the_same_sitemap_as_the_walk() {
    let site = site();
    site.run(&["--exclude", "drafts/"]).success();
    let walked = fs::read(site.sitemap_path()).unwrap();
    let abs = site.path("b/c.html");
    // Unsorted, relative and absolute, `./` and `..`, a repeat, an empty line, directories.
    let list = format!(
        ".\nx.css\n./b/index.html\n{}\n\nb/../a.html\nindex.html\ndrafts/d.html\na.html\nb\n",
        abs.display()
    );
    site.command(&["--exclude", "drafts/", "--files-from", "-"])
        .stdin(list.clone())
        .run()
        .success()
        .stderr_has(&["(left out: 1 by --exclude; 1 file that is not a page)"]);
    assert_eq!(fs::read(site.sitemap_path()).unwrap(), walked);

    let list_file = site.outside().join("list.txt");
    fs::write(&list_file, list).unwrap();
    site.command(&["--exclude", "drafts/", "--files-from"])
        .arg(&list_file)
        .run()
        .success();
    assert_eq!(fs::read(site.sitemap_path()).unwrap(), walked);
}

#[test]
fn a_nul_separated_list_carries_any_name() {
    let site = site();
    // A Windows name holds no control character.
    let (name, url): (&[u8], _) = if windows_binary() {
        (b"new line.html", "https://example.com/new%20line.html")
    } else {
        (b"new\nline.html", "https://example.com/new%0Aline.html")
    };
    site.page(name);
    site.command(&["--files-from", "-", "-0"])
        .stdin([name, b"\0a.html\0"].concat())
        .run()
        .success();
    let urls = validate::sitemap(&site.sitemap_path(), BASE);
    assert_eq!(locs(&urls), ["https://example.com/a.html", url]);
}

#[test]
fn hidden_and_excluded_directories_apply_to_listed_files() {
    let site = site();
    site.page(".hidden/p.html");
    site.command(&["--files-from", "-", "--exclude", "drafts/", "-v"])
        .stdin("drafts/d.html\n.hidden/p.html\na.html\n")
        .run()
        .success()
        .stderr_has(&[
            "skip drafts/d.html: inside drafts: --exclude drafts/",
            "skip .hidden/p.html: inside .hidden: hidden (use --hidden)",
        ]);
    let urls = validate::sitemap(&site.sitemap_path(), BASE);
    assert_eq!(locs(&urls), ["https://example.com/a.html"]);
}

#[test]
fn listed_directories_symlinks_and_other_files_are_left_out_as_the_walk_leaves_them() {
    let site = site();
    site.page("real/r.html");
    symlink("real", site.path("linkdir")).unwrap();
    symlink("a.html", site.path("alias.html")).unwrap();
    symlink("nowhere.html", site.path("gone.html")).unwrap();
    let fifo = site.path("fifo.html");
    let made = Command::new("mkfifo").arg(&fifo).status().unwrap();
    assert!(made.success());
    site.run(&[]).success();
    let list = "b\nlinkdir\nalias.html\ngone.html\nfifo.html\ndrafts/d.html\nx.css\n\
                a.html\nsitemap.xml\n.\n";
    site.command(&["--exclude", "drafts/", "--files-from", "-", "-v"])
        .stdin(list)
        .run()
        .success()
        .stderr_has(&[
            "skip b: a directory\n",
            "skip drafts/d.html: inside drafts: --exclude drafts/\n",
            "skip fifo.html: not a regular file\n",
            "skip gone.html: gone\n",
            "warning: gone.html is a dangling symlink; not listed\n",
            "skip linkdir: a symlink to a directory (use -L to enter it)\n",
            "skip sitemap.xml: sitemapgen's own output\n",
            "skip x.css: matches no --include glob\n",
            "(left out: 2 unreadable (vanished, dangling or looping), 1 by --exclude; \
             1 file that is not a page)",
        ]);
    let urls = validate::sitemap(&site.sitemap_path(), BASE);
    assert_eq!(
        locs(&urls),
        [
            "https://example.com/a.html",
            "https://example.com/alias.html"
        ]
    );
}

#[test]
fn a_missing_or_outside_file_fails_the_run_and_keeps_the_old_sitemap() {
    let site = site();
    site.run(&[]).success();
    let before = fs::read(site.sitemap_path()).unwrap();
    let outside = site.outside().join("elsewhere.html");
    fs::write(&outside, "x").unwrap();
    let not_a_directory = format!(
        "a.html/x.html cannot be read: {}",
        os_says("Not a directory")
    );
    let cases = [
        (
            "a.html\nmissing.html\n".to_string(),
            "missing.html cannot be read",
        ),
        // Whatever the rules say of it.
        (
            "drafts/missing.html\n".to_string(),
            "drafts/missing.html cannot be read",
        ),
        ("a.html/x.html\n".to_string(), not_a_directory.as_str()),
        (
            "a.html\nbad\0name.html\n".to_string(),
            "listed file bad\\u{0}name.html contains a NUL byte",
        ),
        (
            "../elsewhere.html\n".to_string(),
            "listed file ../elsewhere.html is outside DIR",
        ),
        (
            format!("{}\n", outside.display()),
            "elsewhere.html is outside DIR",
        ),
        (
            "/etc/passwd\n".to_string(),
            "listed file /etc/passwd is outside DIR",
        ),
    ];
    for (list, message) in cases {
        site.command(&["--files-from", "-", "--exclude", "drafts/"])
            .stdin(list)
            .run()
            .expect_code(1)
            .stderr_has(&["sitemapgen: error: ", message]);
        assert_eq!(fs::read(site.sitemap_path()).unwrap(), before);
    }
    site.command(&["--files-from"])
        .arg(site.outside().join("no-such-list"))
        .run()
        .expect_code(1)
        .stderr_has(&["cannot read the file list", "no-such-list"]);
    assert_eq!(fs::read(site.sitemap_path()).unwrap(), before);
}

#[test]
fn a_list_with_crlf_line_endings_is_read_as_its_lines() {
    let site = site();
    site.command(&["--files-from", "-"])
        .stdin("index.html\r\na.html\r\nb/c.html\r\n")
        .run()
        .success();
    let urls = validate::sitemap(&site.sitemap_path(), BASE);
    assert_eq!(
        locs(&urls),
        [
            BASE,
            "https://example.com/a.html",
            "https://example.com/b/c.html"
        ]
    );
}
