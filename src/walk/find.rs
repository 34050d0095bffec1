//! The files of a list (--files-from), in the walk's order, and the rules applied to them.

use std::ffi::OsStr;
use std::fs;
use std::io::{self, Read};
use std::os::unix::ffi::OsStrExt;
use std::path::{Component, Path, PathBuf};
use std::sync::mpsc::SyncSender;

use anyhow::{Context, Result, anyhow, bail};
use globset::Candidate;

use super::rules::{Rules, Skip};
use super::{BATCH, Event, Found, ListFrom, Settings, excluded};
use crate::html;
use crate::report::Reason;

pub(super) struct Finder<'c> {
    settings: &'c Settings,
    verbose: bool,
    batch: Vec<Found>,
    sender: SyncSender<Vec<Found>>,
}

impl<'c> Finder<'c> {
    pub(super) fn new(settings: &'c Settings, sender: SyncSender<Vec<Found>>) -> Finder<'c> {
        Finder {
            settings,
            verbose: settings.verbose,
            batch: Vec::with_capacity(BATCH),
            sender,
        }
    }

    fn send(&mut self, found: Found) -> Result<()> {
        self.batch.push(found);
        if self.batch.len() == BATCH {
            self.flush()?;
        }
        Ok(())
    }

    pub(super) fn flush(&mut self) -> Result<()> {
        let batch = std::mem::replace(&mut self.batch, Vec::with_capacity(BATCH));
        // A closed channel means the consumer failed; its error is the one to report.
        self.sender
            .send(batch)
            .map_err(|_| anyhow!("the walk was stopped"))
    }

    fn excluded(&mut self, rel: &Path, reason: Reason, why: impl std::fmt::Display) -> Result<()> {
        self.send(Found::Event(excluded(self.verbose, rel, reason, why)))
    }

    fn skipped(&mut self, rel: &Path, why: impl std::fmt::Display) -> Result<()> {
        if self.verbose {
            self.send(Found::Event(Event::Skipped(
                rel.to_path_buf(),
                why.to_string(),
            )))?;
        }
        Ok(())
    }

    fn consider_file(&mut self, rel: &Path, path: &Path) -> Result<()> {
        let candidate = Candidate::new(rel);
        match self.settings.rules.skip_file(rel, &candidate) {
            None => {}
            Some(Skip::OwnOutput) => return self.skipped(rel, Skip::OwnOutput),
            Some(why) => return self.excluded(rel, why.reason(), why),
        }
        self.send(Found::Candidate {
            rel: rel.to_path_buf(),
            path: path.to_path_buf(),
        })
    }

    pub(super) fn list(&mut self, from: &ListFrom, separator: u8) -> Result<()> {
        let data = match from {
            ListFrom::Stdin => {
                let mut data = Vec::new();
                io::stdin()
                    .read_to_end(&mut data)
                    .context("cannot read the file list from standard input")?;
                data
            }
            ListFrom::File(path) => fs::read(path)
                .with_context(|| format!("cannot read the file list {}", path.display()))?,
        };
        let root = &self.settings.root;
        let roots = [root.canonicalize()?, std::path::absolute(root)?];
        let mut rels = data
            .split(|&byte| byte == separator)
            // A list written on Windows ends its lines in CRLF.
            .map(|item| match separator {
                b'\n' => item.strip_suffix(b"\r").unwrap_or(item),
                _ => item,
            })
            .filter(|item| !item.is_empty())
            .map(|item| inside_root(Path::new(OsStr::from_bytes(item)), &roots))
            .collect::<Result<Vec<_>>>()?;
        // DIR itself (`find .` lists `.`) is a directory, not a page.
        rels.retain(|rel| !rel.as_os_str().is_empty());
        rels.sort_by(|a, b| a.iter().map(sort_key).cmp(b.iter().map(sort_key)));
        rels.dedup();

        let mut dir_skip: Option<(PathBuf, Option<(Reason, String)>)> = None;
        for rel in &rels {
            let path = root.join(rel);
            let meta = match fs::symlink_metadata(&path) {
                Ok(meta) => meta,
                Err(err) => bail!("listed file {} cannot be read: {err}", path.display()),
            };
            let dir = rel.parent().unwrap_or(Path::new(""));
            if dir_skip.as_ref().is_none_or(|(cached, _)| cached != dir) {
                dir_skip = Some((
                    dir.to_path_buf(),
                    skipped_ancestor(&self.settings.rules, dir),
                ));
            }
            if let Some((_, Some((reason, why)))) = &dir_skip {
                let (reason, why) = (*reason, why.clone());
                self.excluded(rel, reason, why)?;
                continue;
            }
            if meta.is_dir() {
                self.skipped(rel, "a directory")?;
                continue;
            }
            if meta.is_symlink() && is_dir_symlink(&path) {
                self.skipped(rel, DIR_SYMLINK)?;
                continue;
            }
            self.consider_file(rel, &path)?;
        }
        Ok(())
    }
}

pub(super) const DIR_SYMLINK: &str = "a symlink to a directory (use -L to enter it)";

fn is_dir_symlink(path: &Path) -> bool {
    fs::metadata(path).is_ok_and(|meta| meta.is_dir())
}

/// Orders the names of one directory: index.html, index.htm, then the rest byte-wise. So a
/// section's URL precedes its pages, and index.html wins when both index files exist.
pub(super) fn sort_key(name: &OsStr) -> (usize, &[u8]) {
    let name = name.as_bytes();
    (
        html::index_rank(name).unwrap_or(html::INDEX_NAMES.len()),
        name,
    )
}

/// Why the walk would not have entered a directory above a listed file, if it would not.
fn skipped_ancestor(rules: &Rules, dir: &Path) -> Option<(Reason, String)> {
    let mut ancestor = PathBuf::new();
    for component in dir.components() {
        ancestor.push(component);
        if let Some(why) = rules.skip_dir(&ancestor) {
            return Some((
                why.reason(),
                format!("inside {}: {why}", ancestor.display()),
            ));
        }
    }
    None
}

/// A listed path made relative to DIR (empty for DIR itself), `.` and `..` resolved; an error
/// if it leaves DIR.
fn inside_root(listed: &Path, roots: &[PathBuf]) -> Result<PathBuf> {
    let outside = || anyhow!("listed file {} is outside DIR", listed.display());
    let rel = if listed.is_absolute() {
        roots
            .iter()
            .find_map(|root| listed.strip_prefix(root).ok())
            .ok_or_else(outside)?
    } else {
        listed
    };
    let mut clean = PathBuf::new();
    for component in rel.components() {
        match component {
            Component::Normal(name) => clean.push(name),
            Component::CurDir => {}
            Component::ParentDir if clean.pop() => {}
            _ => return Err(outside()),
        }
    }
    Ok(clean)
}
