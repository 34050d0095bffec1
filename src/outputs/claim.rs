//! One rule for every file a run writes: the sitemap (its shards, groups' sitemaps and
//! index go by its name), the state, the changes, robots.txt, the IndexNow key file, the
//! stylesheet, `--indexnow-submit`'s receipt and `--summary-json`'s summary. Each output
//!
//! - is a regular file, or a symlink to one that is followed where the user named the path
//!   (`-o`, `--state`, `--changes`, `--summary-json`), never in DIR's files of fixed names;
//! - is not a page of the site;
//! - is not the file of another output of the run, nor named like a file of the sitemap
//!   beside it (a shard or a group's sitemap, which a later run would remove);
//! - when it exists, holds what this output writes, from an earlier run: anything else is
//!   someone's file, which no run replaces.
//!
//! Settings check every output with it before any work; publishing checks again each file
//! it replaces (`Holds::may_replace`), which may have changed since.

use std::ffi::OsStr;
use std::fs;
use std::path::{Path, PathBuf};

use anyhow::{Result, bail};

use super::{Files, begins_sitemap, sniff};
use crate::io::native;
use crate::outputs::changes;

/// What an output holds.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Holds {
    Sitemap,
    State,
    /// `--state-copy`, written only: it may replace only a state.
    StateCopy,
    Changes,
    Robots,
    KeyFile,
    Stylesheet,
    Receipt,
    Summary,
}

/// The first line of `--indexnow-submit`'s receipt.
pub const RECEIPT_HEADER: &str = "sitemapgen-indexnow 1";
/// What begins the comment of `--write-xsl`'s stylesheet, which says whose it is.
pub const STYLESHEET_MARK: &[u8] = b"<!-- sitemapgen's default stylesheet";

impl Holds {
    /// The output, as another output's message names it.
    fn called(self) -> &'static str {
        match self {
            Holds::Sitemap => "the sitemap",
            Holds::State => "the state",
            Holds::StateCopy => "the copy of the state",
            Holds::Changes => "the changes file",
            Holds::Robots => "robots.txt",
            Holds::KeyFile => "the IndexNow key file",
            Holds::Stylesheet => "the stylesheet of --write-xsl",
            Holds::Receipt => "the receipt of --indexnow-submit",
            Holds::Summary => "the summary of --summary-json",
        }
    }

    /// What is wrong with a file this output may not replace.
    fn foreign(self) -> &'static str {
        match self {
            Holds::Sitemap => "is not a sitemap",
            Holds::State | Holds::StateCopy => "is not a state of sitemapgen",
            Holds::Changes => "is not a changes file of sitemapgen",
            Holds::Robots => "is not robots.txt",
            Holds::KeyFile => "holds something else than the key",
            Holds::Stylesheet => "holds something else than sitemapgen's stylesheet",
            Holds::Receipt => "is not a receipt of sitemapgen",
            Holds::Summary => "is not a summary of sitemapgen",
        }
    }

    fn hint(self) -> Option<&'static str> {
        match self {
            Holds::Sitemap => Some("name the output otherwise with -o, such as sitemap.xml"),
            Holds::State | Holds::StateCopy => {
                Some("keep the state in a file of its own, such as sitemap.state")
            }
            Holds::Changes => {
                Some("keep the changes in a file of their own, such as sitemap.changes")
            }
            Holds::Summary => {
                Some("keep the summary in a file of its own, such as sitemap-summary.json")
            }
            _ => None,
        }
    }

    /// Whether the user names the output's path: a symlink there is followed (its target
    /// replaced, the link kept), and a page there is refused. DIR's files of fixed names
    /// are written only as files of their own, and the walk never takes them for pages.
    fn named_by_user(self) -> bool {
        matches!(
            self,
            Holds::Sitemap | Holds::State | Holds::StateCopy | Holds::Changes | Holds::Summary
        )
    }

    /// Whether the file at `path` may be replaced by this output: there is none, or
    /// `may_replace` says so of its start.
    pub fn may_take(self, path: &Path) -> Result<bool> {
        Ok(match sniff(path)? {
            None => true,
            Some(start) => self.may_replace(path.file_name().unwrap_or_default(), &start),
        })
    }

    /// Whether a file named `name` that begins with `start` (decompressed, as `sniff`
    /// reads it) may be replaced by this output: empty, or what this output writes.
    pub fn may_replace(self, name: &OsStr, start: &[u8]) -> bool {
        let text = start.trim_ascii();
        if text.is_empty() {
            return true;
        }
        match self {
            Holds::Sitemap => begins_sitemap(start),
            Holds::Changes => begins_changes(start),
            // A state's first line (`state::file`).
            Holds::StateCopy => text.starts_with(b"sitemapgen-state "),
            // Read whole before anything is written, by readers that refuse what they cannot
            // take with their own reason: the state (anything but a state of ours), and
            // robots.txt, which is edited, its rules kept.
            Holds::State | Holds::Robots => true,
            Holds::KeyFile => name.as_encoded_bytes().strip_suffix(b".txt") == Some(text),
            Holds::Stylesheet => start
                .windows(STYLESHEET_MARK.len())
                .take(200)
                .any(|w| w == STYLESHEET_MARK),
            Holds::Receipt => text.starts_with(RECEIPT_HEADER.as_bytes()),
            Holds::Summary => text
                .strip_prefix(b"{")
                .is_some_and(|rest| rest.trim_ascii_start().starts_with(b"\"version\":")),
        }
    }
}

