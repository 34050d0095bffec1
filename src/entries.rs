//! The candidate files: a walk of DIR or a given list, both in the same order, filtered by the
//! rules into pages. The order is depth first, each directory's names ordered by `sort_key`.

use std::ffi::OsStr;
use std::fs;
use std::io::{self, Read};
use std::os::unix::ffi::OsStrExt;
use std::os::unix::fs::MetadataExt;
use std::path::{Component, Path, PathBuf};

use anyhow::{Context, Result, anyhow, bail};
use globset::Candidate;
use walkdir::WalkDir;

use crate::config::{Config, ListFrom, Source};
use crate::report::Report;
use crate::rules::Skip;

/// A file that the rules made a page.
pub struct Page<'a> {
    /// Relative to DIR, made only of normal components.
    pub rel: &'a Path,
    /// To open it: DIR joined with `rel`.
    pub path: &'a Path,
    pub candidate: &'a Candidate<'a>,
    /// Size and modification time in seconds since the epoch (of the target, for a symlink).
    pub size: u64,
    pub mtime: i64,
}

/// Calls `on_page` for every page, in order.
pub fn visit(
    config: &Config,
    report: &mut Report,
    mut on_page: impl FnMut(&Page, &mut Report) -> Result<()>,
) -> Result<()> {
    match &config.source {
        Source::Walk { follow } => walk(config, *follow, report, &mut on_page),
        Source::List { from, separator } => list(config, from, *separator, report, &mut on_page),
    }
}

type OnPage<'f> = dyn FnMut(&Page, &mut Report) -> Result<()> + 'f;

fn walk(config: &Config, follow: bool, report: &mut Report, on_page: &mut OnPage) -> Result<()> {
    let root = &config.root;
    let mut entries = WalkDir::new(root)
        .follow_links(follow)
        .sort_by(|a, b| sort_key(a.file_name()).cmp(&sort_key(b.file_name())))
        .min_depth(1)
        .into_iter();
    while let Some(next) = entries.next() {
        let entry = match next {
            Ok(entry) => entry,
            Err(err) => {
                walk_error(config, err, report, on_page)?;
                continue;
            }
        };
        let rel = relative(root, entry.path());
        if entry.file_type().is_dir() {
            if let Some(why) = config.rules.skip_dir(rel) {
                report.skipped(rel, why);
                entries.skip_current_dir();
            }
            continue;
        }
        if entry.path_is_symlink() && is_dir_symlink(entry.path()) {
            report.skipped(rel, DIR_SYMLINK);
            continue;
        }
        consider_file(config, rel, entry.path(), report, on_page)?;
    }
    Ok(())
}

const DIR_SYMLINK: &str = "a symlink to a directory (use -L to enter it)";

fn is_dir_symlink(path: &Path) -> bool {
    fs::metadata(path).is_ok_and(|meta| meta.is_dir())
}

/// A symlink loop or a dangling symlink costs one entry (a warning); anything else the walk
/// cannot read is an error: a silently missing subtree is worse than no new sitemap.
fn walk_error(
    config: &Config,
    err: walkdir::Error,
    report: &mut Report,
    on_page: &mut OnPage,
) -> Result<()> {
    let path = err.path().unwrap_or(&config.root).to_path_buf();
    if let Some(ancestor) = err.loop_ancestor() {
        return report.warn(
            format!(
                "symlink loop: {} leads back to {}",
                path.display(),
                ancestor.display()
            ),
            "not followed",
        );
    }
    let is_symlink = fs::symlink_metadata(&path).is_ok_and(|meta| meta.is_symlink());
    let dangling = err.io_error().map(io::Error::kind) == Some(io::ErrorKind::NotFound);
    if is_symlink && dangling {
        // Under -L the walk stats link targets itself; judge the link like any other file.
        return consider_file(
            config,
            relative(&config.root, &path),
            &path,
            report,
            on_page,
        );
    }
    let source = err
        .into_io_error()
        .map_or_else(|| anyhow!("cannot be walked"), anyhow::Error::from);
    Err(source.context(format!("cannot read {}", path.display())))
}

