//! Where the sitemap goes. Every file is written to a temp file beside its target and renamed
//! over it only when complete (standard output gets the document only once it is complete);
//! a run that fails leaves the previous sitemap, index and shards as they were.

use std::ffi::{OsStr, OsString};
use std::fs::{self, File, Permissions};
use std::io::{self, BufWriter, Read, Seek, SeekFrom, Write};
use std::os::unix::ffi::{OsStrExt, OsStringExt};
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::time::Duration;

use anyhow::{Context, Result};
use flate2::write::GzEncoder;
use flate2::{Compression, GzBuilder};
use tempfile::NamedTempFile;

/// Whether the file at `path` may be replaced by a sitemap: it does not exist, is empty, or
/// is a sitemap (an XML urlset or index, gzipped or not, or a text sitemap). Anything else
/// is someone's file that a sitemap must not overwrite.
pub fn looks_like_sitemap(path: &Path) -> Result<bool> {
    let file = match File::open(path) {
        Ok(file) => file,
        Err(err) if err.kind() == io::ErrorKind::NotFound => return Ok(true),
        Err(err) => return Err(err).with_context(|| format!("cannot read {}", path.display())),
    };
    let mut start = Vec::with_capacity(SNIFF);
    let read = || format!("cannot read {}", path.display());
    file.take(SNIFF as u64)
        .read_to_end(&mut start)
        .with_context(read)?;
    if start.starts_with(&[0x1f, 0x8b]) {
        let mut plain = Vec::with_capacity(SNIFF);
        // A gzip stream cut at SNIFF bytes reads as far as it goes, then fails: keep that.
        let _ = flate2::read::GzDecoder::new(start.as_slice())
            .take(SNIFF as u64)
            .read_to_end(&mut plain);
        start = plain;
    }
    let text = String::from_utf8_lossy(&start);
    let text = text.trim_start_matches('\u{feff}').trim_start();
    Ok(text.is_empty()
        || (text.starts_with('<') && (text.contains("<urlset") || text.contains("<sitemapindex")))
        || text.starts_with("http://")
        || text.starts_with("https://"))
}

/// Bytes read to tell a sitemap from another file.
const SNIFF: usize = 4096;

/// Temp files of ours: hidden, and never taken for pages (see `rules`).
pub const TEMP_PREFIX: &str = ".sitemapgen-";
pub const TEMP_SUFFIX: &str = ".tmp";

const BUFFER: usize = 256 * 1024;

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Destination {
    Stdout,
    File(Files),
}

impl Destination {
    pub fn describe(&self) -> String {
        match self {
            Destination::Stdout => "standard output".to_string(),
            Destination::File(files) => files.path.display().to_string(),
        }
    }
}

/// The files a run may write: the output itself and, when the sitemap is split, the shards
/// `STEM-1.xml`, `STEM-2.xml`, … beside it (`.txt` for text sitemaps, `.gz` added with
/// --gzip), STEM being the output's name without those extensions.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Files {
    /// The output as named: its directory holds the shards, its name gives their names and
    /// its place in DIR their URLs.
    pub path: PathBuf,
    /// The file the output replaces: `path`, or the file a symlink there points to.
    pub target: PathBuf,
    dir: PathBuf,
    stem: Vec<u8>,
    extension: &'static str,
}

/// Every extension our shards may have, from this run or an earlier one.
const EXTENSIONS: &[&str] = &[".xml.gz", ".xml", ".txt.gz", ".txt"];

impl Files {
    pub fn new(path: PathBuf, target: PathBuf, text: bool, gzip: bool) -> Files {
        let dir = dir_of(&path).to_path_buf();
        let name = path.file_name().unwrap_or_default().as_bytes();
        let stem = EXTENSIONS
            .iter()
            .find_map(|ext| name.strip_suffix(ext.as_bytes()))
            .unwrap_or(name)
            .to_vec();
        let extension = match (text, gzip) {
            (false, false) => ".xml",
            (false, true) => ".xml.gz",
            (true, false) => ".txt",
            (true, true) => ".txt.gz",
        };
        Files {
            path,
            target,
            dir,
            stem,
            extension,
        }
    }

