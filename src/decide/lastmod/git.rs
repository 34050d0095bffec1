//! The last commit of files, from `git log` over the whole history (not one git process
//! per file): each file of DIR for `--lastmod git`, the pages' sources for `--sources`. git
//! starts with the run and its output is read as it comes, beside the walk, into a compact
//! table: the names in one buffer, each date once. Reading only some files, it stops once
//! each is dated.
//!
//! git holds all the files a commit changed at once, a few hundred bytes each: a commit of
//! 160,000 files takes it past 60 MiB. A tree of more than `GROUP` files (as HEAD has it,
//! from `git ls-tree`) is therefore read by several logs, one after another, each limited to
//! directories of at most `GROUP` files in all, and one for the rest.

use crate::io::native;
use std::collections::{BinaryHeap, HashSet};
use std::ffi::OsString;
use std::hash::{DefaultHasher, Hasher};
use std::io::{self, BufRead, BufReader, Read};
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStdout, Command, Stdio};
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};
use std::thread::{self, JoinHandle};

use anyhow::{Context, Result, anyhow, bail};
use hashbrown::HashTable;

use crate::io::input;

/// Newest first; per commit an empty field, its date, then, if it touched files under the
/// pathspecs that follow, a newline and their names, each field ending in NUL. The empty
/// field tells a commit from a name: a name is never empty, and may begin with any other
/// byte. The user's settings that would change what it prints are overridden: names
/// relative to DIR (`diff.relative`), a root commit without its files (`log.showRoot`),
/// signatures among the commits (`log.showSignature`).
const LOG: &[&str] = &[
    "-c",
    "diff.relative=false",
    "-c",
    "log.showRoot=true",
    "log",
    "--no-show-signature",
    "--format=%x00%cI",
    "--name-only",
    "--no-renames",
    "-z",
];

/// HEAD's files under DIR, relative to it, each ending in NUL.
const LIST: &[&str] = &["ls-tree", "-r", "-z", "--name-only", "HEAD"];

/// The most files one `git log` is given when the tree is split: git's peak is then about
/// 20 MiB.
const GROUP: u32 = 32 << 10;
/// The most directories the tree is split into: each is a pathspec git matches against
/// every entry of the trees it compares.
const MAX_UNITS: usize = 256;

/// Variables of the user's environment that change what a pathspec means.
const PATHSPEC_ENV: &[&str] = &[
    "GIT_LITERAL_PATHSPECS",
    "GIT_GLOB_PATHSPECS",
    "GIT_NOGLOB_PATHSPECS",
    "GIT_ICASE_PATHSPECS",
];

/// The longest field read from git's output; past it, the output is not what was asked for.
const MAX_FIELD: usize = 1 << 20;
/// What is kept of git's standard error, for the message when it fails.
const MAX_STDERR: u64 = 16 << 10;

/// The files of a directory of a work tree whose history is read.
pub struct Tree {
    dir: PathBuf,
    /// `dir`'s path in the work tree, as git's names begin with it.
    prefix: Vec<u8>,
    pub shallow: bool,
    /// The names (relative to `dir`) to date, the others left out; None for every file.
    wanted: Option<HashSet<Vec<u8>>>,
}

impl Tree {
    /// Every file under `dir`: an error when `dir` is not inside a work tree, or git cannot
    /// run.
    pub fn open(dir: &Path) -> Result<Tree> {
        let prefix = git(dir, &["rev-parse", "--show-prefix"])?;
        let prefix = prefix.strip_suffix(b"\n").unwrap_or(&prefix).to_vec();
        let shallow = git(dir, &["rev-parse", "--is-shallow-repository"])? == b"true\n";
        Ok(Tree {
            dir: dir.to_path_buf(),
            prefix,
            shallow,
            wanted: None,
        })
    }

