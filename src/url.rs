//! Mapping a page's path under DIR to its public URL.

use std::ffi::OsStr;
use std::hash::{BuildHasher, RandomState};
use std::path::{Path, PathBuf};

use anyhow::{Result, bail};
use hashbrown::HashTable;
use percent_encoding::{AsciiSet, NON_ALPHANUMERIC, PercentEncode, percent_encode};

use crate::html;
use crate::io::native;

/// The protocol's limit: a `loc` must be shorter than this many characters.
pub const MAX_LOC_LEN: usize = 2048;

/// The schema's `tLoc` has a minimum length of 12.
const MIN_LOC_LEN: usize = 12;

/// Bytes kept as they are in a path segment (RFC 3986 `pchar`): unreserved characters and
/// `!$&'()*+,;=:@`, besides letters and digits. Everything else, including `%`, `?`, `#`,
/// space and every non-ASCII byte, is percent-encoded.
const KEPT: &[u8] = b"-._~!$&'()*+,;=:@";

/// What percent-encoding encodes in a path segment: all but letters, digits and `KEPT`.
const SEGMENT: &AsciiSet = &segment();

const fn segment() -> AsciiSet {
    let mut set = NON_ALPHANUMERIC.remove(KEPT[0]);
    let mut i = 1;
    while i < KEPT.len() {
        set = set.remove(KEPT[i]);
        i += 1;
    }
    set
}

/// The public URL of DIR, always ending in `/`.
#[derive(Debug, Clone)]
pub struct BaseUrl(String);

impl BaseUrl {
    pub fn parse(text: &str) -> Result<Self> {
        let mut url = match given_url(text, "--base-url", Given::Base) {
            Ok(url) => url,
            // `-b example.com`: the scheme left out, as a browser's address bar allows.
            Err(err) if !text.contains("://") => match BaseUrl::parse(&format!("https://{text}")) {
                Ok(base) => bail!("{err:#}\nhint: -b {}", base.0),
                Err(_) => return Err(err),
            },
            Err(err) => return Err(err),
        };
        if !url.username().is_empty() || url.password().is_some() {
            bail!("--base-url {text:?} must not carry a user name or password");
        }
        let mut path = strict_path(url.path());
        if !path.ends_with('/') {
            path.push('/');
        }
        url.set_path(&path);
        // The base URL is the shortest loc (the root page's); the schema wants 12 characters.
        if url.as_str().len() < MIN_LOC_LEN {
            bail!(
                "--base-url {text:?} is too short: the sitemap schema requires every <loc> to \
                 have at least {MIN_LOC_LEN} characters, and {:?} has {}",
                url.as_str(),
                url.as_str().len()
            );
        }
        Ok(BaseUrl(url.into()))
    }

    /// The base URL's path (`/`, `/docs/`).
    pub fn path(&self) -> &str {
        match self.0.split_once("://") {
            Some((_, rest)) => rest.find('/').map_or("/", |at| &rest[at..]),
            None => "/",
        }
    }

    /// Whether the base URL is the root of its host (where robots.txt is read).
    pub fn is_host_root(&self) -> bool {
        self.0
            .split_once("://")
            .is_some_and(|(_, rest)| rest.find('/') == Some(rest.len() - 1))
    }

    /// The origin (`https://example.com`) of `href` as resolved against the base URL, when
    /// it differs from the base URL's own: browsers load a stylesheet only from the
    /// document's origin.
    pub fn foreign_origin(&self, href: &str) -> Option<String> {
        let base = ::url::Url::parse(&self.0).ok()?;
        let origin = base.join(href).ok()?.origin();
        (origin != base.origin()).then(|| origin.ascii_serialization())
    }

    /// The full URL of a path relative to the base (`path` is already encoded).
    pub fn join(&self, path: &str) -> String {
        let mut url = String::with_capacity(self.0.len() + path.len());
        url.push_str(&self.0);
        url.push_str(path);
        url
    }
}

/// What a URL a user gives is for, which gives its shape (doc/usage.md says them).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Given {
    /// A URL paths are joined to (`--base-url`, the endpoints): no query, no fragment, no
    /// empty segment, which the joined path would land in or be merged away by a server.
    Base,
    /// A URL fetched or listed as it is (`--state-url`, `--previous-sitemap`,
    /// `--index-add`, an `--add-urls` line).
    Resource,
}

