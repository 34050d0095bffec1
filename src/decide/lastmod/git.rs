//! `--lastmod git`: each file's date is the committer date of the last commit that touched
//! it, from one `git log` over the whole history (not one git process per file).

use std::collections::HashMap;
use std::ffi::OsStr;
use std::os::unix::ffi::OsStrExt;
use std::path::{Path, PathBuf};
use std::process::Command;

use anyhow::{Context, Result, bail};

#[derive(Debug)]
pub struct GitDates {
    /// Path relative to DIR → committer date (`%cI`, strict ISO 8601 with zone), in a form
    /// the schema takes (None for a date that has none: the file is dated by its mtime).
    dates: HashMap<PathBuf, Option<String>>,
    pub shallow: bool,
}

impl GitDates {
    /// Reads the history of the work tree holding `dir`; an error (a usage error) when `dir`
    /// is not inside one.
    pub fn load(dir: &Path) -> Result<GitDates> {
        let prefix = git(dir, &["rev-parse", "--show-prefix"]).with_context(|| {
            format!(
                "--lastmod git: {} is not inside a git work tree",
                dir.display()
            )
        })?;
        let prefix = prefix.strip_suffix(b"\n").unwrap_or(&prefix).to_vec();
        let shallow = git(dir, &["rev-parse", "--is-shallow-repository"])? == b"true\n";
        // Newest first; each commit is `\x01DATE\n` then its files, NUL-terminated.
        let log = git(
            dir,
            &[
                "log",
                "--format=%x01%cI",
                "--name-only",
                "--no-renames",
                "-z",
                "--",
                ".",
            ],
        )?;
        let mut dates = HashMap::new();
        let mut date = None;
        for field in log.split(|&b| b == 0) {
            let field = field.strip_prefix(b"\n").unwrap_or(field);
            let name = match field.strip_prefix(b"\x01") {
                Some(header) => {
                    let (commit_date, first) = match header.iter().position(|&b| b == b'\n') {
                        Some(end) => (&header[..end], &header[end + 1..]),
                        None => (header, &b""[..]),
                    };
                    let text = std::str::from_utf8(commit_date)
                        .context("git printed a date that is not UTF-8")?;
                    // git takes offsets up to ±99:59; the schema stops at ±14:00.
                    date = crate::w3c::w3c_form(text);
                    first
                }
                None => field,
            };
            // Names are relative to the top of the work tree; keep those under DIR.
            if let Some(rel) = name
                .strip_prefix(prefix.as_slice())
                .filter(|rel| !rel.is_empty())
            {
                dates
                    .entry(PathBuf::from(OsStr::from_bytes(rel)))
                    .or_insert_with(|| date.clone());
            }
        }
        Ok(GitDates { dates, shallow })
    }

    pub fn date(&self, rel: &Path) -> Option<&str> {
        self.dates.get(rel)?.as_deref()
    }
}

fn git(dir: &Path, args: &[&str]) -> Result<Vec<u8>> {
    let out = Command::new("git")
        .arg("-C")
        .arg(dir)
        .args(args)
        .output()
        .context("cannot run git")?;
    if !out.status.success() {
        bail!(
            "git {}: {}",
            args.join(" "),
            String::from_utf8_lossy(&out.stderr).trim()
        );
    }
    Ok(out.stdout)
}