    /// Only the files `wanted` (relative to the tree's directory); the reading stops once
    /// each is dated. In a shallow clone, a file whose last commit there is its boundary is
    /// not dated by it: that commit holds every file, as if it had added them all.
    pub fn only(self, wanted: HashSet<Vec<u8>>) -> Tree {
        Tree {
            wanted: Some(wanted),
            ..self
        }
    }
}

/// The dates of the files of some trees, from their history.
pub struct GitDates {
    /// The histories being read, until they are waited for.
    log: Option<Log>,
    /// Each tree's, in their order.
    dates: Vec<Dates>,
}

impl GitDates {
    /// Starts reading the histories of `trees`, one after another.
    pub fn start(trees: Vec<Tree>) -> Result<GitDates> {
        Ok(GitDates {
            log: Some(Log::start(trees)?),
            dates: Vec::new(),
        })
    }

    /// Waits until git is done and its output read: an error when git failed or printed
    /// what was not asked for. The first call waits; those after it return at once.
    pub fn wait(&mut self) -> Result<()> {
        if let Some(log) = self.log.take() {
            self.dates = log.finish()?;
        }
        Ok(())
    }

    /// The date of `rel`, a path relative to the directory of the `tree`th tree (waiting
    /// for git first); None for a file git does not know, or whose date the schema cannot
    /// take.
    pub fn date(&mut self, tree: usize, rel: &[u8]) -> Result<Option<&str>> {
        self.wait()?;
        Ok(self.dates.get(tree).and_then(|dates| dates.get(rel)))
    }
}

/// The thread reading the history, one git at a time, and the git it runs. Dropped before
/// it is finished (a run that fails or ends early), it kills that git and waits for it:
/// none is left behind, running or as a zombie.
struct Log {
    reader: Option<JoinHandle<Result<Vec<Dates>>>>,
    running: Arc<Mutex<Running>>,
}

/// The git being read, shared by the reading thread and the `Log` that may stop it.
#[derive(Default)]
struct Running {
    child: Option<Child>,
    /// Set when the `Log` is dropped: no git is started after it.
    stopped: bool,
}

/// The lock on `running`, also when a thread panicked holding it: the child still needs
/// killing.
fn lock(running: &Mutex<Running>) -> MutexGuard<'_, Running> {
    running.lock().unwrap_or_else(PoisonError::into_inner)
}

impl Drop for Log {
    fn drop(&mut self) {
        let mut running = lock(&self.running);
        running.stopped = true;
        if let Some(mut child) = running.child.take() {
            // Errors change nothing here: the child is gone or cannot be signalled by us.
            let _ = child.kill();
            let _ = child.wait();
        }
    }
}

impl Log {
    fn start(trees: Vec<Tree>) -> Result<Log> {
        let running = Arc::new(Mutex::new(Running::default()));
        let shared = Arc::clone(&running);
        let reader = thread::Builder::new()
            .name("git log".into())
            .spawn(move || trees.iter().map(|tree| history(tree, &shared)).collect())
            .context("cannot start a thread to read the git history")?;
        Ok(Log {
            reader: Some(reader),
            running,
        })
    }

    fn finish(mut self) -> Result<Vec<Dates>> {
        let reader = self
            .reader
            .take()
            .context("the git history was read before")?;
        reader
            .join()
            .map_err(|_| anyhow!("the thread reading git's output failed"))?
    }
}