/// The one gate every URL a user gives goes through (`what` names it in the message): an
/// http or https URL with a host name, as written: no control character or whitespace,
/// which the URL parser would drop or encode into a URL the user never wrote, and for a
/// `Given::Base`, no query, fragment or empty segment.
pub fn given_url(text: &str, what: &str, kind: Given) -> Result<::url::Url> {
    refuse_blanks(text, what)?;
    let url = match ::url::Url::parse(text) {
        Ok(url) => url,
        Err(err) => bail!("{what} {text:?} is not an absolute URL ({err})"),
    };
    if url.scheme() != "http" && url.scheme() != "https" {
        bail!(
            "{what} {text:?} is not an http or https URL ({}:)",
            url.scheme()
        );
    }
    // The URL parser would read `https:///docs` as host `docs`: insist on `scheme://host`.
    let host_follows = text
        .split_once("://")
        .is_some_and(|(_, rest)| !rest.starts_with(['/', '\\']));
    if !host_follows || url.host_str().is_none_or(str::is_empty) {
        bail!("{what} {text:?} has no host");
    }
    // The URL standard lets `"`, `{`, `}` and `` ` `` into a host name; a DNS name has
    // letters, digits, `-` and `.` (and `_` in practice) only, punycode included.
    if let Some(::url::Host::Domain(host)) = url.host()
        && !host
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b"-._".contains(&b))
    {
        bail!(
            "{what} {text:?} has an invalid host name {host:?} \
             (letters, digits, '-', '.' and '_' only)"
        );
    }
    if kind == Given::Base {
        if url.query().is_some() || url.fragment().is_some() {
            bail!("{what} {text:?} must not have a query or a fragment");
        }
        let segments: Vec<&str> = url.path().split('/').skip(1).collect();
        if segments[..segments.len().saturating_sub(1)].contains(&"") {
            bail!("{what} {text:?} has an empty path segment (//), which a server merges away");
        }
    }
    Ok(url)
}

/// Refuses a URL holding what no URL holds and the URL parser would drop or
/// encode into a URL the user never wrote: whitespace, a control character, and the
/// delimiters RFC 3986 (Appendix C) puts around URLs in text, `"`, `<`, `>`, and `\\` (read
/// as `/`).
pub fn refuse_blanks(text: &str, what: &str) -> Result<()> {
    if text.contains(|c: char| c.is_whitespace() || c.is_control() || "\"<>\\".contains(c)) {
        bail!(
            "{what} \"{}\" holds whitespace, a control character or one of \" < > \\, which no \
             URL has (percent-encode them: a space is %20)",
            crate::report::shown(text)
        );
    }
    Ok(())
}

/// The path of `url` as a static server finds its file: without the query and fragment,
/// without `;` parameters (which Java servers drop), empty segments merged (as nginx and
/// Apache merge `//`), percent-decoded and encoded again as sitemapgen writes paths. Case
/// is kept: a static server on Linux tells `Sitemap.xml` from `sitemap.xml`.
pub fn served_path(url: &::url::Url) -> String {
    let segments: Vec<&str> = url
        .path()
        .split('/')
        .map(|segment| segment.split(';').next().unwrap_or_default())
        .collect();
    let last = segments.len() - 1;
    let kept = segments
        .iter()
        .enumerate()
        .filter(|&(i, segment)| i == 0 || i == last || !segment.is_empty())
        .map(|(_, segment)| *segment)
        .collect::<Vec<_>>();
    normal_path(&kept.join("/"))
}

/// The base URL's path with what the URL parser leaves raw but RFC 3986 does not allow in a
/// path (`|`, `^`, `[`, `]`, a `%` that starts no escape) percent-encoded, as the pages' own
/// segments are. Escapes already there are kept as written.
fn strict_path(path: &str) -> String {
    strict_part(path, b"/")
}

/// `part` of a URL with every byte RFC 3986 does not allow there percent-encoded: `keep`
/// names what the part may hold beyond a path segment's characters. Escapes already there are
/// kept as written.
fn strict_part(part: &str, keep: &[u8]) -> String {
    let bytes = part.as_bytes();
    let mut strict = String::with_capacity(part.len());
    for (i, byte) in bytes.iter().enumerate() {
        let escape = *byte == b'%'
            && bytes
                .get(i + 1..i + 3)
                .is_some_and(|hex| hex.iter().all(u8::is_ascii_hexdigit));
        if keep.contains(byte) || escape {
            strict.push(char::from(*byte));
        } else {
            strict.extend(encode_segment(std::slice::from_ref(byte)));
        }
    }
    strict
}

