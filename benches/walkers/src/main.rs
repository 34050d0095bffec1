//! `walkers WALKER DIR`: every file under DIR that is not a directory, listed with one of the
//! walker crates as sitemapgen's walk delivers its pages, for `benches/walkers.sh` to time
//! against `sitemapgen --no-html --include '*' --no-default-excludes --hidden`.
//!
//! Each walker does what the walk does: reads every directory (symlinks to directories are
//! not entered, so a symlink loop is never followed), looks at each other entry with one stat
//! that follows a symlink (a symlink to a directory is then passed over), and hands on the
//! path's bytes relative to DIR with the size and mtime, in the walk's order: depth first,
//! each directory's names ordered by `by_name`. One line per file on stdout:
//! `PATH<TAB>SIZE<TAB>MTIME_NS`. Entries that cannot be read are named on stderr (exit 1).
//!
//! - `walkdir`: walkdir, one thread, each directory's names sorted as it is read.
//! - `jwalk`: jwalk on its default rayon pool (a thread per core); each directory's names
//!   are sorted and its files statted on the thread that read it, and the walk hands them
//!   on in order.
//! - `ignore`: ignore::WalkParallel (a thread per core, no filters), in the order its
//!   threads finish: collected, then written.
//! - `ignore-sorted`: the same, sorted into the walk's order before it is written.

use std::cmp::Ordering;
use std::ffi::OsStr;
use std::fs;
use std::io::{self, BufWriter, Write};
use std::os::unix::ffi::OsStrExt;
use std::os::unix::fs::MetadataExt;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::sync::Mutex;

use ignore::{ParallelVisitor, ParallelVisitorBuilder, WalkBuilder, WalkState};

/// A file as the walk hands it on.
#[derive(Debug)]
struct File {
    /// Relative to DIR.
    rel: Vec<u8>,
    size: u64,
    /// Nanoseconds since the epoch.
    mtime: i128,
}

/// What went wrong, named: entries that could not be read.
type Failures = Vec<String>;

fn main() -> ExitCode {
    let args: Vec<_> = std::env::args_os().skip(1).collect();
    let [walker, root] = args.as_slice() else {
        eprintln!("usage: walkers walkdir|jwalk|ignore|ignore-sorted DIR");
        return ExitCode::from(2);
    };
    let root = PathBuf::from(root);
    let mut out = BufWriter::with_capacity(64 * 1024, io::stdout().lock());
    let failures = match walker.to_str() {
        Some("walkdir") => with_walkdir(&root, &mut out),
        Some("jwalk") => with_jwalk(&root, &mut out),
        Some("ignore") => with_ignore(&root, false, &mut out),
        Some("ignore-sorted") => with_ignore(&root, true, &mut out),
        _ => {
            eprintln!("walkers: unknown walker {walker:?}");
            return ExitCode::from(2);
        }
    };
    let failures = match failures.and_then(|failures| out.flush().map(|()| failures)) {
        Ok(failures) => failures,
        Err(err) => {
            eprintln!("walkers: error: writing the list: {err}");
            return ExitCode::FAILURE;
        }
    };
    for failure in &failures {
        eprintln!("walkers: error: {failure}");
    }
    match failures.is_empty() {
        true => ExitCode::SUCCESS,
        false => ExitCode::FAILURE,
    }
}

/// sitemapgen's order of a directory's names (`walk::find::sort_key`): index.html,
/// index.htm, then the rest byte-wise.
fn by_name(a: &OsStr, b: &OsStr) -> Ordering {
    sort_key(a).cmp(&sort_key(b))
}

fn sort_key(name: &OsStr) -> (usize, &[u8]) {
    const INDEX_NAMES: [&[u8]; 2] = [b"index.html", b"index.htm"];
    let name = name.as_bytes();
    let rank = INDEX_NAMES.iter().position(|index| *index == name);
    (rank.unwrap_or(INDEX_NAMES.len()), name)
}

/// A key that sorts whole paths in the walk's order: name by name, each its rank, its
/// bytes and a NUL (in no name), so that a directory sorts where its name does.
fn walk_key(rel: &[u8]) -> Vec<u8> {
    let mut key = Vec::with_capacity(rel.len() + 16);
    for name in Path::new(OsStr::from_bytes(rel)) {
        let (rank, bytes) = sort_key(name);
        key.push(rank as u8);
        key.extend_from_slice(bytes);
        key.push(0);
    }
    key
}

/// What one stat that follows a symlink says of the entry at `path`: None for a directory
/// (a symlink to one: not entered, not listed) and for a dangling symlink.
fn look(root: &Path, path: &Path) -> Result<Option<File>, String> {
    let meta = match fs::metadata(path) {
        Ok(meta) => meta,
        // A dangling symlink (or a file gone since its directory was read): sitemapgen
        // warns and passes it over.
        Err(err) if err.kind() == io::ErrorKind::NotFound => return Ok(None),
        Err(err) => return Err(format!("{}: {err}", path.display())),
    };
    if meta.is_dir() {
        return Ok(None);
    }
    let rel = path.strip_prefix(root).unwrap_or(path);
    Ok(Some(File {
        rel: rel.as_os_str().as_bytes().to_vec(),
        size: meta.size(),
        mtime: i128::from(meta.mtime()) * 1_000_000_000 + i128::from(meta.mtime_nsec()),
    }))
}

