//! Making a run's files visible, in an order that never shows a mix: robots.txt is read
//! first (one that cannot be taken stops the run with nothing changed); then the state,
//! the changes and the IndexNow key file, the shards and the index are renamed into place
//! (the first put back if the sitemap cannot follow); robots.txt last; then what an earlier
//! run left is removed.

pub mod robots;
pub mod state;

use std::path::{Path, PathBuf};

use std::io::Write;

use anyhow::{Context, Result, bail};

use crate::error::UsageError;
use crate::io::atomic::{self, Beside, Replaced, Sink, Temp, Written};
use crate::io::input;
use crate::outputs::claim::{self, Holds, Output};
use crate::outputs::key::Key;
use crate::outputs::read::{self, Document};
use crate::outputs::{Files, Format};
use crate::report::{Report, Warning};
use crate::url::{BaseUrl, encode_path};

/// How the run's files are published.
#[derive(Debug)]
pub struct Settings {
    pub root: PathBuf,
    pub base: BaseUrl,
    /// --robots, with the public URL of the output's directory (the output lies inside DIR).
    pub robots: Option<String>,
    /// --indexnow-key-env or --indexnow-key-file: its key file goes into DIR.
    pub indexnow_key: Option<Key>,
    /// --write-xsl: the default stylesheet goes into DIR.
    pub write_xsl: bool,
}

/// The IndexNow key file DIR/KEY.txt, as an output of the run. The key is a secret until
/// the site is deployed: messages do not name the file.
pub fn key_file(root: &Path, key: &Key) -> Output {
    Output::new(
        "the IndexNow key file in DIR (KEY.txt, named after the key)",
        root.join(key.file_name()),
        Holds::KeyFile,
    )
}

/// The IndexNow key file, when it must be written: search engines fetch it to check that a
/// submission comes from the site. One that holds the key already stays as it is.
pub fn plan_key_file(settings: &Settings) -> Result<Option<(Written<Beside>, PathBuf)>> {
    let Some(key) = &settings.indexnow_key else {
        return Ok(None);
    };
    own_file(&key_file(&settings.root, key), key.as_str().as_bytes())
}

/// The name of `--write-xsl`'s stylesheet, at the root of DIR.
pub const STYLESHEET: &str = "sitemap.xsl";

/// What `--write-xsl` writes.
const STYLESHEET_XSL: &[u8] = include_bytes!("sitemap.xsl");

/// DIR/sitemap.xsl, as an output of the run.
pub fn stylesheet(root: &Path) -> Output {
    let path = root.join(STYLESHEET);
    Output::new(path.display().to_string(), path, Holds::Stylesheet)
}

/// DIR/sitemap.xsl under --write-xsl, when it must be written: missing, or an earlier
/// version of ours (its comment says whose it is). Someone else's stylesheet stays.
pub fn plan_stylesheet(settings: &Settings) -> Result<Option<(Written<Beside>, PathBuf)>> {
    if !settings.write_xsl {
        return Ok(None);
    }
    own_file(&stylesheet(&settings.root), STYLESHEET_XSL)
}

/// A file of ours in DIR, `contents` written beside its path unless it holds them already;
/// an error when the file is one the output may not replace (or a symlink, a directory).
fn own_file(output: &Output, contents: &[u8]) -> Result<Option<(Written<Beside>, PathBuf)>> {
    let (what, path) = (&output.what, &output.path);
    match std::fs::symlink_metadata(path) {
        Err(_) => {}
        Ok(meta) if !meta.is_file() => {
            bail!("{what} is not a regular file (a symlink, a directory?)")
        }
        Ok(_) => {
            let held = std::fs::read(path).with_context(|| format!("cannot read {what}"))?;
            if held.trim_ascii() == contents.trim_ascii() {
                return Ok(None);
            }
            claim::refuse_foreign(output, path)?;
        }
    }
    let context = || format!("cannot write {what}");
    let mut sink = Sink::new(Beside::of(path).with_context(context)?, false);
    sink.write_all(contents).with_context(context)?;
    Ok(Some((sink.finish().with_context(context)?, path.clone())))
}

/// What DIR/robots.txt must become under --robots; a warning when crawlers will not read it.
pub fn plan_robots(
    settings: &Settings,
    files: &Files,
    format: Format,
    shards: usize,
    report: &mut Report,
) -> Result<Option<robots::Plan>> {
    let Some(dir_url) = &settings.robots else {
        return Ok(None);
    };
    if !settings.base.is_host_root() {
        report.warn(
            Warning::Run,
            format!(
                "crawlers read robots.txt only at the root of a host, and DIR/robots.txt is \
                 served at {}robots.txt",
                settings.base.join("")
            ),
            "writing it anyway (add the Sitemap line to the host's own robots.txt)",
        )?;
    }
    // What a search engine is given: the output, or a text sitemap's shards.
    let url = |path: &Path| {
        format!(
            "{dir_url}{}",
            encode_path(Path::new(path.file_name().unwrap_or_default()))
        )
    };
    let urls = match format {
        Format::Txt if shards > 1 => (1..=shards).map(|n| url(&files.shard_path(n))).collect(),
        _ => vec![url(&files.path)],
    };
    robots::Plan::new(&settings.root, &urls, files).map(Some)
}

