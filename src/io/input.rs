//! Reading what another program or another machine wrote (a state, a published sitemap, a
//! changes file, an `--add-urls` file), within limits: every bound on such input is named here; files are opened
//! only when regular (a FIFO or a device could hang the run or never end); a reader refuses
//! more than so many bytes, gzip is recognised by its magic bytes and decompressed under
//! such a limit, lines are of bounded length, and a deadline bounds the time of the whole.

use std::fs::File;
use std::io::{self, BufRead, BufReader, Read};
use std::path::Path;
use std::time::{Duration, Instant};

use flate2::read::GzDecoder;

use super::native::{self, Opened};

/// A state decompressed may be this large, no larger (some 7 million URLs).
pub const MAX_STATE: u64 = 1 << 30;

/// A published state's body may be this large (compressed, a state is some 50 bytes a URL).
pub const MAX_STATE_BODY: u64 = 256 << 20;

/// A sitemap may be 50 MiB uncompressed (the protocol's limit); some room over it.
pub const MAX_SITEMAP: u64 = 64 << 20;

/// All the shards of a published sitemap index together: as much as a state may hold.
pub const MAX_SITEMAPS: u64 = MAX_STATE;

/// The sitemaps a sitemap index may list (the protocol's limit).
pub const MAX_INDEX_ENTRIES: usize = 50_000;

/// How deep a sitemap's elements may nest: `urlset`, `url`, an extension's element and its
/// children need four; deeper is no sitemap (and nesting costs the XML parser time that
/// grows with the depth).
pub const MAX_XML_DEPTH: usize = 16;

/// An `--add-urls` file, decompressed: some 2 million URLs with dates.
pub const MAX_ADDED_URLS: u64 = 256 << 20;

/// A changes file: some 4 million URLs of 60 bytes.
pub const MAX_CHANGES: u64 = 256 << 20;

/// A URL is under 2,048 characters; a changes file's line is its kind and it.
pub const MAX_CHANGES_LINE: usize = 4096;

/// No state record is longer: a key is a URL path, under 2,048 characters.
pub const MAX_STATE_LINE: usize = 16 << 10;

/// Opens the file at `path` for reading if it is a regular file; None when there is none.
/// A FIFO, a device, a socket or a directory is refused without being read: opened
/// non-blocking, a FIFO with no writer cannot hang the run before it is seen.
pub fn open(path: &Path) -> io::Result<Option<File>> {
    match native::open_regular(path, true)? {
        Opened::File(file) => Ok(Some(file)),
        Opened::Missing => Ok(None),
        Opened::Symlink | Opened::NotRegular => Err(io::Error::new(
            io::ErrorKind::InvalidInput,
            "it is not a regular file",
        )),
    }
}

/// The whole of the regular file at `path`, at most `limit` bytes (see `open`); None when
/// there is none.
pub fn read_file(path: &Path, limit: u64) -> io::Result<Option<Vec<u8>>> {
    let Some(file) = open(path)? else {
        return Ok(None);
    };
    let mut bytes = Vec::new();
    Capped::new(file, limit).read_to_end(&mut bytes)?;
    Ok(Some(bytes))
}

/// When the reading of one input, however many requests and parts it takes, must end.
#[derive(Debug, Clone, Copy)]
pub struct Deadline {
    at: Instant,
    allowed: Duration,
    /// What allows that time, for the message (`--http-timeout`).
    by: &'static str,
}

impl Deadline {
    pub fn after(allowed: Duration, by: &'static str) -> Deadline {
        Deadline {
            at: Instant::now() + allowed,
            allowed,
            by,
        }
    }

    /// The time left; an error once there is none.
    pub fn left(&self) -> io::Result<Duration> {
        match self.at.checked_duration_since(Instant::now()) {
            Some(left) if !left.is_zero() => Ok(left),
            _ => Err(io::Error::new(
                io::ErrorKind::TimedOut,
                format!(
                    "it takes longer than {} ({} s)",
                    self.by,
                    self.allowed.as_secs()
                ),
            )),
        }
    }
}

/// A reader that fails, rather than go on, past `limit` bytes.
pub struct Capped<R> {
    inner: R,
    left: u64,
    limit: u64,
}

impl<R: Read> Capped<R> {
    pub fn new(inner: R, limit: u64) -> Capped<R> {
        Capped {
            inner,
            left: limit,
            limit,
        }
    }
}

impl<R: Read> Read for Capped<R> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        if buf.is_empty() {
            return Ok(0);
        }
        // One byte more than is left tells a reader at the limit from one past it.
        let room = buf.len().min(
            usize::try_from(self.left)
                .unwrap_or(usize::MAX)
                .saturating_add(1),
        );
        let n = self.inner.read(&mut buf[..room])?;
        if n as u64 > self.left {
            return Err(io::Error::new(
                io::ErrorKind::InvalidData,
                format!("it is larger than {}", size(self.limit)),
            ));
        }
        self.left -= n as u64;
        Ok(n)
    }
}

/// `bytes` as people say it: 256 MiB, 16 KiB, 10 bytes.
pub fn size(bytes: u64) -> String {
    match bytes {
        b if b >= 1 << 20 && b % (1 << 20) == 0 => format!("{} MiB", b >> 20),
        b if b >= 1 << 10 && b % (1 << 10) == 0 => format!("{} KiB", b >> 10),
        b => format!("{b} bytes"),
    }
}

