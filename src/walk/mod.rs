//! The candidate files: a walk of DIR or a given list, both in the same order, filtered by the
//! rules into pages. The order is depth first, each directory's names ordered by `sort_key`.
//!
//! The finding runs ahead of the caller's work on each page, on threads of its own, and so
//! does the caller's first work on each page (`Prepare`: reading it), as soon as the page is
//! statted. The walk (`tree`) reads directories on several threads, each directory's pages
//! (or each part of a large one's) statted and prepared by one thread, and puts their
//! results back in order. A list is read and ordered first (`find`), then handed on by a
//! thread of its own, in batches of a size its length sets, to `-j` threads that stat, rule
//! on and prepare its files (`stat`); their results are put back in order.
//!
//! # Against the walker crates
//!
//! Issue 34 asked whether walkdir, jwalk or ignore::WalkParallel should replace the walk.
//! `benches/walkers.sh rust-doc 200000 1000000` (the crates in `benches/walkers`) lists
//! every file of a tree with one stat each, in this walk's order, with walkdir 2.5.1 (sorted
//! as read, one thread), jwalk 0.9.0 (sorted and statted in `process_read_dir`, 2 threads)
//! and ignore 0.4.35 (2 threads, unordered, then sorted), against `sitemapgen --no-html
//! --include '*' --no-default-excludes --hidden --ignore-disallow --format txt`, which also
//! maps the files to URLs and writes them. All keep a non-UTF-8 name's bytes and follow no
//! symlink loop (each crate yields one as an error when it follows links); walkdir and jwalk
//! give this order as they walk. Release build of 4550d9b (this walk's code, only moved
//! since), 2 AMD EPYC CPUs, nothing else running (0.01–0.03 of 2 CPUs busy before and
//! after); `RUNS=7 WARMUP=1` (1M: `RUNS=5`). Median wall time, and the medians of the
//! rounds' ratios to sitemapgen, wall / CPU (user+sys):
//!
//! ```text
//! tree       files      sitemapgen  walkdir     jwalk       ignore+sort ignore
//! rust-doc      32,819      98 ms   1.80/1.01   0.90/0.96   1.09/1.02   0.92/0.92
//! 200k         260,045     515 ms   2.00/1.04   1.30/1.33   1.29/1.16   1.14/1.12
//! 1M         1,300,189    2.44 s    1.85/0.96   1.07/1.09   1.28/1.14   1.03/1.01
//! ```
//!
//! So this walk stays: it is 1.8–2x faster than walkdir's one thread, and 1.1–1.3x faster
//! than ignore (which is not in order until its walk ends, so every path is held and sorted
//! first) and jwalk on the large trees, whose 10% lead on rust-doc (9 ms, where sitemapgen
//! also writes the sitemap) is the only figure in their favour. It also stats and opens each
//! page through its directory's descriptor (the crates give paths) and splits a large
//! directory into parts any thread takes (`tree::PART`; python3.11-doc's `library/` holds
//! 317 of its 530 pages). On a machine whose cores other work kept busy, all four cost the
//! same CPU within 10% (the same script, load 8–16: benches/README.md).

pub mod builds;
mod find;
pub mod rules;
mod stat;
mod tree;

use std::collections::BTreeMap;
use std::ffi::OsStr;
use std::fs::File;
use std::io;
use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::sync::mpsc::{Receiver, sync_channel};
use std::thread;

use anyhow::Result;

use crate::io::native;
use crate::known::Stamp;
use crate::report::{Reason, Report, Warning};
use find::Finder;
pub use find::inside;
use native::Dir;
use rules::Rules;

/// What the walk needs to know.
#[derive(Debug)]
pub struct Settings {
    pub root: PathBuf,
    pub source: Source,
    pub rules: Rules,
    /// -v: excluded files are named, with their reasons.
    pub verbose: bool,
}

/// Where the candidate files come from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Source {
    Walk { follow: bool },
    List { from: ListFrom, separator: u8 },
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ListFrom {
    Stdin,
    File(PathBuf),
    /// One file, relative to DIR (`inside`): --explain's page.
    Page(PathBuf),
}

/// A file that the rules made a page.
pub struct Page {
    /// Relative to DIR, made only of normal components.
    pub rel: PathBuf,
    /// To open it: DIR joined with `rel`.
    pub path: PathBuf,
    /// Modification time in seconds since the epoch (of the target, for a symlink).
    pub mtime: i64,
    /// What the stat said, for `--state` to tell an unchanged file.
    pub stamp: Stamp,
}

/// A page's file, to be opened through a descriptor of its directory: one short lookup
/// instead of a lookup of every component of its path.
pub struct PageFile<'a> {
    dir: &'a Dir,
    name: &'a OsStr,
}

impl PageFile<'_> {
    /// Opens the file for reading (following a symlink, as its stat did).
    pub fn open(&self) -> io::Result<File> {
        self.dir.open_file(self.name)
    }
}

/// The caller's first work on each page, done on the thread that statted it, in parallel
/// with the walk: what the caller is handed in the page's place.
pub trait Prepare: Sync {
    /// A thread's own means (buffers reused from page to page).
    type Scratch: Default;
    type Prepared: Send;

    fn prepare(&self, scratch: &mut Self::Scratch, page: Page, file: PageFile) -> Self::Prepared;
}

/// What the walk hands on, in order.
pub enum Walked<T> {
    /// A page, prepared.
    Page(T),
    /// What else happened, to be reported in its place (`Event::report`).
    Event(Event),
}

