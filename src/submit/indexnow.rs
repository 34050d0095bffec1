//! `--indexnow-submit`: after the deploy, the URLs of the last run's changes file are
//! submitted to an IndexNow endpoint (Bing, Yandex, Seznam, Naver… share what one is told),
//! in batches of at most 10,000 as the protocol allows, each a JSON object with `host`,
//! `key`, `keyLocation` and `urlList`.
//!
//! A receipt beside the changes file (`FILE.submitted`) records how many of its URLs were
//! accepted, and which file that was (its digest, device, inode and ctime): a second
//! submission of the same changes sends nothing, and one after a failure sends only the
//! batches not yet accepted. 429 and 5xx answers are retried a few times (`http::retrying`); any other answer
//! that is not 2xx stops the submission with its status and the start of its body.

use std::io::{self, Write};
use std::path::{Path, PathBuf};
use std::time::Duration;

use anyhow::{Context, Result, bail};
use url::Url;

use crate::io::atomic::{Beside, Sink};
use crate::io::http::{self, Client};
use crate::io::native;
use crate::outputs::changes;
use crate::outputs::claim::RECEIPT_HEADER;
use crate::outputs::key::Key;
use crate::report::{Report, Verbosity, count};
use crate::url::BaseUrl;

/// The shared endpoint, which passes each submission on to every engine that takes part.
pub const DEFAULT_ENDPOINT: &str = "https://api.indexnow.org/indexnow";

/// URLs in one submission: the protocol's limit.
const BATCH: usize = 10_000;

/// What `--indexnow-submit` needs.
#[derive(Debug)]
pub struct Settings {
    pub changes: PathBuf,
    pub base: BaseUrl,
    pub key: Key,
    pub endpoint: Url,
    pub timeout: Duration,
    pub verbosity: Verbosity,
}

pub fn submit(settings: &Settings) -> Result<()> {
    let report = &mut Report::new(settings.verbosity, false);
    let path = &settings.changes;
    let contents = crate::io::input::read_file(path, crate::io::input::MAX_CHANGES)
        .and_then(|contents| contents.ok_or_else(|| io::ErrorKind::NotFound.into()))
        .with_context(|| format!("cannot read the changes file {}", path.display()))?;
    let prefix = settings.base.join("");
    let urls = changes::urls(&contents, path, &prefix)?;
    let receipt = Receipt::of(path, &contents)?;
    let done = receipt.read()?.min(urls.len());
    if urls.is_empty() {
        report.note(format!(
            "the changes file {} lists no URL: nothing to submit",
            path.display()
        ));
        return Ok(());
    }
    if done == urls.len() {
        report.note(format!(
            "the {} in {} were submitted already: nothing to submit",
            count(urls.len() as u64, "URL"),
            path.display()
        ));
        return Ok(());
    }
    let host = Url::parse(&prefix)
        .ok()
        .and_then(|url| url.host_str().map(String::from))
        .context("the base URL has a host")?;
    let key_location = settings.base.join(&settings.key.file_name());
    let client = Client::new(settings.timeout);
    let mut sent = done;
    let mut answers = Vec::new();
    for batch in urls[done..].chunks(BATCH) {
        let json = serde_json::json!({
            "host": host,
            "key": settings.key.as_str(),
            "keyLocation": key_location,
            "urlList": batch,
        });
        let json = json.to_string();
        let what = format!("IndexNow {}", settings.endpoint);
        let answer = http::retrying(&what, report, || {
            client.post_json(&settings.endpoint, json.as_bytes())
        })?;
        if !(200..300).contains(&answer.status) {
            let body = match answer.excerpt.as_str() {
                "" => String::new(),
                excerpt => format!(": {excerpt}"),
            };
            bail!(
                "IndexNow {} answered {}{}{body}; {} {} submitted",
                settings.endpoint,
                answer.status,
                meaning(answer.status),
                thousands_of(sent, urls.len()),
                path.display()
            );
        }
        sent += batch.len();
        receipt.write(sent)?;
        answers.push(answer.status);
    }
    answers.dedup();
    let statuses: Vec<String> = answers.iter().map(|status| status.to_string()).collect();
    report.note(format!(
        "submitted {} to IndexNow {} ({}{})",
        count((sent - done) as u64, "URL"),
        settings.endpoint,
        statuses.join(", "),
        if answers.contains(&202) {
            ": accepted, the key is still being checked"
        } else {
            ": accepted"
        }
    ));
    Ok(())
}