    /// Whether the output's name ends in one of the extensions of sitemaps.
    pub fn has_sitemap_extension(&self) -> bool {
        let name = self.path.file_name().unwrap_or_default().as_bytes();
        EXTENSIONS.iter().any(|ext| name.ends_with(ext.as_bytes()))
    }

    /// The file name of shard `n` (from 1).
    pub fn shard_name(&self, n: usize) -> OsString {
        let mut name = self.stem.clone();
        name.extend_from_slice(format!("-{n}{}", self.extension).as_bytes());
        OsString::from_vec(name)
    }

    /// Whether `name`, in the output's directory, is the output or a shard of it, in any of
    /// our formats (plain or gzipped, XML or text, from this run or an earlier one).
    pub fn is_ours(&self, name: &OsStr) -> bool {
        let name = name.as_bytes();
        Some(name) == self.path.file_name().map(OsStrExt::as_bytes)
            || EXTENSIONS
                .iter()
                .any(|ext| name.strip_prefix(self.stem.as_slice()) == Some(ext.as_bytes()))
            || EXTENSIONS
                .iter()
                .any(|ext| shard_number(name, &self.stem, ext).is_some())
    }

    /// Shards of this run's format numbered above `count`: left from an earlier, larger run.
    pub fn stale_shards(&self, count: usize) -> Result<Vec<PathBuf>> {
        let mut stale = Vec::new();
        let entries = fs::read_dir(&self.dir)
            .with_context(|| format!("cannot read {}", self.dir.display()))?;
        for entry in entries {
            let name = entry?.file_name();
            if shard_number(name.as_bytes(), &self.stem, self.extension).is_some_and(|n| n > count)
            {
                stale.push(self.dir.join(name));
            }
        }
        stale.sort();
        Ok(stale)
    }

    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// The path of shard `n` (from 1).
    pub fn shard_path(&self, n: usize) -> PathBuf {
        self.dir.join(self.shard_name(n))
    }
}

/// `n` for `STEM-n.EXT` (n a decimal without leading zeros).
fn shard_number(name: &[u8], stem: &[u8], extension: &str) -> Option<usize> {
    let digits = name
        .strip_prefix(stem)?
        .strip_prefix(b"-")?
        .strip_suffix(extension.as_bytes())?;
    if digits.is_empty() || digits[0] == b'0' || !digits.iter().all(u8::is_ascii_digit) {
        return None;
    }
    std::str::from_utf8(digits).ok()?.parse().ok()
}

/// One document being written. Dropping it removes its temp file.
pub struct Sink {
    writer: Compress<BufWriter<Temp>>,
}

enum Compress<W: Write> {
    Plain(W),
    Gzip(GzEncoder<W>),
}

enum Temp {
    /// Beside the target, renamed over it by `Written::publish`.
    Named(NamedTempFile),
    /// For standard output: unnamed, so nothing is left whatever happens.
    Unnamed(File),
}

/// The directory a file is in (`.` for a bare name).
pub fn dir_of(path: &Path) -> &Path {
    match path.parent() {
        Some(dir) if !dir.as_os_str().is_empty() => dir,
        _ => Path::new("."),
    }
}

impl Sink {
    /// A `scratch` sink (for --check) is never published: it is an unnamed temp file.
    pub fn open(destination: &Destination, gzip: bool, scratch: bool) -> Result<Sink> {
        let temp = match destination {
            Destination::Stdout => {
                Temp::Unnamed(tempfile::tempfile().context("cannot create a temp file")?)
            }
            Destination::File(_) if scratch => {
                Temp::Unnamed(tempfile::tempfile().context("cannot create a temp file")?)
            }
            Destination::File(files) => named_temp(&files.dir)?,
        };
        Ok(Sink::over(temp, gzip))
    }

    /// A file to be renamed over `path` (the state, robots.txt).
    pub fn beside(path: &Path) -> Result<Sink> {
        Ok(Sink::over(named_temp(dir_of(path))?, false))
    }

    fn over(temp: Temp, gzip: bool) -> Sink {
        let buffered = BufWriter::with_capacity(BUFFER, temp);
        let writer = if gzip {
            // No name and mtime 0 in the header: the same sitemap gives the same bytes.
            Compress::Gzip(GzBuilder::new().write(buffered, Compression::default()))
        } else {
            Compress::Plain(buffered)
        };
        Sink { writer }
    }

