//! The walk of DIR, on several threads. Whichever thread takes a directory reads it, orders
//! its names, applies the rules, stats its pages through a descriptor of it and prepares
//! them (opening them through it too); a large directory's names are split into parts that
//! any thread takes, so that a site of one flat directory is read on every core. The caller
//! puts the results back together depth first, in the order a walk on one thread gives.
//! The threads take the directories (and parts) earliest in that order first, and stop
//! reading ahead when enough results wait to be handed on: the memory stays bounded.

use std::collections::{BTreeMap, HashMap, VecDeque};
use std::ffi::OsString;
use std::mem::MaybeUninit;
use std::path::PathBuf;
use std::sync::{Arc, Condvar, Mutex, MutexGuard, PoisonError};
use std::thread;

use anyhow::Result;
use native::Kind;

use read::{ENTRIES_BUF, Open, PART, Reader};

use super::{Event, Prepare, Settings, Walked};
use crate::io::native;

mod read;

/// Entries read and not yet handed on past which the threads wait (unless the caller waits
/// for the job they would take next). They are woken again once half of them are handed
/// on: woken at each job handed on, they cost more in wake-ups than they save. Each page
/// waits prepared (about 550 bytes with its URL and paths): 4,096 keep that under 3 MiB
/// when the caller is the slower (--no-html), and are enough for the threads to read on.
const AHEAD: usize = 4 * 1024;

/// Entries ready past which the caller, waiting for the job it wants next, is woken once
/// that job is done: woken at each job (a directory of a few dozen pages), it would cost
/// two context switches a directory; woken with a thousand entries to hand on, it works
/// through them while the threads read on.
const WAKE: usize = AHEAD / 4;

/// Result buffers are kept for the threads to fill again once the caller has handed their
/// results on, up to room for this many entries in all (as many as may wait to be handed
/// on, so they take at most as much memory again as those), each of room for at most
/// `SPARE_MAX` (a directory's entries, or one part's). A buffer allocated by one thread and
/// freed by another takes the allocator's lock of the first (glibc's arenas): with a buffer
/// freed for each directory, the threads and the caller waited on those locks thousands of
/// times in a walk of 200,000 pages.
const SPARE_ROOM: usize = AHEAD;
const SPARE_MAX: usize = 2 * PART;

/// Walks DIR on `threads` threads, calling `on_walked` for every page (prepared by
/// `prepare`) and event, in order; stops at the first error `on_walked` returns.
pub(super) fn walk<P: Prepare>(
    settings: &Settings,
    follow: bool,
    threads: usize,
    prepare: &P,
    mut on_walked: impl FnMut(Walked<P::Prepared>) -> Result<()>,
) -> Result<()> {
    let shared = Shared {
        state: Mutex::new(State::default()),
        work: Condvar::new(),
        results: Condvar::new(),
    };
    let reader = Reader {
        settings,
        follow,
        prepare,
    };
    shared.lock().pending.insert(
        Vec::new(),
        Job::Dir {
            rel: PathBuf::new(),
            ancestors: None,
        },
    );
    thread::scope(|scope| {
        let workers: Vec<_> = (0..threads.max(1))
            .map(|_| scope.spawn(|| work(&shared, &reader)))
            .collect();
        let handed_on = {
            // However the caller's loop ends (an error, a panic), the threads stop.
            let _stop = Stop(&shared);
            hand_on(&shared, &mut on_walked)
        };
        // Each thread is joined, not only waited for by the scope, which waits until their
        // work returns, not until they have ended: the run never exits while one is still
        // ending. Wine (10.0) counts such a thread out twice when the process ends and then
        // ends the process with that thread's status, 0, whatever the run's own.
        for worker in workers {
            worker
                .join()
                .unwrap_or_else(|panic| std::panic::resume_unwind(panic));
        }
        handed_on
    })
}

/// Hands the threads' results on to `on_walked` in the order of a walk on one thread: depth
/// first, each directory's items in their order.
fn hand_on<T>(
    shared: &Shared<T>,
    on_walked: &mut impl FnMut(Walked<T>) -> Result<()>,
) -> Result<()> {
    // Result buffers handed on and emptied, to be given back to the threads.
    let mut emptied = Vec::new();
    let Some(root) = shared.take(&[], &mut emptied) else {
        return Ok(());
    };
    let mut stack = vec![(Vec::new(), VecDeque::from(root))];
    while let Some((place, items)) = stack.last_mut() {
        match items.pop_front() {
            None => {
                if let Some((_, items)) = stack.pop() {
                    emptied.push(Vec::from(items));
                }
            }
            Some(Item::Page(page)) => on_walked(Walked::Page(page))?,
            Some(Item::Event(event)) => on_walked(Walked::Event(event))?,
            Some(Item::Job(index)) => {
                let child = child(place, index);
                // None: a thread panicked; joining it passes the panic on.
                let Some(items) = shared.take(&child, &mut emptied) else {
                    return Ok(());
                };
                stack.push((child, VecDeque::from(items)));
            }
        }
    }
    Ok(())
}

