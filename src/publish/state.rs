//! The new state (and its `--state-copy`) and the changes file of `--state`, written as the
//! pages are decided, each beside its file, and published with the sitemap.

use std::io::{self, Write};
use std::path::{Path, PathBuf};
use std::sync::Arc;

use anyhow::{Context, Result};

use crate::io::atomic::{Beside, Sink, Written};
use crate::outputs::changes::{self, Kind};
use crate::state::{self, OldState, Recorded};
use crate::url::BaseUrl;

/// The new state and the changes, being written.
pub struct NewState {
    state: state::Writer<Copies>,
    path: PathBuf,
    changes: Option<(changes::Writer<Sink<Beside>>, PathBuf)>,
    /// The state of the last run: what no page took of it are the removed pages.
    old: Arc<OldState>,
}

impl NewState {
    /// The new state, and the changes under --changes; None when the run writes no state.
    pub fn start(settings: &state::Settings, old: &Arc<OldState>) -> Result<Option<NewState>> {
        if !settings.write {
            return Ok(None);
        }
        let path = &settings.path;
        let context = || format!("cannot write state file {}", path.display());
        let mut copies = Copies(Vec::new());
        for path in std::iter::once(path).chain(&settings.copy) {
            copies.0.push((state_sink(path)?, path.clone()));
        }
        let state = state::Writer::new(copies, &settings.rules).with_context(context)?;
        let changes = match &settings.changes {
            Some(path) => {
                let context = || format!("cannot write the changes file {}", path.display());
                let sink = Sink::new(Beside::of(path).with_context(context)?, false);
                Some((changes::Writer::new(sink), path.clone()))
            }
            None => None,
        };
        Ok(Some(NewState {
            state,
            path: path.clone(),
            changes,
            old: Arc::clone(old),
        }))
    }

    /// Writes what --state recorded of the page listed at `loc`.
    pub fn record(&mut self, recorded: &Recorded, loc: &str) -> Result<()> {
        if let (Some(kind), Some((changes, path))) = (recorded.change, &mut self.changes) {
            changes
                .change(kind, loc)
                .with_context(|| format!("cannot write the changes file {}", path.display()))?;
        }
        if let Some((key, record)) = &recorded.record {
            self.state
                .record(key, record)
                .with_context(|| format!("cannot write state file {}", self.path.display()))?;
        }
        Ok(())
    }

    /// The new state, then the changes with the removed pages' URLs under `base` last,
    /// complete and not yet published, each with its path.
    pub fn finish(self, base: &BaseUrl) -> Result<Vec<(Written<Beside>, PathBuf)>> {
        let NewState {
            state,
            path,
            changes,
            old,
        } = self;
        let context = || format!("cannot write state file {}", path.display());
        let mut files = Vec::new();
        for (sink, path) in state.finish().with_context(context)?.0 {
            let context = || format!("cannot write state file {}", path.display());
            files.push((sink.finish().with_context(context)?, path));
        }
        if let Some((mut changes, changes_path)) = changes {
            let context = || format!("cannot write the changes file {}", changes_path.display());
            for key in old.untaken_keys() {
                changes
                    .change(Kind::Removed, &base.join(&key))
                    .with_context(context)?;
            }
            let written = changes.finish().finish().with_context(context)?;
            files.push((written, changes_path.clone()));
        }
        Ok(files)
    }
}

/// A state file being written beside `path`: compressed when its name ends in .gz (as a
/// state published with the site is).
fn state_sink(path: &Path) -> Result<Sink<Beside>> {
    let context = || format!("cannot write state file {}", path.display());
    let gzip = path.as_os_str().as_encoded_bytes().ends_with(b".gz");
    Ok(Sink::new(Beside::of(path).with_context(context)?, gzip))
}

/// The state file and its copy, written together.
struct Copies(Vec<(Sink<Beside>, PathBuf)>);

impl Write for Copies {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        for (sink, _) in &mut self.0 {
            sink.write_all(buf)?;
        }
        Ok(buf.len())
    }

    fn flush(&mut self) -> io::Result<()> {
        self.0.iter_mut().try_for_each(|(sink, _)| sink.flush())
    }
}