/// Publishes the sitemap's files (the index last) with the state and robots.txt, then
/// removes what an earlier run left that this one does not replace. The caller holds the
/// output directory's `Publishing` lock.
pub fn commit(
    files: &Files,
    (format, shards): (Format, usize),
    outputs: Vec<(PathBuf, Written<Temp>)>,
    companions: Vec<(Written<Beside>, PathBuf)>,
    robots: Option<robots::Plan>,
    report: &mut Report,
) -> Result<()> {
    // Renames cannot fail together; find what would stop one before the first is done.
    for (path, _) in &outputs {
        if std::fs::symlink_metadata(path).is_ok_and(|meta| !meta.is_file()) {
            bail!("cannot write {}: it is not a regular file", path.display());
        }
        let shard = Output::new(path.display().to_string(), path.clone(), Holds::Sitemap);
        if let Err(err) = claim::refuse_foreign(&shard, path) {
            return Err(UsageError(format!("{err:#}")).into());
        }
    }
    let robots = match &robots {
        Some(plan) => plan.write()?.map(|written| (written, &plan.path)),
        None => None,
    };
    let written: Vec<PathBuf> = outputs.iter().map(|(path, _)| path.clone()).collect();
    publish(outputs, companions)?;
    if let Some((written, path)) = robots {
        written.publish(path)?;
    }
    remove_stale(files, format, shards, &written, report)
}

/// Makes the new sitemap visible, the index last. The companions (the state, the changes,
/// the key file) go first and are put back if the sitemap cannot follow: never one without
/// the other. (A crash between the two leaves the new state with the old sitemap, which the
/// next run publishes as it should have been.)
fn publish(
    outputs: Vec<(PathBuf, Written<Temp>)>,
    companions: Vec<(Written<Beside>, PathBuf)>,
) -> Result<()> {
    let mut replaced = Vec::new();
    let publish_all = || -> Result<()> {
        for (written, path) in companions {
            replaced.push(Replaced::new(written, &path)?);
        }
        for (path, written) in outputs {
            written.publish_at(&path)?;
        }
        Ok(())
    };
    match publish_all() {
        Ok(()) => {
            for one in replaced {
                one.keep();
            }
            Ok(())
        }
        Err(err) => {
            for one in replaced.into_iter().rev() {
                one.undo()?;
            }
            Err(err)
        }
    }
}

/// Removes what an earlier run left that this one, which wrote `written`, does not replace:
/// shards past the new count (all of them when the sitemap is not split), groups' sitemaps
/// of ours it no longer writes, and for a split text sitemap the unsplit output.
fn remove_stale(
    files: &Files,
    format: Format,
    shards: usize,
    written: &[PathBuf],
    report: &mut Report,
) -> Result<()> {
    let mut stale = files.stale(written)?;
    // The unsplit text sitemap of an earlier run; through a symlink it may be anyone's file.
    if format == Format::Txt && shards > 1 {
        match std::fs::symlink_metadata(&files.path) {
            Ok(meta) if meta.is_symlink() => report.warn(
                Warning::Run,
                format!(
                    "{} is a symlink, and a split text sitemap has no file of that name",
                    files.path.display()
                ),
                "left as it is (remove it if it holds an earlier sitemap)",
            )?,
            Ok(meta) if meta.is_file() && Holds::Sitemap.may_take(&files.path)? => {
                stale.push(files.path.clone());
            }
            _ => {}
        }
    }
    stale.extend(other_index(files)?);
    for path in stale {
        if let Err(err) = std::fs::remove_file(&path) {
            report.warn(
                Warning::Run,
                format!("cannot remove {}: {err}", path.display()),
                "an unused sitemap file of an earlier run stays",
            )?;
        }
    }
    Ok(())
}

/// Removes the sitemap at the output, with its shards and its groups' sitemaps, for a run
/// that lists no page (every page noindex): a sitemap left there would list pages that ask
/// not to be indexed. The caller holds the output directory's `Publishing` lock. Whether
/// anything was removed.
pub fn withdraw(files: &Files, report: &mut Report) -> Result<bool> {
    let mut stale = files.stale(&[])?;
    stale.extend(other_index(files)?);
    if std::fs::symlink_metadata(&files.path).is_ok_and(|meta| meta.is_file())
        && Holds::Sitemap.may_take(&files.path)?
    {
        stale.push(files.path.clone());
    }
    let mut removed = false;
    for path in stale {
        match std::fs::remove_file(&path) {
            Ok(()) => removed = true,
            Err(err) => report.warn(
                Warning::Run,
                format!("cannot remove {}: {err}", path.display()),
                "a sitemap of an earlier run stays",
            )?,
        }
    }
    Ok(removed)
}

/// An index of the other compression's (a run before --gzip was switched) that lists only
/// files of ours. An unsplit sitemap there stays: it may be another tool's, as does a file
/// that cannot be read as an index.
fn other_index(files: &Files) -> Result<Option<PathBuf>> {
    let other = files.other_output();
    Ok(
        (std::fs::symlink_metadata(&other).is_ok_and(|meta| meta.is_file())
            && Holds::Sitemap.may_take(&other)?
            && input::read_file(&other, input::MAX_SITEMAP)
                .ok()
                .flatten()
                .and_then(|bytes| read::parse(bytes, &other.display(), None).ok())
                .is_some_and(|document| match document {
                    Document::Index(locs) => locs.iter().all(|loc| {
                        let name = loc.rsplit('/').next().unwrap_or_default();
                        !name.is_empty() && files.named_like_ours(name.as_ref())
                    }),
                    _ => false,
                }))
        .then_some(other),
    )
}

/// Temp files of killed runs, where ours are made: in `dirs` (DIR, the output's directory,
/// the state's).
pub fn remove_leftovers(mut dirs: Vec<PathBuf>, report: &mut Report) -> Result<()> {
    dirs.sort();
    dirs.dedup();
    for dir in dirs {
        for path in atomic::remove_leftovers(&dir)? {
            report.detail(format_args!(
                "removed {}, left by a run that was killed",
                path.display()
            ));
        }
    }
    Ok(())
}