/// What the walk gives, in a directory's order: a page (prepared) or an event, or where the
/// results of a job it made go (its index among them): a subdirectory entered, or a part of
/// the directory's entries.
enum Item<T> {
    Page(T),
    Event(Event),
    Job(u32),
}

/// What a thread takes.
enum Job {
    /// A directory to read.
    Dir {
        /// Relative to DIR (empty for DIR).
        rel: PathBuf,
        /// Under -L, the directories it lies in, to tell a symlink loop.
        ancestors: Option<Arc<Ancestor>>,
    },
    /// A part of a large directory's entries (their names and types, in order).
    Part {
        open: Arc<Open>,
        names: Vec<(OsString, Kind)>,
    },
}

/// A directory being walked, under -L, and the one it lies in.
struct Ancestor {
    id: (u64, u64),
    path: PathBuf,
    parent: Option<Arc<Ancestor>>,
}

/// A job's place in the walk: its index among the jobs its parent made, after its parent's.
/// Places in their order are the walk's order.
type Place = Vec<u32>;

struct State<T> {
    /// Jobs to take (directories to read, parts of one), by place.
    pending: BTreeMap<Place, Job>,
    /// Jobs done, with what they gave.
    ready: HashMap<Place, Vec<Item<T>>>,
    /// Empty result buffers, for the threads to fill again, and the entries they can hold.
    spares: Vec<Vec<Item<T>>>,
    spare_room: usize,
    /// Entries in `ready`.
    held: usize,
    /// The job the caller waits for.
    wanted: Option<Place>,
    /// The caller sleeps, to be woken once `wanted` is done (and `wake_caller` says so).
    caller_asleep: bool,
    /// Threads waiting for a job they may take.
    idle: usize,
    /// The caller is done (or a thread panicked).
    stop: bool,
    panicked: bool,
}

impl<T> Default for State<T> {
    fn default() -> Self {
        State {
            pending: BTreeMap::new(),
            ready: HashMap::new(),
            spares: Vec::new(),
            spare_room: 0,
            held: 0,
            wanted: None,
            caller_asleep: false,
            idle: 0,
            stop: false,
            panicked: false,
        }
    }
}

struct Shared<T> {
    state: Mutex<State<T>>,
    /// Signalled when a job may be taken, or the walk stops.
    work: Condvar,
    /// Signalled when a job is done, or a thread panicked.
    results: Condvar,
}

impl<T> Shared<T> {
    fn lock(&self) -> MutexGuard<'_, State<T>> {
        self.state.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// What the job at `place` gave, once it is done; None if a thread panicked. The
    /// `emptied` buffers are given back to the threads (as many as are kept).
    fn take(&self, place: &[u32], emptied: &mut Vec<Vec<Item<T>>>) -> Option<Vec<Item<T>>> {
        // Declared before the lock, freed after it is released: a free may wait for
        // another thread's allocator lock.
        let mut refused = Vec::new();
        let mut state = self.lock();
        for items in emptied.drain(..) {
            refused.extend(state.keep_spare(items));
        }
        loop {
            if state.panicked {
                return None;
            }
            if let Some(items) = state.ready.remove(place) {
                state.held -= items.len();
                state.wanted = None;
                let wake = state.idle > 0 && state.held < AHEAD / 2 && !state.pending.is_empty();
                drop(state);
                if wake {
                    self.work.notify_all();
                }
                return Some(items);
            }
            if state.wanted.as_deref() != Some(place) {
                state.wanted = Some(place.to_vec());
                if state.idle > 0 {
                    self.work.notify_all();
                }
            }
            state.caller_asleep = true;
            state = self
                .results
                .wait(state)
                .unwrap_or_else(PoisonError::into_inner);
            state.caller_asleep = false;
        }
    }
}

impl<T> State<T> {
    /// Keeps `items`, emptied, for a thread to fill again, if it is not too large and there
    /// is room; gives it back if not.
    fn keep_spare(&mut self, mut items: Vec<Item<T>>) -> Option<Vec<Item<T>>> {
        let room = items.capacity();
        if room > SPARE_MAX || self.spare_room + room > SPARE_ROOM {
            return Some(items);
        }
        items.clear();
        self.spare_room += room;
        self.spares.push(items);
        None
    }

    /// An empty buffer for a job's results: a spare one if any is kept.
    fn spare(&mut self) -> Vec<Item<T>> {
        let items = self.spares.pop().unwrap_or_default();
        self.spare_room -= items.capacity();
        items
    }

    /// Whether the sleeping caller is to be woken: the job it wants is done, and either
    /// enough entries are ready or no job is left to take (the threads may run dry).
    fn wake_caller(&self) -> bool {
        self.caller_asleep
            && (self.held >= WAKE || self.pending.is_empty())
            && self
                .wanted
                .as_ref()
                .is_some_and(|wanted| self.ready.contains_key(wanted))
    }
}