fn consider_file(
    config: &Config,
    rel: &Path,
    path: &Path,
    report: &mut Report,
    on_page: &mut OnPage,
) -> Result<()> {
    let candidate = Candidate::new(rel);
    match config.rules.skip_file(rel, &candidate) {
        None => {}
        Some(Skip::OwnOutput) => {
            report.skipped(rel, Skip::OwnOutput);
            return Ok(());
        }
        Some(why) => {
            report.excluded(rel, why);
            return Ok(());
        }
    }
    let meta = match fs::metadata(path) {
        Ok(meta) => meta,
        Err(err) if err.kind() == io::ErrorKind::NotFound => {
            report.excluded(rel, "gone");
            let what = match fs::symlink_metadata(path) {
                Ok(_) => "is a dangling symlink",
                Err(_) => "vanished while the site was being read",
            };
            return report.warn(format!("{} {what}", rel.display()), "not listed");
        }
        Err(err) => return Err(err).with_context(|| format!("cannot read {}", path.display())),
    };
    if !meta.is_file() {
        report.excluded(rel, "not a regular file");
        return Ok(());
    }
    on_page(
        &Page {
            rel,
            path,
            candidate: &candidate,
            size: meta.len(),
            mtime: meta.mtime(),
        },
        report,
    )
}

/// Orders the names of one directory: index.html, index.htm, then the rest byte-wise. So a
/// section's URL precedes its pages, and index.html wins when both index files exist.
fn sort_key(name: &OsStr) -> (u8, &[u8]) {
    let name = name.as_bytes();
    let rank = match name {
        b"index.html" => 0,
        b"index.htm" => 1,
        _ => 2,
    };
    (rank, name)
}

fn relative<'a>(root: &Path, path: &'a Path) -> &'a Path {
    path.strip_prefix(root)
        .expect("the walk yields paths under its root")
}

fn list(
    config: &Config,
    from: &ListFrom,
    separator: u8,
    report: &mut Report,
    on_page: &mut OnPage,
) -> Result<()> {
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
    let root = &config.root;
    let roots = [root.canonicalize()?, std::path::absolute(root)?];
    let mut rels = data
        .split(|&byte| byte == separator)
        .filter(|item| !item.is_empty())
        .map(|item| inside_root(Path::new(OsStr::from_bytes(item)), &roots))
        .collect::<Result<Vec<_>>>()?;
    // DIR itself (`find .` lists `.`) is a directory, not a page.
    rels.retain(|rel| !rel.as_os_str().is_empty());
    rels.sort_by(|a, b| a.iter().map(sort_key).cmp(b.iter().map(sort_key)));
    rels.dedup();

    let mut dir_skip: Option<(PathBuf, Option<(PathBuf, Skip)>)> = None;
    for rel in &rels {
        let path = root.join(rel);
        let meta = match fs::symlink_metadata(&path) {
            Ok(meta) => meta,
            Err(err) => bail!("listed file {} cannot be read: {err}", path.display()),
        };
        let dir = rel.parent().unwrap_or(Path::new(""));
        if dir_skip.as_ref().is_none_or(|(cached, _)| cached != dir) {
            dir_skip = Some((dir.to_path_buf(), skipped_ancestor(config, dir)));
        }
        if let Some((_, Some((ancestor, why)))) = &dir_skip {
            report.excluded(rel, format!("inside {}: {why}", ancestor.display()));
            continue;
        }
        if meta.is_dir() {
            report.skipped(rel, "a directory");
            continue;
        }
        if meta.is_symlink() && is_dir_symlink(&path) {
            report.skipped(rel, DIR_SYMLINK);
            continue;
        }
        consider_file(config, rel, &path, report, on_page)?;
    }
    Ok(())
}

/// The first directory above a listed file that the walk would not have entered.
fn skipped_ancestor<'c>(config: &'c Config, dir: &Path) -> Option<(PathBuf, Skip<'c>)> {
    let mut ancestor = PathBuf::new();
    for component in dir.components() {
        ancestor.push(component);
        if let Some(why) = config.rules.skip_dir(&ancestor) {
            return Some((ancestor, why));
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