/// Reads the history of the files of `tree`: HEAD's files first, to split them when there
/// are many, then a `git log` for each group, until every file wanted is dated.
fn history(tree: &Tree, running: &Mutex<Running>) -> Result<Dates> {
    let mut list = Command::new("git");
    list.arg("-C").arg(&tree.dir).args(LIST);
    // The listing only splits the reading: when it fails (no commit yet), the log that
    // follows reads the whole history and says why it cannot.
    let groups = run(list, running, "ls-tree", |out| {
        Ok((groups(out, GROUP)?, false))
    })
    .unwrap_or_else(|_| vec![vec![".".into()]]);
    let mut dates = Dates::default();
    for pathspecs in groups {
        let mut log = Command::new("git");
        log.arg("-C").arg(&tree.dir).args(LOG);
        // A shallow clone's boundary commits have no parent there.
        if tree.shallow && tree.wanted.is_some() {
            log.arg("--min-parents=1");
        }
        log.arg("--").args(pathspecs);
        for var in PATHSPEC_ENV {
            log.env_remove(var);
        }
        let wanted = tree.wanted.as_ref();
        let all = run(log, running, "log", |out| {
            let all = parse(out, &tree.prefix, wanted, &mut dates)?;
            Ok((all, all))
        })?;
        if all {
            break;
        }
    }
    Ok(dates)
}

/// Runs `git`, whose output `read` reads as it comes, leaving the child in `running` while
/// it runs; `read` also says whether it left the rest unread, which stops git. An error
/// when it cannot, or git fails (`what` it was), or `read` fails.
fn run<T>(
    mut git: Command,
    running: &Mutex<Running>,
    what: &str,
    read: impl FnOnce(BufReader<ChildStdout>) -> Result<(T, bool)>,
) -> Result<T> {
    let mut child = git
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .context("cannot run git")?;
    let stdout = child.stdout.take().context("cannot read git's output")?;
    let stderr = child.stderr.take().context("cannot read git's errors")?;
    {
        let mut shared = lock(running);
        if shared.stopped {
            let _ = child.kill();
            let _ = child.wait();
            bail!("the git history is no longer read");
        }
        shared.child = Some(child);
    }
    // Both pipes are read at once: git stops when either is full.
    let stderr = thread::Builder::new()
        .name("git stderr".into())
        .spawn(move || {
            let mut stderr = stderr;
            let mut kept = Vec::new();
            // What does not fit is read and dropped; a failed read ends the reading, and
            // the message shows what was kept.
            let _ = (&mut stderr).take(MAX_STDERR).read_to_end(&mut kept);
            let _ = io::copy(&mut stderr, &mut io::sink());
            kept
        })
        .context("cannot start a thread to read git's errors")?;
    let read = read(BufReader::with_capacity(64 << 10, stdout));
    // Gone when the Log was dropped meanwhile, which killed and waited for it.
    let mut child = lock(running)
        .child
        .take()
        .context("the git history is no longer read")?;
    // Whether the reader had what it wanted: git's output and its end no longer matter.
    let done = matches!(read, Ok((_, true)));
    if read.is_err() || done {
        // The output is no longer read, and git may be waiting to write more.
        let _ = child.kill();
    }
    let status = child.wait().context("cannot wait for git")?;
    let stderr = stderr
        .join()
        .map_err(|_| anyhow!("the thread reading git's errors failed"))?;
    // git's own failure comes first (output it cut short is not the reader's fault),
    // unless it was killed above.
    if !status.success() && !done && (read.is_ok() || status.code().is_some()) {
        let stderr = String::from_utf8_lossy(&stderr);
        let why = match stderr.trim() {
            "" => status.to_string(),
            text => text.to_string(),
        };
        bail!("git {what} failed: {why}");
    }
    read.map(|(value, _)| value)
}

/// A directory of HEAD's tree under DIR, as `groups` counts its files.
struct Dir {
    /// Relative to DIR, empty for DIR itself.
    path: Vec<u8>,
    /// Its files, in it and below it.
    files: u32,
    parent: usize,
}

/// Whether `path` (relative to DIR) is the directory `dir` or below it.
fn holds(dir: &[u8], path: &[u8]) -> bool {
    dir.is_empty()
        || path
            .strip_prefix(dir)
            .is_some_and(|rest| rest.is_empty() || rest[0] == b'/')
}