/// Calls `on_walked` for every page, prepared by `prepare`, and every event, in order. A
/// walk reads directories on `threads` threads.
pub fn visit<P: Prepare>(
    settings: &Settings,
    threads: usize,
    prepare: &P,
    report: &mut Report,
    mut on_walked: impl FnMut(Walked<P::Prepared>, &mut Report) -> Result<()>,
) -> Result<()> {
    let (from, separator) = match &settings.source {
        Source::Walk { follow } => {
            return tree::walk(settings, *follow, threads, prepare, |walked| {
                on_walked(walked, report)
            });
        }
        Source::List { from, separator } => (from, *separator),
    };
    let rels = find::read_list(settings, from, separator)?;
    let size = batch_size(rels.len(), threads);
    let (sender, unstatted) = sync_channel(READ_AHEAD / size);
    let unstatted: Batches = Mutex::new(Some((unstatted, 0)));
    thread::scope(|scope| {
        let (statted, receiver) = sync_channel(READ_AHEAD / size);
        let stat_stage: Vec<_> = (0..threads.max(1))
            .map(|_| {
                let (unstatted, statted) = (&unstatted, statted.clone());
                scope.spawn(move || stat::stat_pages(unstatted, statted, settings, prepare))
            })
            .collect();
        drop(statted);
        let finder = scope.spawn(move || Finder::new(settings, size, sender).send_all(rels));
        // The receiver goes with `consume`: a failed consumer stops the finder at its next send.
        let consumed = consume(receiver, report, &mut on_walked);
        let found = finder
            .join()
            .unwrap_or_else(|panic| std::panic::resume_unwind(panic));
        for thread in stat_stage {
            thread
                .join()
                .unwrap_or_else(|panic| std::panic::resume_unwind(panic));
        }
        consumed.and(found)
    })
}

/// Listed files in one batch for a thread of the stat stage: enough batches for each thread
/// to take `BATCHES_PER_THREAD`, so that a list of a few hundred pages read whole is spread
/// over every thread (with batches of 512, python3.11-doc's 530 pages went to one); at least
/// `MIN_BATCH` (with 32, `--no-html` over rust-doc's list took 8% longer than with 64), and
/// at most `MAX_BATCH`, which a long list gets: each hand-over wakes a thread, and batches
/// of 512 instead of 64 made `--no-html` over the 260,000 files of the 200k tree 10% faster.
fn batch_size(files: usize, threads: usize) -> usize {
    (files / (threads.max(1) * BATCHES_PER_THREAD)).clamp(MIN_BATCH, MAX_BATCH)
}
const BATCHES_PER_THREAD: usize = 32;
const MIN_BATCH: usize = 64;
const MAX_BATCH: usize = 512;

/// Listed files read ahead of the caller (in each of the two stages' queues, which hold at
/// least one batch).
const READ_AHEAD: usize = 4 * 1024;
const _: () = assert!(READ_AHEAD >= MAX_BATCH);

/// A list's batches, as the stat stage's threads take them in turn: their receiver (None
/// once the consumer is gone, which stops the finder) and how many were taken.
type Batches = Mutex<Option<(Receiver<Vec<Listed>>, u64)>>;

/// A listed file, in order, for the stat stage to look at: a page, or left out (a
/// directory, the rules), or an error (it cannot be looked at).
struct Listed {
    rel: PathBuf,
    /// DIR joined with `rel`.
    path: PathBuf,
    /// Why the walk would not have entered a directory above it (and what it said), if it
    /// would not.
    inside_skipped: Option<(Reason, String)>,
}

pub enum Event {
    /// A file that is not a page; named (with the reason) only when -v will print it.
    Excluded(Reason, Option<(PathBuf, String)>),
    /// A directory or file passed over uncounted; sent only for -v.
    Skipped(PathBuf, String),
    Warning(Warning, String, &'static str),
    /// A failure, in its place in the order.
    Failed(anyhow::Error),
}

fn excluded(verbose: bool, rel: &Path, reason: Reason, why: impl std::fmt::Display) -> Event {
    Event::Excluded(
        reason,
        verbose.then(|| (rel.to_path_buf(), why.to_string())),
    )
}

/// Hands on the stat stage's batches in the order they were found: each comes with its
/// number, and those that come early wait (at most as many as are in flight).
fn consume<T>(
    receiver: Receiver<(u64, Vec<Walked<T>>)>,
    report: &mut Report,
    on_walked: &mut impl FnMut(Walked<T>, &mut Report) -> Result<()>,
) -> Result<()> {
    let mut early = BTreeMap::new();
    let mut next = 0;
    for (number, batch) in receiver {
        early.insert(number, batch);
        while let Some(batch) = early.remove(&next) {
            next += 1;
            for walked in batch {
                on_walked(walked, report)?;
            }
        }
    }
    Ok(())
}

impl Event {
    /// Reports the event; a failure is the run's.
    pub fn report(self, report: &mut Report) -> Result<()> {
        match self {
            Event::Excluded(reason, Some((rel, why))) => report.left_out(&rel, reason, why),
            Event::Excluded(reason, None) => report.left_out_unnamed(reason),
            Event::Skipped(rel, why) => report.skipped(&rel, why),
            Event::Warning(kind, problem, consequence) => {
                report.warn(kind, problem, consequence)?
            }
            Event::Failed(err) => return Err(err),
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_list_is_cut_into_batches_that_spread_over_every_thread() {
        // python3.11-doc's 1,063 files: batches of the least size, 17 of them.
        assert_eq!(batch_size(1_063, 2), MIN_BATCH);
        // Enough batches for each thread to take 32 ...
        assert_eq!(batch_size(10_000, 2), 156);
        assert_eq!(batch_size(10_000, 1), 312);
        // ... up to the largest batch: rust-doc's 32,771 files, the 200k tree's 260,001.
        assert_eq!(batch_size(32_771, 2), MAX_BATCH);
        assert_eq!(batch_size(260_001, 2), MAX_BATCH);
        assert_eq!(batch_size(0, 0), MIN_BATCH);
    }
}