/// Whether `start` begins a changes file: each whole line a kind, a space and a URL with no
/// space (the last line may be cut where the start ends).
fn begins_changes(start: &[u8]) -> bool {
    let whole = match start.iter().rposition(|&b| b == b'\n') {
        Some(end) => &start[..end],
        None => start,
    };
    whole.split(|&b| b == b'\n').all(|line| {
        let Some(space) = line.iter().position(|&b| b == b' ') else {
            return false;
        };
        let (kind, url) = (&line[..space], &line[space + 1..]);
        changes::Kind::is_word(kind) && !url.is_empty() && !url.iter().any(u8::is_ascii_whitespace)
    })
}

/// A file the run writes, as the user named it.
#[derive(Debug)]
pub struct Output {
    /// How messages name it: `--state public/.state`, `the output public/sitemap.xml`.
    pub what: String,
    pub path: PathBuf,
    pub holds: Holds,
}

impl Output {
    pub fn new(what: impl Into<String>, path: PathBuf, holds: Holds) -> Output {
        Output {
            what: what.into(),
            path,
            holds,
        }
    }
}

/// Checks the run's outputs against the rule. `sitemap` is the sitemap's files when it
/// writes into a directory; `is_page` tells a page of the site. Returns each output's
/// target, in order: the file a rename replaces (a followed symlink's target).
pub fn check(
    outputs: &[Output],
    sitemap: Option<&Files>,
    is_page: impl Fn(&Path) -> bool,
) -> Result<Vec<PathBuf>> {
    let mut targets = Vec::with_capacity(outputs.len());
    for output in outputs {
        // The file, and its folder, which a run opens to lock it and to make the temp file.
        for path in [output.path.as_path(), super::dir_of(&output.path)] {
            if let (Some(device), Some(name)) = (native::device(path), path.file_name()) {
                bail!(
                    "{}: {} is the device {device} on Windows (with any extension), not a \
                     file or folder: {} cannot be written there{}",
                    output.what,
                    name.display(),
                    output.holds.called(),
                    hint(output.holds)
                );
            }
        }
        let target = target(output)?;
        let exempt =
            output.holds == Holds::Sitemap && sitemap.is_some_and(Files::has_sitemap_extension);
        if output.holds.named_by_user() && !exempt && is_page(&output.path) {
            bail!(
                "{} is a page of the site (its name matches --include): {} would replace \
                 it{}",
                output.what,
                output.holds.called(),
                hint(output.holds)
            );
        }
        targets.push(target);
    }
    for (n, (output, target)) in outputs.iter().zip(&targets).enumerate() {
        let mut earlier = outputs[..n].iter().zip(&targets);
        if let Some((other, _)) = earlier.find(|(_, t)| same_file(t, target)) {
            // Named after the output given later, which is the one that takes the place.
            bail!(
                "{} is also {}: one would overwrite the other{}",
                output.what,
                other.holds.called(),
                hint(output.holds)
            );
        }
    }
    for (output, target) in outputs.iter().zip(&targets) {
        if let Some(files) = sitemap
            && output.holds != Holds::Sitemap
            && beside(target, files.dir())
            && target.file_name().is_some_and(|name| files.is_ours(name))
        {
            bail!(
                "{} is also a file of the sitemap (a shard's or a group's name): one would \
                 overwrite the other{}",
                output.what,
                hint(output.holds)
            );
        }
        refuse_foreign(output, target)?;
    }
    Ok(targets)
}

/// The output among `outputs` (whose targets `check` gave) that writes the file at `path`.
pub fn output_at<'o>(
    path: &Path,
    outputs: &'o [Output],
    targets: &[PathBuf],
) -> Option<&'o Output> {
    outputs
        .iter()
        .zip(targets)
        .find_map(|(output, target)| same_file(path, target).then_some(output))
}