/// The directories of `listing` (HEAD's files under DIR, as `LIST` prints them), DIR
/// first, each with the number of files below it.
fn directories(mut listing: impl BufRead) -> Result<Vec<Dir>> {
    let mut dirs = vec![Dir {
        path: Vec::new(),
        files: 0,
        parent: 0,
    }];
    // The directories holding the last name, DIR first.
    let mut chain = vec![0];
    let mut name = Vec::new();
    while read_field(&mut listing, &mut name)? {
        let dir = &name[..name.iter().rposition(|&b| b == b'/').unwrap_or(0)];
        while let Some(&last) = chain.last()
            && !holds(&dirs[last].path, dir)
        {
            chain.pop();
        }
        // DIR holds every name; git lists the files of a directory one after another.
        let mut last = chain.last().copied().unwrap_or(0);
        while dirs[last].path.len() < dir.len() {
            let start = match dirs[last].path.len() {
                0 => 0,
                len => len + 1,
            };
            let end = dir[start..]
                .iter()
                .position(|&b| b == b'/')
                .map_or(dir.len(), |at| start + at);
            dirs.push(Dir {
                path: dir[..end].to_vec(),
                files: 0,
                parent: last,
            });
            last = dirs.len() - 1;
            chain.push(last);
        }
        for &at in &chain {
            dirs[at].files = dirs[at].files.saturating_add(1);
        }
    }
    Ok(dirs)
}

/// The pathspecs of each `git log` reading the history, from `listing` (HEAD's files under
/// DIR, as `LIST` prints them): DIR whole (`.`) when it has at most `max` files. Otherwise
/// the largest directories are split into their subdirectories (at most `MAX_UNITS` in
/// all) until none has more than `max` files, the subdirectories are packed in order into
/// logs of at most `max` files, and a last log takes the rest: the files beside them, and
/// those HEAD no longer has.
fn groups(listing: impl BufRead, max: u32) -> Result<Vec<Vec<OsString>>> {
    let dirs = directories(listing)?;
    let mut children = vec![Vec::new(); dirs.len()];
    for (at, dir) in dirs.iter().enumerate().skip(1) {
        children[dir.parent].push(at);
    }
    // The largest directory first; DIR is the one unit to begin with.
    let mut split = vec![false; dirs.len()];
    let mut units = 1;
    let mut largest = BinaryHeap::from([(dirs[0].files, 0)]);
    while let Some((files, at)) = largest.pop() {
        let subdirs = &children[at];
        if files <= max || subdirs.is_empty() || units - 1 + subdirs.len() > MAX_UNITS {
            continue;
        }
        split[at] = true;
        units += subdirs.len() - 1;
        largest.extend(subdirs.iter().map(|&sub| (dirs[sub].files, sub)));
    }
    if !split[0] {
        return Ok(vec![vec![".".into()]]);
    }
    let spec = |magic: &str, path: &[u8]| {
        let mut spec = magic.as_bytes().to_vec();
        spec.extend_from_slice(path);
        native::os_string(spec)
    };
    let mut logs: Vec<Vec<OsString>> = Vec::new();
    let mut rest = vec![OsString::from(".")];
    let mut size = 0;
    for (at, dir) in dirs.iter().enumerate().skip(1) {
        if split[at] || !split[dir.parent] {
            continue;
        }
        if logs.is_empty() || size + u64::from(dir.files) > u64::from(max) {
            logs.push(Vec::new());
            size = 0;
        }
        size += u64::from(dir.files);
        logs.last_mut()
            .context("a log was added above")?
            .push(spec(":(literal)", &dir.path));
        rest.push(spec(":(exclude,literal)", &dir.path));
    }
    logs.push(rest);
    Ok(logs)
}

/// Where `parse` is in git's output.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Next {
    /// The empty field before the first commit.
    Commit,
    Date,
    /// The commit's first name, after a newline.
    FirstName,
    /// A name, or the empty field before the next commit.
    Name,
}

