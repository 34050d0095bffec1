//! Reading a page: the one place a page's bytes are read and its HTML tokenized, once, for
//! everything the decision about it needs: its head (noindex, redirects, canonical URLs,
//! alternates), its digest for `--state`, the dates it declares for `--lastmod page`, its
//! images for `--images`.

mod content;
mod dates;
pub mod digest;
pub mod head;
pub mod images;
mod page;
pub mod select;
mod tokens;

use std::fs::File;
use std::io::{self, Read};

use html5gum::IoReader;

use content::Content;
use digest::{ByteDigest, DigestRules, Hashing, Mode};
use head::{HEAD_CAP, Head};
use images::{ImageRules, Images, PageImages};
use page::PageReader;
use select::Selector;

use crate::known::{Fingerprint, Known};

/// Bytes html5gum reads at a time from a page too large to be read whole.
const READ_CHUNK: usize = 64 * 1024;

/// Pages up to this size are read whole, at once, and tokenized in memory (a fifth of the
/// tokenizer's time goes into reading through a buffer); larger ones are streamed.
const WHOLE: usize = 1024 * 1024;

/// What is read first of a page for its head alone: most heads end well within it.
const HEAD_FIRST: usize = 16 * 1024;

/// How a run reads its pages, the same for every page: built once by `cli` from
/// `--digest-region`, `--state`'s `--digest` and `--digest-ignore`, and `--images`, and
/// handed to the planner, which says of each page what to read (`Want`).
#[derive(Debug, Default)]
pub struct Settings {
    /// `--digest-region`: the main region of the content digest and of the images, instead
    /// of `<main>` or `role="main"`.
    pub region: Option<Selector>,
    /// With `--state`: the rules a page's digest is made by.
    pub digest: Option<DigestRules>,
    /// With `--images`: which images are listed.
    pub images: Option<ImageRules>,
}

impl Settings {
    /// The digest's rules as the state names them, so that a change of rules is noticed.
    pub fn describe_digest(&self) -> Option<String> {
        let digest = self.digest.as_ref()?;
        Some(digest.describe(self.region.as_ref()))
    }
}

/// What to read of a page, by the run's `Settings`.
#[derive(Clone)]
pub struct Want {
    /// Whether the page is HTML (only HTML is tokenized; another file has a digest of its
    /// bytes).
    pub html: bool,
    pub head: bool,
    /// The digest of the page, made by the settings' digest rules.
    pub digest: bool,
    /// The dates the page declares.
    pub dates: bool,
    /// The page's images by the settings' image rules, resolved against this URL of the
    /// page (the base URL and its path under DIR, whatever URL form the sitemap lists it
    /// at); of an HTML page, read whole for them.
    pub images: Option<String>,
    /// The fingerprint and digest an earlier run recorded for the page: a page whose bytes
    /// still have that fingerprint keeps that digest without being tokenized for it.
    pub known: Option<Known>,
}

fn fingerprint(bytes: &[u8]) -> Fingerprint {
    let hash = blake3::hash(bytes);
    let mut first = [0; 8];
    first.copy_from_slice(&hash.as_bytes()[..8]);
    u64::from_le_bytes(first) >> 4
}

impl Want {
    /// Whether anything is to be read of the page: if not, it is not opened.
    pub fn reads(&self) -> bool {
        self.digest || (self.html && (self.head || self.dates || self.images.is_some()))
    }
}

/// A `Want` with the settings' rules for what it asks.
struct Asked<'r> {
    want: Want,
    region: Option<&'r Selector>,
    digest: Option<&'r DigestRules>,
    images: Option<(&'r ImageRules, String)>,
}

