//! The IndexNow key: its file is one of the run's outputs (at the root of DIR), and
//! `--indexnow-submit` sends it with each submission.

use std::fmt;

use anyhow::{Result, bail};

/// An IndexNow key: 8 to 128 letters, digits and dashes. Never shown in messages (nor by
/// `Debug`): it stays a secret until the site that holds its key file is deployed. Once read,
/// every message shows it as `KEY`, wherever it comes from (a file name, an echoing answer).
#[derive(Clone, PartialEq, Eq)]
pub struct Key(String);

impl fmt::Debug for Key {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("Key(…)")
    }
}

impl Key {
    /// The key in `text` (surrounding whitespace ignored); `source` names where it came from
    /// for the message.
    pub fn parse(text: &str, source: &str) -> Result<Key> {
        let key = text.trim();
        let valid = (8..=128).contains(&key.len())
            && key.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'-');
        if !valid {
            bail!("{source} does not hold an IndexNow key (8 to 128 letters, digits and dashes)");
        }
        crate::report::keep_secret(key);
        Ok(Key(key.to_string()))
    }

    pub fn as_str(&self) -> &str {
        &self.0
    }

    /// The key file's name, at the root of DIR.
    pub fn file_name(&self) -> String {
        format!("{}.txt", self.0)
    }
}