/// An absolute URL the URL parser made (from a page's markup), in the form sitemapgen writes
/// URLs in: what the parser leaves raw but RFC 3986 does not allow (`|`, `^`, `[`, `]`,
/// `{`, `}`, `` ` `` in a query, a `%` that starts no escape) percent-encoded in its path and
/// query, and without its fragment, which names no other resource.
pub fn strict_url(url: &::url::Url) -> String {
    let mut strict = url[..::url::Position::BeforePath].to_string();
    strict.push_str(&strict_path(url.path()));
    if let Some(query) = url.query() {
        strict.push('?');
        strict.push_str(&strict_part(query, b"/?"));
    }
    strict
}

/// A URL path as a page writes it (`/docs/caf%c3%a9`), in the one form sitemapgen writes
/// paths in: each segment percent-decoded to its bytes and encoded again byte for byte, as
/// file names are. A static server finds the same file for `%7Ew`, `%7ew` and `~w`, for
/// `y%281%29` and `y(1)`; so do these forms (RFC 3986 §6.2.2 and more: escaped
/// sub-delimiters are decoded too). An escaped `/` stays escaped.
pub fn normal_path(path: &str) -> String {
    // Most paths are already in that form (every loc sitemapgen makes is): keep them.
    if is_normal(path) {
        return path.to_string();
    }
    encode_segments(
        path.split('/')
            .map(|segment| percent_encoding::percent_decode_str(segment).collect::<Vec<u8>>())
            .collect::<Vec<_>>()
            .iter()
            .map(Vec::as_slice),
    )
}

/// Whether `path`, relative to the base URL, is one sitemapgen could have written for a
/// page (a state's key, a changes file's URL): in normal form, no segment empty but the
/// last (a directory's `docs/`, the root's ``), none `.` or `..`.
pub fn is_page_path(path: &str) -> bool {
    let mut segments = path.split('/').rev();
    let last = segments.next().unwrap_or_default();
    is_normal(path)
        && last != "."
        && last != ".."
        && segments.all(|segment| !matches!(segment, "" | "." | ".."))
}

/// Whether `normal_path` gives `path` back as it is: each byte one that `SEGMENT` keeps, a
/// `/`, or an escape in upper-case hex of a byte that `SEGMENT` does not keep.
fn is_normal(path: &str) -> bool {
    let bytes = path.as_bytes();
    let mut i = 0;
    while let Some(&byte) = bytes.get(i) {
        if byte == b'%' {
            let hex = |at: usize| match bytes.get(at) {
                Some(&digit @ b'0'..=b'9') => Some(digit - b'0'),
                Some(&digit @ b'A'..=b'F') => Some(digit - b'A' + 10),
                _ => None,
            };
            match (hex(i + 1), hex(i + 2)) {
                (Some(high), Some(low)) if !is_kept(high << 4 | low) => i += 3,
                _ => return false,
            }
        } else if byte == b'/' || is_kept(byte) {
            i += 1;
        } else {
            return false;
        }
    }
    true
}

/// Whether `SEGMENT` keeps `byte` as it is (percent-encoding does not say).
fn is_kept(byte: u8) -> bool {
    byte.is_ascii_alphanumeric() || KEPT.contains(&byte)
}

/// How file paths become URL paths.
#[derive(Debug, Clone, Copy)]
pub struct Mapping {
    pub clean_urls: bool,
    pub trailing_slash: bool,
}

/// A page's URL path relative to the base URL, percent-encoded.
#[derive(Debug, PartialEq, Eq)]
pub struct PagePath {
    pub path: String,
}

impl Mapping {
    /// `rel` is a file path relative to DIR made only of normal components.
    pub fn page_path(&self, rel: &Path) -> PagePath {
        let (dir, name) = split_last(rel);
        let mut path = String::with_capacity(rel.as_os_str().len() + 1);
        if !dir.is_empty() {
            encode_segments_into(&mut path, dir.split(|&byte| byte == b'/'));
        }
        if html::index_rank(name).is_some() {
            if !dir.is_empty() && self.trailing_slash {
                path.push('/');
            }
        } else {
            if !dir.is_empty() {
                path.push('/');
            }
            let name = match (self.clean_urls, html::stem(name)) {
                (true, Some(stem)) => stem,
                _ => name,
            };
            path.extend(encode_segment(name));
        }
        PagePath { path }
    }
}

