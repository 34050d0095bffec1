//! `--lastmod git`: each file's date is the committer date of the last commit that touched
//! it, from one `git log` over the whole history (not one git process per file). git starts
//! with the run and its output is read as it comes, beside the walk, into a compact table:
//! the names in one buffer, each date once.

use std::hash::{DefaultHasher, Hasher};
use std::io::{self, BufRead, BufReader, Read};
use std::os::unix::ffi::OsStrExt;
use std::path::Path;
use std::process::{Child, Command, ExitStatus, Stdio};
use std::thread::{self, JoinHandle};

use anyhow::{Context, Result, anyhow, bail};
use hashbrown::HashTable;

use crate::input;

/// Newest first; per commit an empty field, its date, then, if it touched files under DIR,
/// a newline and their names, each field ending in NUL. The empty field tells a commit from
/// a name: a name is never empty, and may begin with any other byte. The user's settings
/// that would change what it prints are overridden: names relative to DIR
/// (`diff.relative`), a root commit without its files (`log.showRoot`), signatures among
/// the commits (`log.showSignature`).
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
    "--",
    ".",
];

/// The longest field read from git's output; past it, the output is not what was asked for.
const MAX_FIELD: usize = 1 << 20;
/// What is kept of git's standard error, for the message when it fails.
const MAX_STDERR: u64 = 16 << 10;

/// The dates of the files under DIR, from its work tree's history.
pub struct GitDates {
    pub shallow: bool,
    /// The `git log` being read, until it is waited for.
    log: Option<Log>,
    dates: Dates,
}

