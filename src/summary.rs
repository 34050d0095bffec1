//! The run's counts as JSON (`--summary-json FILE`), for the GitHub Action, the generators'
//! plugins and any CI script, so that none parses the human summary line. Version 1:
//!
//! ```json
//! {
//!   "version": 1,
//!   "listed": 120,
//!   "added_urls": 2,
//!   "left_out": { "redirect": 3, "noindex": 1, …, "not_page": 56 },
//!   "since_state": { "added": 2, "removed": 0, "redated": 1, "kept": 117 },
//!   "files_written": 3,
//!   "summary": "wrote 120 URLs to public/sitemap.xml (…)"
//! }
//! ```
//!
//! `added_urls` counts the URLs of `--add-urls` among those listed (a key added in version
//! 1, as below). Every cause is always there, 0 when none; `since_state` is null without --state. A new
//! key may appear in version 1; a key changes meaning or goes only with a new version.

use std::io::{self, Write};
use std::path::{Path, PathBuf};

use anyhow::{Context, Result};
use serde_json::Value;

use crate::decide::lastmod::Churn;
use crate::io::atomic::{Beside, Sink, Written};

pub const VERSION: u64 = 1;

/// Where the summary goes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum To {
    File(PathBuf),
    /// `-`: standard output, after the sitemap is published.
    Stdout,
}

/// What a finished run counts.
pub struct Summary<'a> {
    pub listed: u64,
    /// Of them, the URLs of --add-urls.
    pub added_urls: u64,
    /// Each cause's key and count, in the summary line's order.
    pub left_out: Vec<(&'static str, u64)>,
    pub churn: Option<&'a Churn>,
    pub files_written: u64,
    pub line: String,
}

impl Summary<'_> {
    /// The JSON, its keys in the documented order (the first says the version, for a reader
    /// and for the check that a file replaced is an earlier summary).
    pub fn to_json(&self) -> Vec<u8> {
        let left_out: Vec<String> = self
            .left_out
            .iter()
            .map(|(key, n)| format!("\"{key}\": {n}"))
            .collect();
        let since_state = match self.churn {
            None => "null".to_string(),
            Some(churn) => format!(
                "{{ \"added\": {}, \"removed\": {}, \"redated\": {}, \"kept\": {} }}",
                churn.added, churn.removed, churn.redated, churn.kept
            ),
        };
        format!(
            "{{\n  \"version\": {VERSION},\n  \"listed\": {},\n  \"added_urls\": {},\n  \
             \"left_out\": {{ {} }},\n  \"since_state\": {since_state},\n  \
             \"files_written\": {},\n  \"summary\": {}\n}}\n",
            self.listed,
            self.added_urls,
            left_out.join(", "),
            self.files_written,
            Value::String(self.line.clone()),
        )
        .into_bytes()
    }

    /// The summary in a temp file beside `path`, to be published with the sitemap.
    pub fn write(&self, path: &Path) -> Result<Written<Beside>> {
        let context = || format!("cannot write the summary {}", path.display());
        let mut sink = Sink::new(Beside::of(path).with_context(context)?, false);
        sink.write_all(&self.to_json()).with_context(context)?;
        sink.finish().with_context(context)
    }

    pub fn print(&self) -> Result<()> {
        let mut stdout = io::stdout().lock();
        stdout.write_all(&self.to_json())?;
        Ok(stdout.flush()?)
    }
}