fn write(out: &mut impl Write, file: &File) -> io::Result<()> {
    out.write_all(&file.rel)?;
    writeln!(out, "\t{}\t{}", file.size, file.mtime)
}

fn with_walkdir(root: &Path, out: &mut impl Write) -> io::Result<Failures> {
    let mut failures = Vec::new();
    let walk = walkdir::WalkDir::new(root)
        .follow_links(false)
        .sort_by(|a, b| by_name(a.file_name(), b.file_name()));
    for entry in walk {
        let entry = match entry {
            Ok(entry) => entry,
            Err(err) => {
                failures.push(err.to_string());
                continue;
            }
        };
        if entry.file_type().is_dir() {
            continue;
        }
        match look(root, entry.path()) {
            Ok(Some(file)) => write(out, &file)?,
            Ok(None) => {}
            Err(failure) => failures.push(failure),
        }
    }
    Ok(failures)
}

/// jwalk's state of a directory (none) and of each entry: its stat, made on the thread
/// that read its directory.
type Looked = ((), Option<Result<Option<File>, String>>);

fn with_jwalk(root: &Path, out: &mut impl Write) -> io::Result<Failures> {
    let mut failures = Vec::new();
    let base = root.to_path_buf();
    let walk = jwalk::WalkDirGeneric::<Looked>::new(root)
        .skip_hidden(false)
        .follow_links(false)
        .process_read_dir(move |_, _, _, children| {
            children.sort_by(|a, b| match (a, b) {
                (Ok(a), Ok(b)) => by_name(&a.file_name, &b.file_name),
                (Ok(_), Err(_)) => Ordering::Less,
                (Err(_), Ok(_)) => Ordering::Greater,
                (Err(_), Err(_)) => Ordering::Equal,
            });
            for child in children.iter_mut().flatten() {
                if !child.file_type.is_dir() {
                    child.client_state = Some(look(&base, &child.path()));
                }
            }
        });
    for entry in walk {
        let entry = match entry {
            Ok(entry) => entry,
            Err(err) => {
                failures.push(err.to_string());
                continue;
            }
        };
        match entry.client_state {
            Some(Ok(Some(file))) => write(out, &file)?,
            Some(Ok(None)) | None => {}
            Some(Err(failure)) => failures.push(failure),
        }
    }
    Ok(failures)
}

/// What the threads of ignore's walk found, each thread's share added as it ends.
#[derive(Default)]
struct Found(Mutex<(Vec<File>, Failures)>);

/// One thread's share.
struct Collect<'a> {
    root: &'a Path,
    files: Vec<File>,
    failures: Failures,
    found: &'a Found,
}

impl<'s> ParallelVisitorBuilder<'s> for Collect<'s> {
    fn build(&mut self) -> Box<dyn ParallelVisitor + 's> {
        Box::new(Collect {
            root: self.root,
            files: Vec::new(),
            failures: Vec::new(),
            found: self.found,
        })
    }
}

impl ParallelVisitor for Collect<'_> {
    fn visit(&mut self, entry: Result<ignore::DirEntry, ignore::Error>) -> WalkState {
        let entry = match entry {
            Ok(entry) => entry,
            Err(err) => {
                self.failures.push(err.to_string());
                return WalkState::Continue;
            }
        };
        if entry.file_type().is_some_and(|kind| kind.is_dir()) {
            return WalkState::Continue;
        }
        match look(self.root, entry.path()) {
            Ok(Some(file)) => self.files.push(file),
            Ok(None) => {}
            Err(failure) => self.failures.push(failure),
        }
        WalkState::Continue
    }
}

impl Drop for Collect<'_> {
    fn drop(&mut self) {
        let mut found = self.found.0.lock().unwrap_or_else(|e| e.into_inner());
        found.0.append(&mut self.files);
        found.1.append(&mut self.failures);
    }
}

fn with_ignore(root: &Path, sorted: bool, out: &mut impl Write) -> io::Result<Failures> {
    let found = Found::default();
    let mut builder = Collect {
        root,
        files: Vec::new(),
        failures: Vec::new(),
        found: &found,
    };
    WalkBuilder::new(root)
        .standard_filters(false)
        .follow_links(false)
        .build_parallel()
        .visit(&mut builder);
    drop(builder);
    let (mut files, failures) = found.0.into_inner().unwrap_or_else(|e| e.into_inner());
    if sorted {
        files.sort_by_cached_key(|file| walk_key(&file.rel));
    }
    for file in &files {
        write(out, file)?;
    }
    Ok(failures)
}
