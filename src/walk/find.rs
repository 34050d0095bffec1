//! The files of a list (--files-from), in the walk's order, each with whether the walk would
//! have entered the directories above it; the stat stage (`stat`) does the rest.

use crate::io::native;
use crate::report::shown_path;
use std::ffi::OsStr;
use std::fs;
use std::io::{self, Read};
use std::path::{Component, Path, PathBuf};
use std::sync::mpsc::SyncSender;

use anyhow::{Context, Result, anyhow, bail};

use super::rules::Rules;
use super::{ListFrom, Listed, Settings};
use crate::html;
use crate::report::Reason;

pub(super) struct Finder<'c> {
    settings: &'c Settings,
    /// Files in a batch.
    size: usize,
    batch: Vec<Listed>,
    sender: SyncSender<Vec<Listed>>,
}

impl<'c> Finder<'c> {
    pub(super) fn new(
        settings: &'c Settings,
        size: usize,
        sender: SyncSender<Vec<Listed>>,
    ) -> Finder<'c> {
        Finder {
            settings,
            size,
            batch: Vec::with_capacity(size),
            sender,
        }
    }

    fn send(&mut self, listed: Listed) -> Result<()> {
        self.batch.push(listed);
        if self.batch.len() == self.size {
            self.flush()?;
        }
        Ok(())
    }

    fn flush(&mut self) -> Result<()> {
        let batch = std::mem::replace(&mut self.batch, Vec::with_capacity(self.size));
        // A closed channel means the consumer failed; its error is the one to report.
        self.sender
            .send(batch)
            .map_err(|_| anyhow!("the walk was stopped"))
    }

    /// Hands on the files `rels` (from `read_list`) in batches, each with whether the walk
    /// would have entered the directories above it.
    pub(super) fn send_all(&mut self, rels: Vec<PathBuf>) -> Result<()> {
        let root = &self.settings.root;
        let mut dir_skip: Option<(PathBuf, Option<(Reason, String)>)> = None;
        for rel in rels {
            let path = root.join(&rel);
            let dir = rel.parent().unwrap_or(Path::new(""));
            if dir_skip.as_ref().is_none_or(|(cached, _)| cached != dir) {
                dir_skip = Some((
                    dir.to_path_buf(),
                    skipped_ancestor(&self.settings.rules, dir),
                ));
            }
            let inside_skipped = dir_skip.as_ref().and_then(|(_, skip)| skip.clone());
            self.send(Listed {
                rel,
                path,
                inside_skipped,
            })?;
        }
        self.flush()
    }
}

/// The files of a list, relative to DIR, in the walk's order, each once; an error names a
/// listed path that leaves DIR (or that no file name can be).
pub(super) fn read_list(
    settings: &Settings,
    from: &ListFrom,
    separator: u8,
) -> Result<Vec<PathBuf>> {
    let data = match from {
        ListFrom::Page(rel) => return Ok(vec![usable(rel.clone())?]),
        ListFrom::Stdin => {
            let mut data = Vec::new();
            io::stdin()
                .read_to_end(&mut data)
                .context("cannot read the file list from standard input")?;
            data
        }
        ListFrom::File(path) => fs::read(path)
            .with_context(|| format!("cannot read the file list {}", shown_path(path)))?,
    };
    let roots = roots(&settings.root)?;
    let mut rels = data
        .split(|&byte| byte == separator)
        // A list written on Windows ends its lines in CRLF.
        .map(|item| match separator {
            b'\n' => item.strip_suffix(b"\r").unwrap_or(item),
            _ => item,
        })
        .filter(|item| !item.is_empty())
        .map(|item| match native::os_str_checked(item) {
            Some(listed) => inside_root(Path::new(listed), &roots).and_then(usable),
            None => bail!(
                "listed file {} is not valid Unicode, which no file name here is",
                String::from_utf8_lossy(item).escape_debug()
            ),
        })
        .collect::<Result<Vec<_>>>()?;
    // DIR itself (`find .` lists `.`) is a directory, not a page.
    rels.retain(|rel| !rel.as_os_str().is_empty());
    rels.sort_by_cached_key(|rel| walk_key(rel));
    rels.dedup();
    Ok(rels)
}

/// `rel`, a listed file, unless the walk would refuse one of its names
/// (`native::unusable_name`, on Windows): the user named it, so it is an error.
fn usable(rel: PathBuf) -> Result<PathBuf> {
    let file_name = rel.file_name();
    for name in &rel {
        if let Some(why) = native::unusable_name(name) {
            match Some(name) == file_name {
                true => bail!("listed file {}: {why}", shown_path(&rel)),
                false => bail!(
                    "listed file {}: {}: {why}",
                    shown_path(&rel),
                    shown_path(Path::new(name))
                ),
            }
        }
    }
    Ok(rel)
}