    /// Completes the file (compression trailer, flush, fsync) without publishing it.
    pub fn finish(self) -> Result<Written> {
        let buffered = match self.writer {
            Compress::Plain(buffered) => buffered,
            Compress::Gzip(encoder) => encoder.finish()?,
        };
        let temp = buffered.into_inner().map_err(|e| e.into_error())?;
        if let Temp::Named(file) = &temp {
            file.as_file().sync_all()?;
        }
        Ok(Written(temp))
    }
}

/// A temp file of ours in `dir`, locked while the run lives.
fn named_temp(dir: &Path) -> Result<Temp> {
    // 0o666 less the umask, as any newly created file: web servers must read it.
    let temp = tempfile::Builder::new()
        .prefix(TEMP_PREFIX)
        .suffix(TEMP_SUFFIX)
        .permissions(Permissions::from_mode(0o666))
        .tempfile_in(dir)
        .and_then(|temp| lock(temp.as_file()).map(|()| temp))
        .with_context(|| format!("cannot create a temp file in {}", dir.display()))?;
    Ok(Temp::Named(temp))
}

impl Write for Sink {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        match &mut self.writer {
            Compress::Plain(out) => out.write(buf),
            Compress::Gzip(out) => out.write(buf),
        }
    }

    fn flush(&mut self) -> io::Result<()> {
        match &mut self.writer {
            Compress::Plain(out) => out.flush(),
            Compress::Gzip(out) => out.flush(),
        }
    }
}

impl Write for Temp {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        match self {
            Temp::Named(file) => file.write(buf),
            Temp::Unnamed(file) => file.write(buf),
        }
    }

    fn flush(&mut self) -> io::Result<()> {
        match self {
            Temp::Named(file) => file.flush(),
            Temp::Unnamed(file) => file.flush(),
        }
    }
}

/// A complete document, not yet visible. Dropping it removes its temp file.
pub struct Written(Temp);

impl Written {
    /// Makes it visible: renamed over `path`, or (written for standard output) copied out.
    pub fn publish_at(self, path: &Path) -> Result<()> {
        match self.0 {
            Temp::Named(temp) => rename(temp, path),
            Temp::Unnamed(mut temp) => {
                temp.seek(SeekFrom::Start(0))?;
                let mut stdout = io::stdout().lock();
                io::copy(&mut temp, &mut stdout)?;
                Ok(stdout.flush()?)
            }
        }
    }

    /// The complete document, for --check.
    pub fn contents(self) -> Result<Vec<u8>> {
        let mut contents = Vec::new();
        match self.0 {
            Temp::Named(mut temp) => {
                temp.seek(SeekFrom::Start(0))?;
                temp.read_to_end(&mut contents)?;
            }
            Temp::Unnamed(mut temp) => {
                temp.seek(SeekFrom::Start(0))?;
                temp.read_to_end(&mut contents)?;
            }
        }
        Ok(contents)
    }
}

/// A file replaced with a way back: the previous version stays linked under a temp name
/// until `keep` (or `undo` puts it back). There is no moment without the file.
pub struct Replaced {
    target: PathBuf,
    previous: Option<NamedTempFile<File>>,
}

impl Replaced {
    pub fn new(written: Written, target: &Path) -> Result<Replaced> {
        let dir = dir_of(target);
        let previous = if target.exists() {
            let link = tempfile::Builder::new()
                .prefix(TEMP_PREFIX)
                .suffix(TEMP_SUFFIX)
                .make_in(dir, |path| {
                    fs::hard_link(target, path)?;
                    let link = File::open(path)?;
                    lock(&link)?;
                    Ok(link)
                })
                .with_context(|| format!("cannot keep a copy of {}", target.display()))?;
            Some(link)
        } else {
            None
        };
        match written.0 {
            Temp::Named(temp) => rename(temp, target)?,
            Temp::Unnamed(_) => unreachable!("a state is written beside its target"),
        }
        Ok(Replaced {
            target: target.to_path_buf(),
            previous,
        })
    }

    /// The new version stays; the link to the previous one goes.
    pub fn keep(self) {}

    /// Puts the previous version back (or removes the file if there was none).
    pub fn undo(self) -> Result<()> {
        let context = || format!("cannot restore {}", self.target.display());
        match self.previous {
            Some(previous) => {
                previous
                    .persist(&self.target)
                    .map_err(|e| e.error)
                    .with_context(context)?;
            }
            None => fs::remove_file(&self.target).with_context(context)?,
        }
        Ok(())
    }
}

