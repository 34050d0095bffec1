//! Switching a site from its generator's own sitemap to the plugin, as a new user would:
//! what the tests of each generator's plugin share.

use std::collections::BTreeMap;
use std::fs;
use std::path::Path;
use std::process::Command;

use crate::built::run;
use crate::validate;

/// A base URL on the loopback address where nothing listens: a laptop offline, or a site
/// not deployed yet.
pub fn nowhere() -> String {
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    drop(listener);
    format!("http://127.0.0.1:{port}/")
}

/// Makes `project` a git checkout, each of `files` committed on its own at its date (author
/// and committer), in that order.
pub fn commit_each(project: &Path, files: &[(&str, &str)]) {
    let git = |args: &[&str], date: &str| {
        run(Command::new("git")
            .args(["-c", "user.name=Test", "-c", "user.email=test@example.com"])
            .args(args)
            .current_dir(project)
            .env("GIT_AUTHOR_DATE", date)
            .env("GIT_COMMITTER_DATE", date));
    };
    git(&["init", "-q"], "2000-01-01T00:00:00Z");
    for (file, date) in files {
        git(&["add", "--", file], date);
        git(&["commit", "-q", "-m", file], date);
    }
}

/// The generator's own sitemap as a site built long ago serves it: each URL with the date
/// given, in `live`.
pub fn serve_native_sitemap(live: &Path, dates: &BTreeMap<String, String>) {
    let mut xml = String::from(
        "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n\
         <urlset xmlns=\"http://www.sitemaps.org/schemas/sitemap/0.9\">\n",
    );
    for (loc, date) in dates {
        xml += &format!("  <url><loc>{loc}</loc><lastmod>{date}</lastmod></url>\n");
    }
    xml += "</urlset>\n";
    fs::create_dir_all(live).unwrap();
    fs::write(live.join("sitemap.xml"), xml).unwrap();
}

/// Old dates for each of `locs`, a day apart.
pub fn old_dates(locs: &[&str]) -> BTreeMap<String, String> {
    locs.iter()
        .enumerate()
        .map(|(n, loc)| (loc.to_string(), format!("2023-03-{:02}", n + 1)))
        .collect()
}

/// Each URL's lastmod in the sitemap at `path`.
pub fn dates(path: &Path, base: &str) -> BTreeMap<String, String> {
    validate::sitemap(path, base)
        .into_iter()
        .map(|url| (url.loc, url.lastmod.unwrap_or_default()))
        .collect()
}

/// The lines of `log` that say something of the state, but the summary.
pub fn state_notes(log: &str) -> Vec<&str> {
    log.lines()
        .filter(|line| line.contains("state") || line.contains("unreachable"))
        .filter(|line| !line.contains("since the state"))
        .collect()
}

/// A build's log in CI with the site out of reach: it failed, naming `option`.
#[track_caller]
pub fn assert_failed_in_ci(log: &str, option: &str) {
    assert!(
        log.contains("CI is set") && log.contains(&format!("or set `{option}`")),
        "{log}"
    );
}

/// A build's log outside CI with the site out of reach: one note on the state, that says
/// `state_url` is out of reach and names `option`.
#[track_caller]
pub fn assert_one_offline_note(log: &str, state_url: &str, option: &str) {
    let notes = state_notes(log);
    assert_eq!(notes.len(), 1, "{log}");
    assert!(
        notes[0].ends_with(&format!(
            "{state_url} unreachable: dated from the files; set `{option}` to stop asking"
        )),
        "{log}"
    );
}