/// `1,234 of the 20,000 URLs in`.
fn thousands_of(sent: usize, total: usize) -> String {
    format!(
        "{} of the {} in",
        crate::report::thousands(sent as u64),
        count(total as u64, "URL")
    )
}

/// What an IndexNow status means, as the protocol says.
fn meaning(status: u16) -> &'static str {
    match status {
        400 => " (bad request)",
        403 => " (the key is not valid: is the site with its key file deployed?)",
        422 => " (URLs that do not belong to the host, or a key that does not match)",
        429 => " (too many requests, again after retries)",
        500..=599 => " (the endpoint failed, again after retries)",
        _ => "",
    }
}

/// The receipt of a changes file: how many of its URLs were accepted.
struct Receipt {
    path: PathBuf,
    /// Which changes file it is: a new one (another run's) starts from none.
    identity: String,
}

/// The receipt's place: beside the changes file at `changes`, `FILE.submitted`.
pub fn receipt_path(changes: &Path) -> PathBuf {
    let mut path = changes.as_os_str().to_owned();
    path.push(".submitted");
    path.into()
}

impl Receipt {
    /// The receipt of the changes file at `changes`, which holds `contents`.
    fn of(changes: &Path, contents: &[u8]) -> Result<Receipt> {
        let id = native::identity(changes, true)
            .with_context(|| format!("cannot read the changes file {}", changes.display()))?;
        Ok(Receipt {
            path: receipt_path(changes),
            identity: format!(
                "{} {}:{}:{}.{}",
                blake3::hash(contents).to_hex(),
                id.dev,
                id.ino,
                id.ctime.div_euclid(1_000_000_000),
                id.ctime.rem_euclid(1_000_000_000)
            ),
        })
    }

    /// How many URLs of this changes file were accepted: 0 without a receipt, or with one
    /// of another file.
    fn read(&self) -> Result<usize> {
        let text = match std::fs::read_to_string(&self.path) {
            Ok(text) => text,
            Err(err) if err.kind() == std::io::ErrorKind::NotFound => return Ok(0),
            Err(err) => {
                return Err(err).with_context(|| format!("cannot read {}", self.path.display()));
            }
        };
        let mut lines = text.lines();
        let ours = lines.next() == Some(RECEIPT_HEADER) && lines.next() == Some(&self.identity);
        Ok(
            match (
                ours,
                lines.next().and_then(|l| l.strip_prefix("submitted ")),
            ) {
                (true, Some(n)) => n.parse().unwrap_or(0),
                _ => 0,
            },
        )
    }

    fn write(&self, submitted: usize) -> Result<()> {
        let context = || format!("cannot write {}", self.path.display());
        let mut sink = Sink::new(Beside::of(&self.path).with_context(context)?, false);
        writeln!(
            sink,
            "{RECEIPT_HEADER}\n{}\nsubmitted {submitted}",
            self.identity
        )
        .with_context(context)?;
        sink.finish().with_context(context)?.publish(&self.path)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_key_is_8_to_128_letters_digits_and_dashes_and_never_shown() {
        for good in [
            "abcdefgh",
            "0123-4567-89ab",
            &"k".repeat(128),
            "  padded-key-1 \n",
        ] {
            let key = Key::parse(good, "the test").unwrap();
            assert_eq!(key.as_str(), good.trim());
            assert_eq!(format!("{key:?}"), "Key(…)");
        }
        for bad in [
            "short",
            "",
            &"k".repeat(129),
            "has space",
            "under_score",
            "ключключключ",
        ] {
            let err = Key::parse(bad, "$KEY").unwrap_err().to_string();
            assert!(
                !bad.is_empty() && !err.contains(bad) || bad.is_empty(),
                "{err}"
            );
            assert!(
                err.starts_with("$KEY does not hold an IndexNow key"),
                "{err}"
            );
        }
        assert_eq!(
            Key::parse("abcdefgh", "t").unwrap().file_name(),
            "abcdefgh.txt"
        );
    }
}