/// Stops the threads when the caller is done.
struct Stop<'a, T>(&'a Shared<T>);

impl<T> Drop for Stop<'_, T> {
    fn drop(&mut self) {
        self.0.lock().stop = true;
        self.0.work.notify_all();
    }
}

/// Tells the caller that a thread panicked, when it unwinds: the job it was doing will
/// never be done.
struct Alarm<'a, T>(&'a Shared<T>);

impl<T> Drop for Alarm<'_, T> {
    fn drop(&mut self) {
        if thread::panicking() {
            let mut state = self.0.lock();
            state.panicked = true;
            state.stop = true;
            drop(state);
            self.0.results.notify_all();
            self.0.work.notify_all();
        }
    }
}

fn work<P: Prepare>(shared: &Shared<P::Prepared>, reader: &Reader<P>) {
    let _alarm = Alarm(shared);
    let mut scratch = P::Scratch::default();
    let mut entries_buf = vec![MaybeUninit::uninit(); ENTRIES_BUF];
    loop {
        let (place, job, mut items) = {
            let mut state = shared.lock();
            loop {
                if state.stop {
                    return;
                }
                // The earliest job; past the limit, only the one the caller waits for (always
                // the earliest: every job before it has been handed on).
                let take = state.pending.first_key_value().is_some_and(|(next, _)| {
                    state.held < AHEAD || state.wanted.as_ref() == Some(next)
                });
                if let Some((place, job)) = take.then(|| state.pending.pop_first()).flatten() {
                    break (place, job, state.spare());
                }
                state.idle += 1;
                state = shared
                    .work
                    .wait(state)
                    .unwrap_or_else(PoisonError::into_inner);
                state.idle -= 1;
            }
        };
        let mut jobs = Vec::new();
        reader.read(job, &mut jobs, &mut items, &mut scratch, &mut entries_buf);
        let mut state = shared.lock();
        let more = !jobs.is_empty();
        for (index, job) in jobs.into_iter().enumerate() {
            state.pending.insert(child(&place, index as u32), job);
        }
        state.held += items.len();
        state.ready.insert(place, items);
        let wake_caller = state.wake_caller();
        // Woken once: it may take a while to get the lock.
        state.caller_asleep &= !wake_caller;
        let wake = more && state.idle > 0 && state.held < AHEAD;
        drop(state);
        if wake_caller {
            shared.results.notify_one();
        }
        if wake {
            shared.work.notify_all();
        }
    }
}

/// The place of the job made `index`th by the job at `place`, allocated once.
fn child(place: &[u32], index: u32) -> Place {
    let mut child = Vec::with_capacity(place.len() + 1);
    child.extend_from_slice(place);
    child.push(index);
    child
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn result_buffers_are_kept_for_the_threads_up_to_the_room_set() {
        let mut state = State::<()>::default();
        // A fresh one when none is kept.
        assert_eq!(state.spare().capacity(), 0);
        // Kept emptied, and given out again.
        let mut items = Vec::with_capacity(PART);
        items.push(Item::Job(0));
        assert!(state.keep_spare(items).is_none());
        assert_eq!(state.spare_room, PART);
        let items = state.spare();
        assert!(items.is_empty() && items.capacity() == PART);
        assert_eq!(state.spare_room, 0);
        // Too large to keep: given back.
        let refused = state.keep_spare(Vec::with_capacity(SPARE_MAX + 1));
        assert_eq!(refused.map(|items| items.capacity()), Some(SPARE_MAX + 1));
        assert!(state.spares.is_empty());
        // Kept while there is room.
        for _ in 0..SPARE_ROOM / SPARE_MAX {
            assert!(state.keep_spare(Vec::with_capacity(SPARE_MAX)).is_none());
        }
        assert_eq!(state.spare_room, SPARE_ROOM);
        assert!(state.keep_spare(Vec::with_capacity(1)).is_some());
        assert_eq!(state.spares.len(), SPARE_ROOM / SPARE_MAX);
    }

    #[test]
    fn the_caller_is_woken_once_its_job_is_done_and_enough_is_ready_or_nothing_left() {
        let mut state = State::<()> {
            wanted: Some(vec![0, 1]),
            caller_asleep: true,
            ..State::default()
        };
        state.pending.insert(
            vec![0, 2],
            Job::Dir {
                rel: PathBuf::from("b"),
                ancestors: None,
            },
        );
        // Not done yet.
        state.ready.insert(vec![0, 0], vec![Item::Job(0)]);
        state.held = WAKE;
        assert!(!state.wake_caller());
        // Done, with little ready and jobs left: the threads read on.
        state.ready.insert(vec![0, 1], vec![Item::Job(0)]);
        state.held = WAKE - 1;
        assert!(!state.wake_caller());
        state.held = WAKE;
        assert!(state.wake_caller());
        // Little ready, but no job left to take.
        state.held = 1;
        state.pending.clear();
        assert!(state.wake_caller());
        // Awake already.
        state.caller_asleep = false;
        assert!(!state.wake_caller());
    }
}