/// Reads git's output (see `LOG`) as it comes, adding to `dates` each file under `prefix`
/// (the tree's directory in the work tree), among those `wanted` if given, that it does not
/// hold yet, with the date of the first commit that names it, the newest. True when it
/// stopped once every file wanted was dated, leaving the rest unread.
fn parse(
    mut out: impl BufRead,
    prefix: &[u8],
    wanted: Option<&HashSet<Vec<u8>>>,
    dates: &mut Dates,
) -> Result<bool> {
    let mut field = Vec::new();
    let mut next = Next::Commit;
    // The commit being read: its date, and that date's index once a file takes it.
    let mut date: Option<String> = None;
    let mut taken: Option<u32> = None;
    while read_field(&mut out, &mut field)? {
        let name = match next {
            Next::Date => {
                // git ends the date with a NUL; were it ended by a newline, as the output was
                // read before, the first name would follow in the same field.
                let (text, first) = match field.iter().position(|&b| b == b'\n') {
                    Some(end) => (&field[..end], &field[end + 1..]),
                    None => (&field[..], &b""[..]),
                };
                let text =
                    std::str::from_utf8(text).context("git printed a date that is not UTF-8")?;
                // git takes offsets up to ±99:59; the schema stops at ±14:00.
                date = crate::w3c::w3c_form(text);
                taken = None;
                next = match first.is_empty() {
                    true => Next::FirstName,
                    false => Next::Name,
                };
                first
            }
            _ if field.is_empty() => {
                next = Next::Date;
                continue;
            }
            Next::Commit => bail!("git printed a file name before any commit"),
            Next::FirstName => {
                next = Next::Name;
                field.strip_prefix(b"\n").unwrap_or(&field)
            }
            Next::Name => &field,
        };
        // Names are relative to the top of the work tree; keep those under DIR.
        let Some(rel) = name.strip_prefix(prefix).filter(|rel| !rel.is_empty()) else {
            continue;
        };
        if wanted.is_some_and(|wanted| !wanted.contains(rel)) {
            continue;
        }
        let hash = hash(rel);
        if dates.find(rel, hash).is_none() {
            let index = match taken {
                Some(index) => index,
                None => dates.intern(date.as_deref())?,
            };
            taken = Some(index);
            dates.push(rel, hash, index)?;
            if wanted.is_some_and(|wanted| dates.files.len() == wanted.len()) {
                return Ok(true);
            }
        }
    }
    if next == Next::Date {
        bail!("git's output ended before a commit's date");
    }
    Ok(false)
}

/// Reads the next field of git's output into `field`, without its NUL; false at the end.
fn read_field(out: &mut impl BufRead, field: &mut Vec<u8>) -> Result<bool> {
    field.clear();
    let read = out
        .take(MAX_FIELD as u64 + 1)
        .read_until(0, field)
        .context("cannot read git's output")?;
    if read == 0 {
        return Ok(false);
    }
    if field.pop_if(|last| *last == 0).is_none() {
        if read > MAX_FIELD {
            bail!(
                "git printed a field longer than {}",
                input::size(MAX_FIELD as u64)
            );
        }
        bail!("git's output ended in the middle of a name");
    }
    Ok(true)
}

/// File names → dates, compact: each file is two numbers in a hash table, the names are in
/// one buffer, and each date is kept once (the files of a commit share it, and commits
/// often share one).
#[derive(Default)]
struct Dates {
    /// Each file: where its name starts in `names`, and its date's index in `dates` (`NONE`
    /// for a date the schema cannot take).
    files: HashTable<(u32, u32)>,
    /// The names, each ended by a NUL, which no name holds.
    names: Vec<u8>,
    dates: Vec<Box<str>>,
}

const NONE: u32 = u32::MAX;

fn hash(name: &[u8]) -> u64 {
    let mut hasher = DefaultHasher::new();
    hasher.write(name);
    hasher.finish()
}

impl Dates {
    fn get(&self, name: &[u8]) -> Option<&str> {
        let &(_, date) = self.find(name, hash(name))?;
        self.dates.get(date as usize).map(|date| &**date)
    }