/// Refuses a file at `target` that `output` may not replace.
pub fn refuse_foreign(output: &Output, target: &Path) -> Result<()> {
    if !matches!(output.holds, Holds::State | Holds::Robots) && !output.holds.may_take(target)? {
        bail!(
            "{} exists and {}: {} would replace it{}",
            output.what,
            output.holds.foreign(),
            output.holds.called(),
            hint(output.holds)
        );
    }
    Ok(())
}

fn hint(holds: Holds) -> String {
    holds
        .hint()
        .map(|hint| format!("\nhint: {hint}"))
        .unwrap_or_default()
}

/// The file a rename at the output's path replaces: the path, or a followed symlink's
/// target (the link stays); never a device, pipe or directory.
fn target(output: &Output) -> Result<PathBuf> {
    let what = &output.what;
    let path = &output.path;
    // robots.txt is read for its rules whatever it is: its plan refuses what it cannot edit.
    if output.holds == Holds::Robots {
        return Ok(path.clone());
    }
    match fs::symlink_metadata(path) {
        Err(_) => Ok(path.clone()),
        Ok(meta) if meta.is_file() => Ok(path.clone()),
        Ok(meta) if meta.is_symlink() && output.holds.named_by_user() => {
            match fs::canonicalize(path) {
                Ok(target) if target.is_file() => Ok(target),
                Ok(_) => bail!("{what} is not a regular file"),
                Err(err) => bail!("{what} is a symlink that cannot be followed: {err}"),
            }
        }
        Ok(meta) if meta.is_symlink() => {
            bail!("{what} is a symlink, and sitemapgen writes it only as a file of its own")
        }
        Ok(_) => bail!("{what} is not a regular file"),
    }
}

/// Whether the file at `path` lies directly in `dir`.
fn beside(path: &Path, dir: &Path) -> bool {
    let parent = super::dir_of(path);
    same_file(parent, dir)
}

/// Whether two paths name one file (the same inode, or the same place for files that do not
/// exist yet).
fn same_file(a: &Path, b: &Path) -> bool {
    match (native::identity(a, true), native::identity(b, true)) {
        (Ok(a), Ok(b)) => a.same_file(&b),
        (Err(_), Err(_)) => {
            let place = |path: &Path| {
                let dir = super::dir_of(path).canonicalize().ok()?;
                Some((dir, path.file_name()?.to_owned()))
            };
            place(a).is_some_and(|place_a| Some(place_a) == place(b))
        }
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_output_replaces_only_what_it_writes() {
        let name = OsStr::new("x");
        let cases: &[(Holds, &str, bool)] = &[
            (Holds::Sitemap, "<urlset xmlns=\"…\">", true),
            (Holds::Sitemap, "User-agent: *\n", false),
            (
                Holds::Changes,
                "added https://e.com/a\nremoved https://e.com/b\n",
                true,
            ),
            (
                Holds::Changes,
                "added https://e.com/a\nredated https://e.c",
                true,
            ),
            (Holds::Changes, "redated https://e.com/a.html", true),
            (
                Holds::Changes,
                "User-agent: *\nDisallow: /private/\n",
                false,
            ),
            (Holds::Changes, "added https://e.com/a b\n", false),
            (Holds::Changes, "# notes\n", false),
            (
                Holds::Stylesheet,
                "<?xml?>\n<!-- sitemapgen's default stylesheet -->",
                true,
            ),
            (Holds::Stylesheet, "<xsl:stylesheet/>", false),
            (
                Holds::Receipt,
                "sitemapgen-indexnow 1\nabc\nsubmitted 3\n",
                true,
            ),
            (Holds::Receipt, "my notes", false),
            (Holds::Robots, "User-agent: *", true),
            (
                Holds::Summary,
                "{\n  \"version\": 1,\n  \"listed\": 3",
                true,
            ),
            (Holds::Summary, "{\"name\": \"my-site\"}", false),
            (Holds::Summary, "version: 1", false),
        ];
        for &(holds, start, may) in cases {
            assert_eq!(
                holds.may_replace(name, start.as_bytes()),
                may,
                "{holds:?} {start:?}"
            );
        }
        for holds in [
            Holds::Sitemap,
            Holds::State,
            Holds::Changes,
            Holds::KeyFile,
            Holds::Summary,
        ] {
            assert!(holds.may_replace(name, b" \n"), "{holds:?}");
        }
        let key = OsStr::new("abcdefgh.txt");
        assert!(Holds::KeyFile.may_replace(key, b"abcdefgh\n"));
        assert!(!Holds::KeyFile.may_replace(key, b"abcdefgi\n"));
        assert!(!Holds::KeyFile.may_replace(OsStr::new("abcdefgh"), b"abcdefgh"));
    }
}