impl<'r> Asked<'r> {
    fn new(settings: &'r Settings, want: Want) -> Asked<'r> {
        let digest = settings.digest.as_ref().filter(|_| want.digest);
        let images = settings.images.as_ref().zip(want.images.clone());
        Asked {
            region: settings.region.as_ref(),
            digest,
            images,
            want,
        }
    }
}

/// What was read.
#[derive(Debug, Default)]
pub struct Scanned {
    pub head: Option<Head>,
    pub digest: Option<blake3::Hash>,
    /// The fingerprint of the page's bytes, with the digest of a page read whole in memory
    /// (a larger one is streamed, and tokenized whenever it is read).
    pub fingerprint: Option<Fingerprint>,
    /// The date the page declares, in a W3C form.
    pub declared: Option<String>,
    pub images: PageImages,
}

/// Reads pages, its buffers reused from page to page.
pub struct Scanner {
    /// The page read whole, or its first bytes.
    page: Vec<u8>,
    /// html5gum's buffer for a page that is streamed.
    chunk: Vec<u8>,
}

impl Default for Scanner {
    fn default() -> Self {
        Scanner {
            page: Vec::new(),
            chunk: vec![0; READ_CHUNK],
        }
    }
}

/// A page's bytes: all in memory, or what is in memory followed by the rest of the file.
enum Input<'a> {
    Whole(&'a [u8]),
    Stream(io::Chain<&'a [u8], File>),
}

impl Scanner {
    /// Reads the page that `open` opens, `size` bytes long by its stat, for what `want`
    /// asks, by the rules of `settings`, once; it is not opened when nothing is asked. An
    /// error is the read's (a page that vanished is `NotFound`).
    pub fn scan(
        &mut self,
        settings: &Settings,
        open: impl FnOnce() -> io::Result<File>,
        size: u64,
        want: Want,
    ) -> io::Result<Scanned> {
        let asked = Asked::new(settings, want);
        let want = &asked.want;
        let body = want.html && (want.dates || asked.images.is_some());
        match asked.digest {
            _ if !want.reads() => Ok(Scanned::default()),
            None if body => self.whole(open()?, size, &asked),
            None => self.head(open()?, size),
            Some(_) => self.whole(open()?, size, &asked),
        }
    }

    /// Reads the head alone: the page's first bytes, and the rest of the head if it goes on.
    fn head(&mut self, mut file: File, size: u64) -> io::Result<Scanned> {
        let Scanner { page, chunk } = self;
        let complete = read_start(&mut file, page, size, HEAD_FIRST)?;
        if let Some(scanned) = head_within(page, complete) {
            return Ok(scanned);
        }
        // Read again from the start, on through the rest of the file.
        let mut reader = PageReader::new(None, false);
        let input = page.as_slice().chain(file).take(HEAD_CAP as u64);
        tokens::read(IoReader::new_with_buffer(input, chunk), &mut reader)?;
        Ok(finish(reader, true))
    }

    /// Reads the whole page, in memory if it is not too large.
    fn whole(&mut self, mut file: File, size: u64, asked: &Asked) -> io::Result<Scanned> {
        let Scanner { page, chunk } = self;
        let want = &asked.want;
        let input = match read_start(&mut file, page, size, WHOLE)? {
            true => Input::Whole(page),
            false => Input::Stream(page.as_slice().chain(file)),
        };
        let dates = want.html && want.dates;
        let head = want.html && want.head;
        let fingerprint = match (&input, asked.digest) {
            (Input::Whole(bytes), Some(_)) => Some(fingerprint(bytes)),
            _ => None,
        };
        // The same bytes as the earlier run's: its digest, and only the head is tokenized
        // (unless the dates or the images want the whole page).
        if let (Input::Whole(bytes), Some(known)) = (&input, &want.known)
            && fingerprint == Some(known.fingerprint)
            && !dates
            && asked.images.is_none()
        {
            let mut scanned = match head {
                true => head_within(bytes, bytes.len() <= HEAD_FIRST).unwrap_or_else(|| {
                    let mut reader = PageReader::new(None, false);
                    let cap = bytes.len().min(HEAD_CAP);
                    tokens::read(&bytes[..cap], &mut reader).unwrap_or_else(|never| match never {});
                    finish(reader, true)
                }),
                false => Scanned::default(),
            };
            scanned.digest = Some(known.digest);
            scanned.fingerprint = fingerprint;
            return Ok(scanned);
        }
        let mut scanned = digested(input, chunk, asked)?;
        scanned.fingerprint = fingerprint;
        Ok(scanned)
    }
}

/// Reads the whole page from `input` for what `asked` asks, its digest made anew.
fn digested(input: Input, chunk: &mut [u8], asked: &Asked) -> io::Result<Scanned> {
    let want = &asked.want;
    let dates = want.html && want.dates;
    let head = want.html && want.head;
    let images = asked
        .images
        .as_ref()
        .filter(|_| want.html)
        .map(|(rules, page)| Images::new(rules, page));
    // The content digest's region is the images' too (both are --digest-region's).
    let region = asked.region;
    let Some(rules) = asked.digest else {
        let mut content = images.map(|images| Content::new(region, None, Some(images)));
        let mut reader = PageReader::new(content.as_mut(), dates);
        tokenize(input, chunk, &mut reader)?;
        let mut scanned = finish(reader, head);
        scanned.images = found_images(content);
        return Ok(scanned);
    };
    // A file that is not HTML, or the bytes asked for: every byte counts.
    if !want.html || rules.mode == Mode::Bytes {
        let mut content = images.map(|images| Content::new(region, None, Some(images)));
        let read = head || dates || content.is_some();
        let mut reader = PageReader::new(content.as_mut(), dates);
        let digest = match input {
            Input::Whole(bytes) => {
                if read {
                    tokenize(Input::Whole(bytes), chunk, &mut reader)?;
                }
                let mut digest = ByteDigest::new(rules);
                digest.update(bytes);
                digest.finish()
            }
            Input::Stream(stream) => {
                let mut hashing = Hashing::new(stream, rules);
                if read {
                    let input = IoReader::new_with_buffer(&mut hashing, chunk);
                    tokens::read(input, &mut reader)?;
                }
                hashing.finish()?
            }
        };
        let mut scanned = match read {
            true => finish(reader, head),
            false => Scanned::default(),
        };
        scanned.digest = Some(digest);
        scanned.images = found_images(content);
        return Ok(scanned);
    }
    let mut content = Content::new(region, Some(rules), images);
    let mut reader = PageReader::new(Some(&mut content), dates);
    tokenize(input, chunk, &mut reader)?;
    let mut scanned = finish(reader, head);
    let found = content.finish();
    scanned.digest = found.digest;
    scanned.images = found.images.unwrap_or_default();
    Ok(scanned)
}

/// The head of the page whose first bytes are `first` (all of them if `complete`), when it
/// ends within them.
fn head_within(first: &[u8], complete: bool) -> Option<Scanned> {
    let mut reader = PageReader::new(None, false);
    let first = &first[..first.len().min(HEAD_FIRST)];
    tokens::read(first, &mut reader).unwrap_or_else(|never| match never {});
    (complete || reader.head_done()).then(|| finish(reader, true))
}

/// The images `content` found, if it looked for any.
fn found_images(content: Option<Content>) -> PageImages {
    content
        .and_then(|content| content.finish().images)
        .unwrap_or_default()
}

/// Reads the first `limit` bytes of `file` into `page`, fewer if it is shorter; whether that
/// is the whole file. Its size is the stat's: a file that grows after it is read as it was
/// then (its stamp has changed, so the next run reads it again), one that shrinks ends.
fn read_start(file: &mut File, page: &mut Vec<u8>, size: u64, limit: usize) -> io::Result<bool> {
    let want = usize::try_from(size).unwrap_or(usize::MAX).min(limit);
    page.clear();
    page.reserve(want);
    file.take(want as u64).read_to_end(page)?;
    Ok(page.len() < limit || page.len() as u64 >= size)
}

fn tokenize(input: Input, chunk: &mut [u8], reader: &mut PageReader) -> io::Result<()> {
    match input {
        Input::Whole(bytes) => {
            tokens::read(bytes, reader).unwrap_or_else(|never| match never {});
            Ok(())
        }
        Input::Stream(stream) => tokens::read(IoReader::new_with_buffer(stream, chunk), reader),
    }
}

/// What a page reader found, the head only if it was asked for.
fn finish(reader: PageReader, head: bool) -> Scanned {
    Scanned {
        declared: reader
            .dates
            .as_ref()
            .and_then(|d| d.date())
            .map(String::from),
        head: head.then_some(reader.facts.head),
        digest: None,
        fingerprint: None,
        images: PageImages::default(),
    }
}

/// What a scanner finds in a page of `page`'s bytes, read from a file as a run reads it: the
/// unit tests' one way into a scan.
#[cfg(test)]
fn scan_page(settings: &Settings, page: impl AsRef<[u8]>, want: Want) -> Scanned {
    let page = page.as_ref();
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("page.html");
    std::fs::write(&path, page).unwrap();
    let open = || File::open(&path);
    Scanner::default()
        .scan(settings, open, page.len() as u64, want)
        .unwrap()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_head_longer_than_the_first_read_is_read_on() {
        let head = Want {
            html: true,
            head: true,
            digest: false,
            dates: false,
            images: None,
            known: None,
        };
        for filler in [
            0,
            HEAD_FIRST - 90,
            HEAD_FIRST - 40,
            HEAD_FIRST,
            3 * HEAD_FIRST,
        ] {
            let page = format!(
                "<html><head><meta name=x content='{}'><link rel=canonical href=/c></head>\
                 <body>text</body></html>",
                "a".repeat(filler)
            );
            let scanned = scan_page(&Settings::default(), &page, head.clone());
            let canonicals = scanned.head.map(|head| head.canonicals);
            assert_eq!(canonicals, Some(vec!["/c".to_string()]), "filler {filler}");
        }
    }

    #[test]
    fn a_page_too_large_to_be_read_whole_is_streamed_alike() {
        let settings = |mode| Settings {
            digest: Some(DigestRules::new(mode, Vec::new())),
            ..Settings::default()
        };
        let content = settings(Mode::Content);
        let want = Want {
            html: true,
            head: true,
            digest: true,
            dates: true,
            images: None,
            known: None,
        };
        let page = |words: usize| {
            format!(
                "<html><head><meta property=article:modified_time content=2024-05-01>\
                 <link rel=canonical href=/c></head><body><main>{}</main></body></html>",
                "word ".repeat(words)
            )
        };
        let (small, large) = (page(10), page(WHOLE / 4));
        assert!(large.len() > WHOLE);
        let (small, large) = (
            scan_page(&content, &small, want.clone()),
            scan_page(&content, &large, want.clone()),
        );
        assert_eq!(small.head, large.head);
        assert_eq!(small.declared.as_deref(), Some("2024-05-01"));
        assert_eq!(small.declared, large.declared);
        assert_ne!(small.digest, large.digest);
        // The digest of a streamed page is that of the same words read whole.
        let direct = {
            let mut words = Content::new(None, content.digest.as_ref(), None);
            let mut reader = PageReader::new(Some(&mut words), false);
            let html = format!("<main>{}</main>", "word ".repeat(WHOLE / 4));
            tokens::read(html.as_bytes(), &mut reader).unwrap_or_else(|never| match never {});
            words.finish().digest
        };
        assert_eq!(large.digest, direct);
        let text = page(WHOLE / 4);
        assert_eq!(
            scan_page(&settings(Mode::Bytes), &text, want).digest,
            Some(blake3::hash(text.as_bytes()))
        );
    }
}