    fn find(&self, name: &[u8], hash: u64) -> Option<&(u32, u32)> {
        let names = &self.names;
        let end = name.len();
        self.files.find(hash, |&(at, _)| {
            let rest = &names[at as usize..];
            rest.get(..end) == Some(name) && rest.get(end) == Some(&0)
        })
    }

    /// The index of `date` in `dates`, added unless it is the last one added.
    fn intern(&mut self, date: Option<&str>) -> Result<u32> {
        let Some(date) = date else {
            return Ok(NONE);
        };
        if self.dates.last().is_none_or(|last| **last != *date) {
            self.dates.push(date.into());
        }
        u32::try_from(self.dates.len() - 1)
            .ok()
            .filter(|&index| index != NONE)
            .context("the git history holds too many dates")
    }

    /// Adds a file that `find` does not know.
    fn push(&mut self, name: &[u8], hash: u64, date: u32) -> Result<()> {
        let at = u32::try_from(self.names.len()).context("the git history names too many files")?;
        let names = &self.names;
        // Growing the table hashes each name again.
        let rehash = |&(at, _): &(u32, u32)| {
            let rest = &names[at as usize..];
            self::hash(&rest[..rest.iter().position(|&b| b == 0).unwrap_or(rest.len())])
        };
        self.files.insert_unique(hash, (at, date), rehash);
        self.names.extend_from_slice(name);
        self.names.push(0);
        Ok(())
    }
}