impl GitDates {
    /// Starts reading the history of the work tree holding `dir`; an error (a usage error)
    /// when `dir` is not inside one.
    pub fn start(dir: &Path) -> Result<GitDates> {
        let prefix = git(dir, &["rev-parse", "--show-prefix"]).with_context(|| {
            format!(
                "--lastmod git: {} is not inside a git work tree",
                dir.display()
            )
        })?;
        let prefix = prefix.strip_suffix(b"\n").unwrap_or(&prefix).to_vec();
        let shallow = git(dir, &["rev-parse", "--is-shallow-repository"])? == b"true\n";
        Ok(GitDates {
            shallow,
            log: Some(Log::start(dir, prefix)?),
            dates: Dates::default(),
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

    /// The date of `rel`, a path relative to DIR (waiting for git first); None for a file
    /// git does not know, or whose date the schema cannot take.
    pub fn date(&mut self, rel: &Path) -> Result<Option<&str>> {
        self.wait()?;
        Ok(self.dates.get(rel.as_os_str().as_bytes()))
    }
}

/// A running `git log` and the threads reading its output and its errors.
struct Log {
    git: Reaped,
    parser: JoinHandle<Result<Dates>>,
    stderr: JoinHandle<Vec<u8>>,
}

/// A child that is killed and waited for when dropped unless it was waited for: a run that
/// fails or ends early leaves no git behind, running or as a zombie.
struct Reaped {
    child: Child,
    waited: bool,
}

impl Drop for Reaped {
    fn drop(&mut self) {
        if !self.waited {
            // Errors change nothing here: the child is gone or cannot be signalled by us.
            let _ = self.child.kill();
            let _ = self.child.wait();
        }
    }
}

impl Reaped {
    fn wait(&mut self) -> io::Result<ExitStatus> {
        let status = self.child.wait()?;
        self.waited = true;
        Ok(status)
    }
}

impl Log {
    fn start(dir: &Path, prefix: Vec<u8>) -> Result<Log> {
        let child = Command::new("git")
            .arg("-C")
            .arg(dir)
            .args(LOG)
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .context("cannot run git")?;
        let mut git = Reaped {
            child,
            waited: false,
        };
        let stdout = git
            .child
            .stdout
            .take()
            .context("cannot read git's output")?;
        let mut stderr = git
            .child
            .stderr
            .take()
            .context("cannot read git's errors")?;
        // Both pipes are read at once: git stops when either is full.
        let stderr = thread::Builder::new()
            .name("git stderr".into())
            .spawn(move || {
                let mut kept = Vec::new();
                // What does not fit is read and dropped; a failed read ends the reading, and
                // the message shows what was kept.
                let _ = (&mut stderr).take(MAX_STDERR).read_to_end(&mut kept);
                let _ = io::copy(&mut stderr, &mut io::sink());
                kept
            })
            .context("cannot start a thread to read git's errors")?;
        let parser = thread::Builder::new()
            .name("git log".into())
            .spawn(move || parse(BufReader::with_capacity(64 << 10, stdout), &prefix))
            .context("cannot start a thread to read git's output")?;
        Ok(Log {
            git,
            parser,
            stderr,
        })
    }

    fn finish(self) -> Result<Dates> {
        let Log {
            mut git,
            parser,
            stderr,
        } = self;
        let parsed = joined(parser).and_then(|parsed| parsed);
        if parsed.is_err() {
            // The output is no longer read, and git may be waiting to write more.
            let _ = git.child.kill();
        }
        let status = git.wait().context("cannot wait for git")?;
        let stderr = joined(stderr)?;
        // git's own failure comes first (output it cut short is not the parser's fault),
        // unless it was killed above.
        if !status.success() && (parsed.is_ok() || status.code().is_some()) {
            let stderr = String::from_utf8_lossy(&stderr);
            let why = match stderr.trim() {
                "" => status.to_string(),
                text => text.to_string(),
            };
            bail!("git log failed: {why}");
        }
        parsed
    }
}

fn joined<T>(thread: JoinHandle<T>) -> Result<T> {
    thread
        .join()
        .map_err(|_| anyhow!("the thread reading git's output failed"))
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

/// Reads git's output (see `LOG`) as it comes, keeping for each file under `prefix` (DIR's
/// path in the work tree) the date of the first commit that names it, the newest.
fn parse(mut out: impl BufRead, prefix: &[u8]) -> Result<Dates> {
    let mut dates = Dates::default();
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
        let hash = hash(rel);
        if dates.find(rel, hash).is_none() {
            let index = match taken {
                Some(index) => index,
                None => dates.intern(date.as_deref())?,
            };
            taken = Some(index);
            dates.push(rel, hash, index)?;
        }
    }
    if next == Next::Date {
        bail!("git's output ended before a commit's date");
    }
    Ok(dates)
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

    #[test]
    fn each_file_takes_the_first_date_git_prints_for_it() {
        // As git prints `LOG`: the newest commit first.
        let out = b"\0\
            2024-03-05T08:30:00-05:00\0\ndocs/index.html\0docs/new.html\0\
            \x002024-02-01T00:00:00Z\0\
            \x002024-01-01T10:00:00+02:00\0\ndocs/index.html\0docs/old.html\0top.html\0";
        let dates = parse(&out[..], b"docs/").unwrap();
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
        let dates = parse(&out[..], b"").unwrap();
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
        let dates = parse(&out[..], b"").unwrap();
        assert_eq!(dates.get(b"a.html"), Some("2024-04-30T19:00:00+00:00"));
        assert_eq!(dates.get(b"b.html"), None);
        assert!(dates.find(b"b.html", hash(b"b.html")).is_some());
        assert_eq!(dates.get(b"c.html"), Some("2024-04-30T19:00:00+00:00"));
    }

    #[test]
    fn a_header_ended_by_a_newline_holds_the_first_name() {
        let out = b"\x002024-05-01T00:00:00Z\na.html\0b.html\0";
        let dates = parse(&out[..], b"").unwrap();
        assert_eq!(dates.get(b"a.html"), Some("2024-05-01T00:00:00Z"));
        assert_eq!(dates.get(b"b.html"), Some("2024-05-01T00:00:00Z"));
    }

    #[test]
    fn output_that_is_not_what_was_asked_for_is_an_error() {
        let error = |out: &[u8]| match parse(out, b"") {
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
        assert_eq!(parse(&b""[..], b"").unwrap().files.len(), 0);
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
    fn a_child_dropped_before_it_is_waited_for_is_killed_and_reaped() {
        let child = Command::new("sleep").arg("60").spawn().unwrap();
        let proc = format!("/proc/{}", child.id());
        drop(Reaped {
            child,
            waited: false,
        });
        assert!(!Path::new(&proc).exists(), "{proc} is still there");
    }
}
