//! The state stage: what the last run recorded, loaded before the walk, so that deciding
//! the pages needs no network and no file of the state. It is found in the state file; when
//! there is none, where the last deploy published it (`--state-url`); when there is none
//! either, in the sitemap published before (`--previous-sitemap`); else a first run.
//! Publishing writes the new state (`file::Writer`), and its copy for the deploy
//! (`--state-copy`).

pub mod file;
pub mod old;
pub mod origin;

use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use anyhow::Result;

use crate::report::{Report, Warning};
use crate::url::BaseUrl;
pub use file::{Writer, parse, read};
pub use old::{OldState, Record, Recorded, Take};

/// `--state` and what goes with it.
#[derive(Debug)]
pub struct Settings {
    /// The state file (a symlink resolved to its target).
    pub path: PathBuf,
    /// The digest rules (--digest, --digest-region, --digest-ignore) as a state's second
    /// line names them: a state written with other rules has digests that do not compare.
    pub rules: String,
    /// --max-churn, a percentage.
    pub max_churn: Option<f64>,
    /// Whether the run writes the state (not under --check, nor for a preview on standard
    /// output).
    pub write: bool,
    /// --state-url: where the last deploy published the state, read when there is no state
    /// file.
    pub url: Option<url::Url>,
    /// --state-copy: where a copy of the new state goes for the deploy to publish (the
    /// state file kept where the output's cleaning does not reach).
    pub copy: Option<PathBuf>,
    /// Whether the state file, or its copy, lies inside DIR, and so is deployed with the
    /// site.
    pub in_dir: bool,
    /// Whether the run is in CI (`CI` set), where a site out of reach is a failure, not a
    /// first run.
    pub ci: bool,
    /// --previous-sitemap: whose dates are kept when there is no state at all.
    pub previous_sitemap: Option<origin::Published>,
    /// --http-timeout.
    pub timeout: Duration,
    /// --changes: where the URLs added, re-dated and removed are written.
    pub changes: Option<PathBuf>,
}

/// What was found, and whether it is a sitemap's dates (no digests to compare). The state
/// is shared: the threads that read the pages ask it which pages to digest.
pub struct Found {
    pub state: Arc<OldState>,
    pub adopted: bool,
}

/// The state of the last run, as `settings` find it; a warning when the state cannot serve
/// as well as it should.
pub fn load(settings: &Settings, base: &BaseUrl, report: &mut Report) -> Result<Found> {
    let found = origin::find(settings, base, report)?;
    if settings.url.is_some() && settings.write && !settings.in_dir {
        report.warn(
            Warning::Run,
            format!(
                "the state file {} is outside DIR, so the deploy does not publish it at \
                 --state-url: the next run would read an older state and re-date what \
                 changed since",
                settings.copy.as_ref().unwrap_or(&settings.path).display()
            ),
            "writing it anyway (put it, or its --state-copy, in DIR, or publish it at \
             --state-url yourself)",
        )?;
    }
    if !found.state.comparable && !found.adopted {
        report.warn(
            Warning::Run,
            "the digest rules (--digest, --digest-region, --digest-ignore) differ from those \
             the state was written with",
            "digests are made anew and every recorded date is kept",
        )?;
    }
    Ok(found)
}