fn git(dir: &Path, args: &[&str]) -> Result<Vec<u8>> {
    let out = Command::new("git")
        .arg("-C")
        .arg(dir)
        .args(args)
        .output()
        .context("cannot run git")?;
    if !out.status.success() {
        bail!(
            "git {}: {}",
            args.join(" "),
            String::from_utf8_lossy(&out.stderr).trim()
        );
    }
    Ok(out.stdout)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parsed(out: &[u8], prefix: &[u8]) -> Result<Dates> {
        let mut dates = Dates::default();
        parse(out, prefix, None, &mut dates)?;
        Ok(dates)
    }

    #[test]
    fn each_file_takes_the_first_date_git_prints_for_it() {
        // As git prints `LOG`: the newest commit first.
        let out = b"\0\
            2024-03-05T08:30:00-05:00\0\ndocs/index.html\0docs/new.html\0\
            \x002024-02-01T00:00:00Z\0\
            \x002024-01-01T10:00:00+02:00\0\ndocs/index.html\0docs/old.html\0top.html\0";
        let dates = parsed(&out[..], b"docs/").unwrap();
        assert_eq!(dates.get(b"index.html"), Some("2024-03-05T08:30:00-05:00"));
        assert_eq!(dates.get(b"new.html"), Some("2024-03-05T08:30:00-05:00"));
        assert_eq!(dates.get(b"old.html"), Some("2024-01-01T10:00:00+02:00"));
        // Outside DIR, or DIR itself.
        assert_eq!(dates.get(b"top.html"), None);
        assert_eq!(dates.get(b"docs/old.html"), None);
        assert_eq!(dates.get(b""), None);
        assert_eq!(dates.files.len(), 3);
        // Each date once, and only those a file took.
        assert_eq!(dates.dates.len(), 2);
    }

    #[test]
    fn names_are_bytes_whatever_they_begin_with() {
        // The newline before a commit's first name is git's, not the name's; a name may
        // itself begin with a newline, a \x01, or hold bytes that are not UTF-8.
        let out = b"\x002024-05-01T00:00:00Z\0\n\nnl.html\0\x01x.html\0a\xffb.html\0\
            \x002024-04-01T00:00:00Z\0\n\x01first.html\0\nnl.html\0";
        let dates = parsed(&out[..], b"").unwrap();
        for name in [&b"\nnl.html"[..], b"\x01x.html", b"a\xffb.html"] {
            assert_eq!(dates.get(name), Some("2024-05-01T00:00:00Z"), "{name:?}");
        }
        assert_eq!(dates.get(b"\x01first.html"), Some("2024-04-01T00:00:00Z"));
        assert_eq!(dates.get(b"nl.html"), None);
        assert_eq!(dates.files.len(), 4);
    }

    #[test]
    fn dates_the_schema_cannot_take_are_made_utc_or_left_out() {
        let out = b"\x002024-05-01T10:00:00+15:00\0\na.html\0\
            \0not a date\0\nb.html\0\
            \x002024-05-01T10:00:00+15:00\0\nc.html\0";
        let dates = parsed(&out[..], b"").unwrap();
        assert_eq!(dates.get(b"a.html"), Some("2024-04-30T19:00:00+00:00"));
        assert_eq!(dates.get(b"b.html"), None);
        assert!(dates.find(b"b.html", hash(b"b.html")).is_some());
        assert_eq!(dates.get(b"c.html"), Some("2024-04-30T19:00:00+00:00"));
    }

    #[test]
    fn a_header_ended_by_a_newline_holds_the_first_name() {
        let out = b"\x002024-05-01T00:00:00Z\na.html\0b.html\0";
        let dates = parsed(&out[..], b"").unwrap();
        assert_eq!(dates.get(b"a.html"), Some("2024-05-01T00:00:00Z"));
        assert_eq!(dates.get(b"b.html"), Some("2024-05-01T00:00:00Z"));
    }

    #[test]
    fn output_that_is_not_what_was_asked_for_is_an_error() {
        let error = |out: &[u8]| match parsed(out, b"") {
            Ok(_) => panic!("{out:?} was read"),
            Err(e) => e.to_string(),
        };
        assert_eq!(
            error(b"a.html\0"),
            "git printed a file name before any commit"
        );
        assert_eq!(
            error(b"\x002024-05-01T00:00:00Z\0\na.ht"),
            "git's output ended in the middle of a name"
        );
        assert_eq!(error(b"\0"), "git's output ended before a commit's date");
        assert_eq!(error(b"\0\xff\0"), "git printed a date that is not UTF-8");
        let mut long = b"\x002024-05-01T00:00:00Z\0\n".to_vec();
        long.resize(long.len() + MAX_FIELD + 1, b'a');
        long.push(0);
        assert_eq!(error(&long), "git printed a field longer than 1 MiB");
        // No commit under DIR: no dates, no error.
        assert_eq!(parsed(&b""[..], b"").unwrap().files.len(), 0);
    }

    #[test]
    fn names_with_one_hash_are_told_apart() {
        let mut dates = Dates::default();
        let day = dates.intern(Some("2024-05-01")).unwrap();
        dates.push(b"a.html", 7, day).unwrap();
        let other = dates.intern(Some("2024-06-01")).unwrap();
        dates.push(b"b.html", 7, other).unwrap();
        let found = |name: &[u8]| dates.find(name, 7).map(|&(_, date)| date);
        assert_eq!(found(b"a.html"), Some(day));
        assert_eq!(found(b"b.html"), Some(other));
        assert_eq!(found(b"c.html"), None);
    }

    #[test]
    fn a_log_dropped_before_it_is_finished_kills_and_reaps_its_git() {
        let running = Arc::new(Mutex::new(Running::default()));
        let shared = Arc::clone(&running);
        let reader = thread::spawn(move || {
            let mut sleep = Command::new("sleep");
            sleep.arg("60");
            run(sleep, &shared, "sleep", |mut out| {
                out.read_to_end(&mut Vec::new())?;
                Ok((Vec::new(), false))
            })
        });
        let pid = loop {
            if let Some(child) = &lock(&running).child {
                break child.id();
            }
            thread::sleep(std::time::Duration::from_millis(5));
        };
        let proc = format!("/proc/{pid}");
        assert!(Path::new(&proc).exists());
        drop(Log {
            reader: Some(reader),
            running: Arc::clone(&running),
        });
        assert!(!Path::new(&proc).exists(), "{proc} is still there");
        // Nothing is started once it is dropped.
        let mut sleep = Command::new("sleep");
        sleep.arg("60");
        let started = run(sleep, &running, "sleep", |_| Ok(((), false)));
        assert!(started.is_err());
        assert!(lock(&running).child.is_none());
    }

    fn specs(logs: &[Vec<OsString>]) -> Vec<Vec<String>> {
        logs.iter()
            .map(|log| {
                log.iter()
                    .map(|s| s.to_string_lossy().into_owned())
                    .collect()
            })
            .collect()
    }

    /// A listing as `LIST` prints it.
    fn listing(names: &[&str]) -> Vec<u8> {
        names
            .iter()
            .flat_map(|n| [n.as_bytes(), b"\0"].concat())
            .collect()
    }

    #[test]
    fn a_tree_of_few_files_is_read_by_one_log() {
        let names = listing(&["index.html", "a/b.html", "a/c/d.html"]);
        assert_eq!(specs(&groups(&names[..], 3).unwrap()), [["."]]);
        assert_eq!(specs(&groups(&b""[..], 0).unwrap()), [["."]]);
    }

    #[test]
    fn a_large_tree_is_read_by_directories_and_the_rest() {
        // In git's order: a directory's files and subdirectories one after another, a name
        // sorting before a directory of the same stem.
        let names = listing(&[
            "a.html",
            "a/1.html",
            "a/b/1.html",
            "a/b/2.html",
            "a/b/3.html",
            "a/bc.html",
            "a/c/1.html",
            "a/c/d/1.html",
            "a/z.html",
            "ab/1.html",
            "ab/2.html",
            "s[1]/1.html",
        ]);
        // `a` has 8 files, more than 3: split into `a/b` (3) and `a/c` (2); `ab` (2) and
        // `s[1]` (1) fit. Packed in order, at most 3 files a log.
        let logs = groups(&names[..], 3).unwrap();
        assert_eq!(
            specs(&logs),
            [
                vec![":(literal)a/b"],
                vec![":(literal)a/c"],
                vec![":(literal)ab", ":(literal)s[1]"],
                vec![
                    ".",
                    ":(exclude,literal)a/b",
                    ":(exclude,literal)a/c",
                    ":(exclude,literal)ab",
                    ":(exclude,literal)s[1]",
                ],
            ]
        );
        // A directory of files alone cannot be split.
        let names = listing(&["a/1.html", "a/2.html", "a/3.html", "b.html"]);
        assert_eq!(
            specs(&groups(&names[..], 2).unwrap()),
            [vec![":(literal)a"], vec![".", ":(exclude,literal)a"]]
        );
        let names = listing(&["1.html", "2.html", "3.html"]);
        assert_eq!(specs(&groups(&names[..], 2).unwrap()), [["."]]);
    }

    #[test]
    fn a_directory_of_more_subdirectories_than_can_be_given_is_not_split() {
        let many: Vec<String> = (0..=MAX_UNITS).map(|k| format!("big/{k}/x.html")).collect();
        let mut names: Vec<&str> = many.iter().map(String::as_str).collect();
        names.extend(["small/a/1.html", "small/a/2.html", "small/b/1.html"]);
        // DIR splits into `big` and `small`; `big`, the larger, would make too many.
        let logs = groups(&listing(&names)[..], 2).unwrap();
        assert_eq!(
            specs(&logs),
            [
                vec![":(literal)big"],
                vec![":(literal)small/a"],
                vec![":(literal)small/b"],
                vec![
                    ".",
                    ":(exclude,literal)big",
                    ":(exclude,literal)small/a",
                    ":(exclude,literal)small/b",
                ],
            ]
        );
    }
}