pub(super) const DIR_SYMLINK: &str = "a symlink to a directory (use -L to enter it)";

/// Orders the names of one directory: index.html, index.htm, then the rest byte-wise. So a
/// section's URL precedes its pages, and index.html wins when both index files exist.
pub(super) fn sort_key(name: &OsStr) -> (usize, &[u8]) {
    let name = name.as_encoded_bytes();
    (
        html::index_rank(name).unwrap_or(html::INDEX_NAMES.len()),
        name,
    )
}

/// A key that sorts paths in the walk's order: name by name, each by `sort_key`. Each name
/// is its rank and its bytes, ended by a NUL, which is in no name (`inside_root` refuses a
/// listed path holding one): a name sorts before the longer ones it begins, and a directory
/// before the names in it. Made once per path, not in each comparison (sorting 260,000
/// paths by their components took a quarter of a `--files-from --no-html` run, before any
/// file could be looked at).
fn walk_key(rel: &Path) -> Vec<u8> {
    // A rank is at most the number of index names.
    const _: () = assert!(html::INDEX_NAMES.len() <= u8::MAX as usize);
    let mut key = Vec::with_capacity(rel.as_os_str().len() + 16);
    for name in rel {
        let (rank, bytes) = sort_key(name);
        key.push(rank as u8);
        key.extend_from_slice(bytes);
        key.push(0);
    }
    key
}

/// Why the walk would not have entered a directory above a listed file, if it would not.
fn skipped_ancestor(rules: &Rules, dir: &Path) -> Option<(Reason, String)> {
    let mut ancestor = PathBuf::new();
    for component in dir.components() {
        ancestor.push(component);
        if let Some(why) = rules.skip_dir(&ancestor) {
            return Some((
                why.reason(),
                format!("inside {}: {why}", shown_path(&ancestor)),
            ));
        }
    }
    None
}

/// DIR as a listed absolute path may begin: its real path, or as given made absolute.
fn roots(root: &Path) -> Result<[PathBuf; 2]> {
    Ok([root.canonicalize()?, std::path::absolute(root)?])
}

/// `path` made relative to DIR `root` as a listed file is (relative paths are DIR's); an
/// error if it leaves DIR.
pub fn inside(root: &Path, path: &Path) -> Result<PathBuf> {
    inside_root(path, &roots(root)?)
}

/// A listed path made relative to DIR (empty for DIR itself), `.` and `..` resolved; an error
/// if it leaves DIR.
fn inside_root(listed: &Path, roots: &[PathBuf]) -> Result<PathBuf> {
    let outside = || anyhow!("listed file {} is outside DIR", shown_path(listed));
    // Only a newline-separated list can hold one.
    if listed.as_os_str().as_encoded_bytes().contains(&0) {
        bail!(
            "listed file {} contains a NUL byte, which no file name can hold",
            shown_path(listed)
        );
    }
    // On Windows a path from the current drive's root (`\site\a.html`) is absolute too: it
    // is made whole (`C:\site\a.html`), as DIR's roots are.
    let whole;
    let listed = if listed.has_root() && !listed.is_absolute() {
        whole = std::path::absolute(listed)?;
        &whole
    } else {
        listed
    };
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
            Component::Normal(name) => clean = native::join_rel(&clean, name),
            Component::CurDir => {}
            Component::ParentDir if clean.pop() => {}
            _ => return Err(outside()),
        }
    }
    Ok(clean)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_walk_key_sorts_as_name_by_name_comparison_does() {
        let paths = [
            "a",
            "a/b",
            "a.html",
            "a/index.html",
            "a/index.htm",
            "a/b/c",
            "a-b",
            "ab",
            "index.html",
            "index.htm",
            "index.html/x",
            "z",
            "a/\u{e9}",
            "a/z/index.html",
        ];
        let mut by_names: Vec<&Path> = paths.iter().map(Path::new).collect();
        by_names.sort_by(|a, b| a.iter().map(sort_key).cmp(b.iter().map(sort_key)));
        let mut by_key = by_names.clone();
        by_key.reverse();
        by_key.sort_by_cached_key(|path| walk_key(path));
        assert_eq!(by_key, by_names);
        // An index file first, whatever sorts before it byte-wise; what is in a directory
        // just after it.
        let first = ["index.html", "index.html/x", "index.htm"].map(Path::new);
        assert_eq!(by_names[..3], first);
    }
}