/// What `reader` holds, decompressed if it starts as gzip does, the decompressed bytes
/// limited to `limit` (a small file may hold a huge one).
pub fn decoded<'r>(mut reader: impl BufRead + 'r, limit: u64) -> io::Result<Box<dyn BufRead + 'r>> {
    let gzip = reader.fill_buf()?.starts_with(&[0x1f, 0x8b]);
    Ok(if gzip {
        Box::new(BufReader::new(Capped::new(GzDecoder::new(reader), limit)))
    } else {
        Box::new(reader)
    })
}

/// Reads the next line into `line` without its end (`\n` or `\r\n`); false at the end of
/// the input. A line longer than `max` bytes is an error, not a buffer that grows without
/// end.
pub fn read_line(reader: &mut impl BufRead, line: &mut Vec<u8>, max: usize) -> io::Result<bool> {
    line.clear();
    let n = reader.take(max as u64 + 1).read_until(b'\n', line)?;
    if n == 0 {
        return Ok(false);
    }
    if line.last() == Some(&b'\n') {
        line.pop();
        if line.last() == Some(&b'\r') {
            line.pop();
        }
    } else if n > max {
        return Err(io::Error::new(
            io::ErrorKind::InvalidData,
            format!("a line is longer than {}", size(max as u64)),
        ));
    }
    Ok(true)
}

#[cfg(test)]
mod tests {
    use std::io::Write;

    use super::*;

    #[test]
    fn a_capped_reader_gives_up_to_its_limit_and_fails_past_it() {
        let read = |data: &[u8], limit| {
            let mut out = Vec::new();
            Capped::new(data, limit).read_to_end(&mut out).map(|_| out)
        };
        assert_eq!(read(b"abcd", 4).unwrap(), b"abcd");
        assert_eq!(read(b"abcd", 9).unwrap(), b"abcd");
        assert_eq!(read(b"", 0).unwrap(), b"");
        let err = read(b"abcde", 4).unwrap_err();
        assert_eq!(err.to_string(), "it is larger than 4 bytes");
        assert!(
            read(&[0; 3 << 20], 2 << 20)
                .unwrap_err()
                .to_string()
                .contains("2 MiB")
        );
    }

    #[test]
    fn gzip_is_recognised_and_its_output_limited() {
        let mut encoder = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
        encoder.write_all(&[b'a'; 100_000]).unwrap();
        let gz = encoder.finish().unwrap();
        let mut out = Vec::new();
        decoded(gz.as_slice(), 100_000)
            .unwrap()
            .read_to_end(&mut out)
            .unwrap();
        assert_eq!(out.len(), 100_000);
        let mut out = Vec::new();
        let err = decoded(gz.as_slice(), 99_999)
            .unwrap()
            .read_to_end(&mut out);
        assert!(err.is_err(), "a bomb is stopped at the limit");
        let mut out = Vec::new();
        decoded(&b"plain"[..], 1)
            .unwrap()
            .read_to_end(&mut out)
            .unwrap();
        assert_eq!(out, b"plain", "plain input is passed as it is");
    }

    #[test]
    #[cfg(unix)]
    fn only_a_regular_file_is_read_and_within_its_limit() {
        use rustix::fs::{FileType, Mode};
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("file");
        std::fs::write(&file, b"12345").unwrap();
        assert_eq!(read_file(&file, 5).unwrap().unwrap(), b"12345");
        let err = read_file(&file, 4).unwrap_err();
        assert_eq!(err.to_string(), "it is larger than 4 bytes");
        assert!(read_file(&dir.path().join("none"), 5).unwrap().is_none());
        let fifo = dir.path().join("fifo");
        rustix::fs::mknodat(
            rustix::fs::CWD,
            &fifo,
            FileType::Fifo,
            Mode::RUSR | Mode::WUSR,
            0,
        )
        .unwrap();
        // With no writer, a FIFO opened to be read would block here.
        for path in [fifo.as_path(), Path::new("/dev/zero"), dir.path()] {
            let err = read_file(path, 5).unwrap_err();
            assert_eq!(err.to_string(), "it is not a regular file", "{path:?}");
        }
    }

    #[test]
    fn a_deadline_passed_is_an_error() {
        let deadline = Deadline::after(Duration::from_secs(5), "--http-timeout");
        assert!(deadline.left().unwrap() <= Duration::from_secs(5));
        let passed = Deadline::after(Duration::ZERO, "--http-timeout");
        assert_eq!(
            passed.left().unwrap_err().to_string(),
            "it takes longer than --http-timeout (0 s)"
        );
    }

    #[test]
    fn lines_are_bounded() {
        let mut input = &b"one\r\ntwo\n\nthree"[..];
        let mut line = Vec::new();
        let mut lines = Vec::new();
        while read_line(&mut input, &mut line, 5).unwrap() {
            lines.push(String::from_utf8(line.clone()).unwrap());
        }
        assert_eq!(lines, ["one", "two", "", "three"]);
        let mut input = &b"12345\n123456\n"[..];
        assert!(read_line(&mut input, &mut line, 5).unwrap());
        assert_eq!(line, b"12345");
        let err = read_line(&mut input, &mut line, 5).unwrap_err();
        assert_eq!(err.to_string(), "a line is longer than 5 bytes");
    }
}
