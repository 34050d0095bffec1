//! `--check`: the sitemap built in unnamed temp files and compared byte for byte with the
//! files on disk; a difference fails the run with a summary of the URLs added, removed and
//! re-dated. Nothing is written.

use std::path::{Path, PathBuf};

use anyhow::{Result, bail};

use crate::io::atomic::{Temp, Written};
use crate::outputs::Files;
use crate::outputs::read::{self, Document};
use crate::report::Report;

/// Compares the new files with those on disk. `robots` is robots.txt's path when --robots
/// would change it; `churn_stop` is why --max-churn would stop the real run, if it would.
pub fn compare(
    files: &Files,
    outputs: Vec<(PathBuf, Written<Temp>)>,
    robots: Option<&Path>,
    churn_stop: Option<anyhow::Error>,
    report: &mut Report,
) -> Result<()> {
    let written: Vec<PathBuf> = outputs.iter().map(|(path, _)| path.clone()).collect();
    let mut same = files.stale(&written)?.is_empty();
    // The new URLs, read back from the new documents, for the summary.
    let mut new = read::Urls::new();
    for (path, written) in outputs {
        let contents = written.contents()?;
        same &= std::fs::read(&path).ok().as_ref() == Some(&contents);
        if let Document::Urls(urls) = read::parse(contents, &path.display(), None)? {
            new.extend(urls);
        }
    }
    let robots = robots.map(|path| {
        format!(
            "\n{} does not name the sitemap as --robots would",
            path.display()
        )
    });
    if same && robots.is_none() && churn_stop.is_none() {
        report.note(format!("{} is up to date", files.path.display()));
        return Ok(());
    }
    let mut problems = String::new();
    if !same {
        let old = read::read(files)?;
        problems = format!(
            "{} is out of date: {}",
            files.path.display(),
            read::difference(old.as_ref(), &new)
        );
    }
    problems.extend(robots);
    // The churn stop names the URLs it would re-date, which the sitemap need not show (a
    // text sitemap, a fixed --lastmod), and gives the one hint: a run without --check would
    // stop too.
    match churn_stop {
        Some(stop) => problems.push_str(&format!("\n{stop}")),
        None => problems.push_str("\nhint: run sitemapgen without --check to update it"),
    }
    bail!("{}", problems.trim_start())
}