/// A relative path made of normal components only, as its directory and its name: split on
/// its last `/` (parsing its components cost a tenth of the URL mapping).
fn split_last(rel: &Path) -> (&[u8], &[u8]) {
    let bytes = rel.as_os_str().as_encoded_bytes();
    match bytes.iter().rposition(|&byte| byte == b'/') {
        Some(slash) => (&bytes[..slash], &bytes[slash + 1..]),
        None => (&bytes[..0], bytes),
    }
}

/// A relative path (normal components only) as an encoded URL path.
pub fn encode_path(rel: &Path) -> String {
    encode_segments(rel.iter().map(OsStr::as_encoded_bytes))
}

fn encode_segments<'a>(segments: impl Iterator<Item = &'a [u8]>) -> String {
    let mut path = String::new();
    encode_segments_into(&mut path, segments);
    path
}

fn encode_segments_into<'a>(path: &mut String, segments: impl Iterator<Item = &'a [u8]>) {
    for (i, segment) in segments.enumerate() {
        if i > 0 {
            path.push('/');
        }
        path.extend(encode_segment(segment));
    }
}

/// Percent-encodes raw bytes: valid UTF-8 or not, every byte outside `SEGMENT`'s keep-list
/// becomes `%XX`, so no name is ever dropped or mangled.
fn encode_segment(bytes: &[u8]) -> PercentEncode<'_> {
    percent_encode(bytes, SEGMENT)
}

/// Two files that map to the same URL keep only the first. Two URL paths can only be the
/// same if they share their substance (`html::url_substance`: `docs/`, `docs.html` and
/// `docs/index.html` are all `docs`), and the files behind one substance sit in its parent
/// directory or below it. Pages arrive in walk order (depth first, names sorted), so only the
/// directories on the current path are remembered, each with the URL paths of its
/// substances.
#[derive(Debug, Default)]
pub struct Dedup {
    current_dir: PathBuf,
    /// How many levels are on the current path: DIR's and one per directory below it.
    depth: usize,
    /// One per directory on the current path (index 0 is DIR), then those of earlier, deeper
    /// paths, cleared when they are reached again: their room is kept, as each page would
    /// otherwise allocate twice and each directory change free them all.
    levels: Vec<Level>,
    hasher: RandomState,
}

/// The URL paths claimed at one level and the file that first claimed each, one after the
/// other in one buffer.
#[derive(Debug, Default)]
struct Level {
    /// Each claim: where its URL path starts in `bytes`, its length, and the length of the
    /// file's path, which follows it.
    claims: HashTable<(usize, usize, usize)>,
    bytes: Vec<u8>,
}

