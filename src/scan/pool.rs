//! Pages read on every core: each page to read goes to one of the worker threads, each with
//! its own `Scanner`, and what was read comes back in the order the pages were queued, so
//! that everything after the reading (and the sitemap) is the same whatever the threads.

use std::collections::VecDeque;
use std::fs::File;
use std::io;
use std::path::PathBuf;
use std::sync::Mutex;
use std::sync::mpsc::{Receiver, Sender, TryRecvError, channel};
use std::thread;

use super::{Scanned, Scanner, Want};

/// Pages queued per thread: enough that no thread waits for the next while the first in the
/// queue is still being read, few enough to keep the memory small.
const QUEUED_PER_THREAD: usize = 64;

/// What to read of a page, and where it is.
pub struct Read<'r> {
    pub path: PathBuf,
    /// Its size by its stat.
    pub size: u64,
    pub want: Want<'r>,
}

/// A queue of items, each with a page to read or not, that hands them back in order, read.
pub struct Pool<'r, T> {
    /// None: the pages are read on the calling thread, when they are queued.
    workers: Option<Workers<'r>>,
    inline: Scanner,
    /// The items queued and not yet handed back, oldest first, with what was read once it
    /// is.
    queue: VecDeque<(T, Option<io::Result<Scanned>>)>,
    /// The number of the item at the front of the queue.
    front: u64,
    limit: usize,
}

struct Workers<'r> {
    jobs: Sender<Job<'r>>,
    done: Receiver<Done>,
}

struct Job<'r> {
    number: u64,
    read: Read<'r>,
}

enum Done {
    Read(u64, io::Result<Scanned>),
    /// A worker panicked: its page will never come back.
    Panicked,
}

/// Runs `body` with a pool of `threads` threads to read pages (none for 1: the pages are then
/// read on this thread).
pub fn with_pool<'r, T, R>(threads: usize, body: impl FnOnce(&mut Pool<'r, T>) -> R) -> R {
    let limit = QUEUED_PER_THREAD * threads.max(1);
    let pool = |workers| Pool {
        workers,
        inline: Scanner::default(),
        queue: VecDeque::new(),
        front: 0,
        limit,
    };
    if threads <= 1 {
        return body(&mut pool(None));
    }
    let (jobs, queued) = channel();
    let queued = Mutex::new(queued);
    let (finished, done) = channel();
    thread::scope(|scope| {
        for _ in 0..threads {
            let (queued, finished) = (&queued, finished.clone());
            scope.spawn(move || work(queued, finished));
        }
        drop(finished);
        // The pool goes at the end of `body`, and with it the job queue: the threads end.
        body(&mut pool(Some(Workers { jobs, done })))
    })
}

fn work(queued: &Mutex<Receiver<Job>>, finished: Sender<Done>) {
    let _alarm = Alarm(finished.clone());
    let mut scanner = Scanner::default();
    loop {
        let job = match queued.lock() {
            Ok(queued) => queued.recv(),
            Err(_) => break,
        };
        let Ok(Job { number, read }) = job else { break };
        let scanned = read_page(&mut scanner, read);
        if finished.send(Done::Read(number, scanned)).is_err() {
            break;
        }
    }
}

/// Says a worker panicked, when it unwinds.
struct Alarm(Sender<Done>);

impl Drop for Alarm {
    fn drop(&mut self) {
        if thread::panicking() {
            let _ = self.0.send(Done::Panicked);
        }
    }
}

fn read_page(scanner: &mut Scanner, read: Read) -> io::Result<Scanned> {
    let Read { path, size, want } = read;
    scanner.scan(|| File::open(&path), size, want)
}

impl<'r, T> Pool<'r, T> {
    /// Queues `item`, with the page to read for it, if any.
    pub fn push(&mut self, item: T, read: Option<Read<'r>>) {
        let number = self.front + self.queue.len() as u64;
        // A page with nothing to read (--no-html) is not worth a trip to a thread and back.
        let read = read.filter(|read| read.want.reads());
        let scanned = match (read, &self.workers) {
            (None, _) => Some(Ok(Scanned::default())),
            (Some(read), None) => Some(read_page(&mut self.inline, read)),
            (Some(read), Some(workers)) => {
                // The threads stop only once the pool is dropped.
                let sent = workers.jobs.send(Job { number, read });
                sent.expect("the reading threads run as long as the pool");
                None
            }
        };
        self.queue.push_back((item, scanned));
    }

    /// The oldest item with what was read for it, once it is read. Waits for it when `wait`
    /// or when the queue is full; None when it is still being read, or the queue is empty.
    pub fn next(&mut self, wait: bool) -> Option<(T, io::Result<Scanned>)> {
        let wait = wait || self.queue.len() >= self.limit;
        if let Some(workers) = &self.workers {
            loop {
                let done = match self.queue.front() {
                    None => return None,
                    Some((_, Some(_))) => break,
                    Some((_, None)) if wait => workers.done.recv().ok(),
                    Some((_, None)) => match workers.done.try_recv() {
                        Ok(done) => Some(done),
                        Err(TryRecvError::Empty) => return None,
                        Err(TryRecvError::Disconnected) => None,
                    },
                };
                match done {
                    Some(Done::Read(number, scanned)) => {
                        let at = (number - self.front) as usize;
                        self.queue[at].1 = Some(scanned);
                    }
                    Some(Done::Panicked) | None => panic!("a thread reading pages panicked"),
                }
            }
        }
        let (item, scanned) = self.queue.pop_front()?;
        self.front += 1;
        Some((item, scanned.expect("the front item is read")))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn items_come_back_in_order_with_their_pages_whatever_the_threads() {
        let dir = tempfile::tempdir().unwrap();
        let pages: Vec<(PathBuf, String)> = (0..300)
            .map(|i| {
                let path = dir.path().join(format!("{i}.html"));
                let canonical = format!("/page-{i}");
                let html = format!(
                    "<head><link rel=canonical href={canonical}></head>{}",
                    "x".repeat(i * 37)
                );
                std::fs::write(&path, html).unwrap();
                (path, canonical)
            })
            .collect();
        let head = Want {
            html: true,
            head: true,
            digest: None,
            dates: false,
            images: None,
        };
        for threads in [1, 2, 7] {
            let seen = with_pool(threads, |pool| {
                let mut seen = Vec::new();
                let mut take = |item: Option<(usize, io::Result<Scanned>)>| {
                    let (i, scanned) = item?;
                    let head = scanned.unwrap().head;
                    seen.push((i, head.map(|head| head.canonicals)));
                    Some(())
                };
                for (i, (path, _)) in pages.iter().enumerate() {
                    // Every third item has nothing to read.
                    let read = (i % 3 != 0).then(|| Read {
                        path: path.clone(),
                        size: std::fs::metadata(path).unwrap().len(),
                        want: head.clone(),
                    });
                    pool.push(i, read);
                    while take(pool.next(false)).is_some() {}
                }
                while take(pool.next(true)).is_some() {}
                seen
            });
            let expected: Vec<_> = pages
                .iter()
                .enumerate()
                .map(|(i, (_, canonical))| (i, (i % 3 != 0).then(|| vec![canonical.clone()])))
                .collect();
            assert_eq!(seen, expected, "{threads} threads");
        }
    }
}