/// Every temp file of ours is locked (flock) while its run lives: a leftover that can be
/// locked belongs to a run that was killed.
fn lock(file: &File) -> io::Result<()> {
    rustix::fs::flock(file, rustix::fs::FlockOperation::NonBlockingLockExclusive)?;
    Ok(())
}

/// A temp file exists a moment before its run locks it; one younger than this may be such.
const LEFTOVER_AGE: Duration = Duration::from_secs(10);

/// Removes the temp files that killed runs left in `dir`, never those of a run still going
/// (locked, or too young to be locked yet); returns their paths.
pub fn remove_leftovers(dir: &Path) -> Result<Vec<PathBuf>> {
    let mut removed = Vec::new();
    let entries = match fs::read_dir(dir) {
        Ok(entries) => entries,
        Err(err) if err.kind() == io::ErrorKind::NotFound => return Ok(removed),
        Err(err) => return Err(err).with_context(|| format!("cannot read {}", dir.display())),
    };
    for entry in entries {
        let name = entry?.file_name();
        let bytes = name.as_bytes();
        if !(bytes.starts_with(TEMP_PREFIX.as_bytes()) && bytes.ends_with(TEMP_SUFFIX.as_bytes())) {
            continue;
        }
        let path = dir.join(&name);
        // Opened for the lock only; a file that vanished meanwhile was someone else's.
        let Ok(file) = File::open(&path) else {
            continue;
        };
        let old = file
            .metadata()
            .and_then(|meta| meta.modified())
            .is_ok_and(|modified| modified.elapsed().is_ok_and(|age| age >= LEFTOVER_AGE));
        if old && lock(&file).is_ok() {
            fs::remove_file(&path).with_context(|| format!("cannot remove {}", path.display()))?;
            removed.push(path);
        }
    }
    Ok(removed)
}

/// Held while a run publishes into a directory: two runs on one output take turns, so an
/// index never lands over another run's shards.
pub struct Publishing {
    /// The lock lasts as long as the descriptor.
    _locked: File,
}

impl Publishing {
    pub fn lock(dir: &Path) -> Result<Publishing> {
        let file = File::open(dir).with_context(|| format!("cannot open {}", dir.display()))?;
        rustix::fs::flock(&file, rustix::fs::FlockOperation::LockExclusive)
            .with_context(|| format!("cannot lock {}", dir.display()))?;
        Ok(Publishing { _locked: file })
    }
}

/// Renames `temp` over `target`, which keeps its mode if it exists.
fn rename(temp: NamedTempFile, target: &Path) -> Result<()> {
    let context = || format!("cannot write {}", target.display());
    if let Ok(old) = fs::metadata(target) {
        temp.as_file()
            .set_permissions(old.permissions())
            .with_context(context)?;
    }
    temp.persist(target)
        .map_err(|e| e.error)
        .with_context(context)?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shards_are_named_after_the_output() {
        let path = PathBuf::from("public/sitemap.xml");
        let files = Files::new(path.clone(), path, false, false);
        assert_eq!(files.shard_name(2), "sitemap-2.xml");
        assert_eq!(files.dir(), Path::new("public"));
        let gz = Files::new(PathBuf::from("map.xml.gz"), PathBuf::from("x"), false, true);
        assert_eq!(
            Files::new(PathBuf::from("s.txt"), PathBuf::from("s.txt"), true, false).shard_name(1),
            "s-1.txt"
        );
        assert_eq!(gz.shard_name(10), "map-10.xml.gz");
        assert_eq!(gz.dir(), Path::new("."));
        for ours in [
            "sitemap.xml",
            "sitemap.txt.gz",
            "sitemap-1.xml",
            "sitemap-12.xml.gz",
        ] {
            assert!(files.is_ours(OsStr::new(ours)), "{ours}");
        }
        for theirs in [
            "sitemap-0.xml",
            "sitemap-01.xml",
            "sitemap-x.xml",
            "sitemap-1.html",
            "news-1.xml",
        ] {
            assert!(!files.is_ours(OsStr::new(theirs)), "{theirs}");
        }
    }
}