impl Dedup {
    /// Records URL path `path` (relative to the base URL) for the page at `rel`; returns the
    /// earlier file if the URL is already taken.
    pub fn claim(&mut self, rel: &Path, path: &str) -> Option<PathBuf> {
        let dir = Path::new(native::os_str(split_last(rel).0));
        // Most pages share the previous page's directory: compare bytes before components.
        if self.depth == 0 || dir.as_os_str() != self.current_dir.as_os_str() {
            let common = dir
                .components()
                .zip(self.current_dir.components())
                .take_while(|(a, b)| a == b)
                .count();
            // DIR's level stays; so do those of the directories the two paths share.
            let kept = if self.depth == 0 { 0 } else { common + 1 };
            let depth = dir.components().count() + 1;
            if self.levels.len() < depth {
                self.levels.resize_with(depth, Level::default);
            }
            for level in &mut self.levels[kept..depth] {
                level.claims.clear();
                level.bytes.clear();
            }
            self.depth = depth;
            self.current_dir = dir.to_path_buf();
        }
        let level = html::url_substance(path)
            .bytes()
            .filter(|&byte| byte == b'/')
            .count();
        let Level { claims, bytes } = &mut self.levels[level.min(self.depth - 1)];
        let hasher = &self.hasher;
        let hash = hasher.hash_one(path.as_bytes());
        let key = |&(at, len, _): &(usize, usize, usize)| &bytes[at..at + len];
        if let Some(&(at, len, file)) = claims.find(hash, |claim| key(claim) == path.as_bytes()) {
            let first = &bytes[at + len..at + len + file];
            return Some(PathBuf::from(native::os_str(first)));
        }
        let claim = (bytes.len(), path.len(), rel.as_os_str().len());
        bytes.extend_from_slice(path.as_bytes());
        bytes.extend_from_slice(rel.as_os_str().as_encoded_bytes());
        let bytes = &*bytes;
        claims.insert_unique(hash, claim, |&(at, len, _)| {
            hasher.hash_one(&bytes[at..at + len])
        });
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_page_path_is_one_the_mapping_could_write() {
        for good in [
            "",
            "a.html",
            "docs/",
            "docs/caf%C3%A9/",
            "a%20b.html",
            "q%3Fx%23y.html",
            "it's&more.html",
            "..a/.b",
        ] {
            assert!(is_page_path(good), "{good:?}");
        }
        for bad in [
            "/a.html",
            "a//b",
            "../../etc/passwd",
            "a/./b",
            "a/..",
            ".",
            "\x1b[31mred.html",
            "<x>&\"'.html",
            "a b",
            "caf%c3%a9",
            "%7E",
            "%",
            "é",
        ] {
            assert!(!is_page_path(bad), "{bad:?}");
        }
    }

    const PLAIN: Mapping = Mapping {
        clean_urls: false,
        trailing_slash: true,
    };

    fn map(mapping: Mapping, rel: &[u8]) -> String {
        mapping.page_path(Path::new(native::os_str(rel))).path
    }

    #[test]
    fn index_files_map_to_their_directory() {
        assert_eq!(map(PLAIN, b"index.html"), "");
        assert_eq!(map(PLAIN, b"docs/index.htm"), "docs/");
        let no_slash = Mapping {
            trailing_slash: false,
            ..PLAIN
        };
        assert_eq!(map(no_slash, b"index.html"), "");
        assert_eq!(map(no_slash, b"docs/a/index.html"), "docs/a");
    }

    #[test]
    fn clean_urls_strip_only_html_extensions() {
        let clean = Mapping {
            clean_urls: true,
            ..PLAIN
        };
        assert_eq!(map(clean, b"about.html"), "about");
        assert_eq!(map(clean, b"a/b.htm"), "a/b");
        assert_eq!(map(clean, b"paper.pdf"), "paper.pdf");
        assert_eq!(map(clean, b".html"), ".html");
    }

    #[test]
    fn segments_are_percent_encoded_byte_for_byte() {
        assert_eq!(map(PLAIN, b"q?x#y.html"), "q%3Fx%23y.html");
        assert_eq!(map(PLAIN, b"100%.html"), "100%25.html");
        assert_eq!(map(PLAIN, b"a b/caf\xc3\xa9.html"), "a%20b/caf%C3%A9.html");
        assert_eq!(map(PLAIN, b"bad\xff.html"), "bad%FF.html");
        assert_eq!(map(PLAIN, b"it's&(ok)!.html"), "it's&(ok)!.html");
        assert_eq!(
            map(PLAIN, b"<\"\\^`{|}>\t.html"),
            "%3C%22%5C%5E%60%7B%7C%7D%3E%09.html"
        );
    }

    #[test]
    fn base_url_gets_a_final_slash_and_rejects_what_cannot_be_a_base() {
        assert_eq!(
            BaseUrl::parse("https://Example.com/docs").unwrap().join(""),
            "https://example.com/docs/"
        );
        assert_eq!(
            BaseUrl::parse("http://example.com").unwrap().join(""),
            "http://example.com/"
        );
        assert_eq!(
            BaseUrl::parse("https://example.com/a|b^[c]/100%/%7e%C3%A9%20x")
                .unwrap()
                .join(""),
            "https://example.com/a%7Cb%5E%5Bc%5D/100%25/%7e%C3%A9%20x/"
        );
        for bad in [
            "example.com",
            "ftp://example.com/",
            "https://example.com/?q",
            "https://example.com/#top",
            "https://user@example.com/",
            "file:///tmp/",
            "https:///docs",
            "https:\\\\example.com",
            "https://ex\"ample.com/",
            "http://'}''g//",
            "https://a`b{c}/",
            "https://example.com/a\nb/",
            "https://example.com/a\tb/",
            "https://example.com/a b/",
            "https://example.com/a<b>/",
            "https://example.com/a\\b/",
            "https://example.com/a//b/",
        ] {
            assert!(BaseUrl::parse(bad).is_err(), "{bad} accepted");
        }
    }

    #[test]
    fn a_parsed_url_is_written_strictly_without_its_fragment() {
        for (parsed, strict) in [
            (
                "https://example.com/a|b^c/d[1].png",
                "https://example.com/a%7Cb%5Ec/d%5B1%5D.png",
            ),
            (
                "https://example.com/x.png?w=1&s={a}|`b`",
                "https://example.com/x.png?w=1&s=%7Ba%7D%7C%60b%60",
            ),
            (
                "https://example.com/q?a/b?c#frag",
                "https://example.com/q?a/b?c",
            ),
            (
                "https://EXAMPLE.com:8080/caf%c3%a9.png",
                "https://example.com:8080/caf%c3%a9.png",
            ),
            (
                "https://example.com/100%.png",
                "https://example.com/100%25.png",
            ),
        ] {
            let url = ::url::Url::parse(parsed).unwrap();
            assert_eq!(strict_url(&url), strict, "{parsed}");
        }
    }

    #[test]
    fn normal_paths_are_written_as_file_names_are() {
        for (written, normal) in [
            ("/docs/caf%c3%a9.html", "/docs/caf%C3%A9.html"),
            ("/y%281%29.html", "/y(1).html"),
            ("/%7Ew.html", "/~w.html"),
            ("/%65.html", "/e.html"),
            ("/a%2Fb/", "/a%2Fb/"),
            ("/a b/|x|", "/a%20b/%7Cx%7C"),
            ("/100%", "/100%25"),
        ] {
            assert_eq!(normal_path(written), normal, "{written}");
        }
    }

    #[test]
    fn is_kept_agrees_with_segment() {
        for byte in 0..=255u8 {
            let kept = encode_segment(&[byte]).to_string() == char::from(byte).to_string();
            assert_eq!(is_kept(byte), kept, "{byte:#04x}");
        }
    }

    /// `normal_path` without its shortcut for paths already normal.
    fn decoded_and_encoded(path: &str) -> String {
        let segments: Vec<Vec<u8>> = path
            .split('/')
            .map(|segment| percent_encoding::percent_decode_str(segment).collect())
            .collect();
        encode_segments(segments.iter().map(Vec::as_slice))
    }

    proptest::proptest! {
        #[test]
        fn normal_path_decodes_and_encodes_every_segment(
            path in "(/|%|%2|%2F|%2f|%25|%41|%7E|%7e|%C3%A9|%c3|%G0|[aA~._?#: é|+])*",
        ) {
            proptest::prop_assert_eq!(normal_path(&path), decoded_and_encoded(&path));
        }
    }

    #[test]
    fn dedup_finds_a_page_and_a_directory_index_with_the_same_url() {
        let mapping = Mapping {
            clean_urls: true,
            trailing_slash: false,
        };
        let mut dedup = Dedup::default();
        let mut claim =
            |rel: &str| dedup.claim(Path::new(rel), &mapping.page_path(Path::new(rel)).path);
        assert_eq!(claim("a/index.html"), None);
        assert_eq!(claim("a/x.html"), None);
        assert_eq!(claim("a-b/index.html"), None);
        assert_eq!(claim("a.html"), Some(PathBuf::from("a/index.html")));
        assert_eq!(claim("b/c/x.htm"), None);
        assert_eq!(claim("b/c/x.html"), Some(PathBuf::from("b/c/x.htm")));
        assert_eq!(claim("b/d/x.html"), None);
        // Levels left behind are cleared when reached again, and work as before.
        assert_eq!(claim("b.html"), None);
        assert_eq!(claim("c/d/e/index.html"), None);
        assert_eq!(claim("c/d/e.html"), Some(PathBuf::from("c/d/e/index.html")));
        assert_eq!(claim("c/d/f/g/index.html"), None);
        assert_eq!(
            claim("c/d/f/g.html"),
            Some(PathBuf::from("c/d/f/g/index.html"))
        );
        assert_eq!(claim("c/d/x.html"), None);
        assert_eq!(claim("c/d/x/index.html"), Some(PathBuf::from("c/d/x.html")));
        assert_eq!(claim("z/index.html"), None);
        assert_eq!(claim("z.html"), Some(PathBuf::from("z/index.html")));
        assert_eq!(claim("index.html"), None);
        assert_eq!(claim("index.htm"), Some(PathBuf::from("index.html")));
    }
}
