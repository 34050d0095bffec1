//! The properties that the proptest drivers (`main.rs`) and the fuzz targets (`fuzz/`) check:
//! one definition of each, two ways of finding inputs. Each function takes any input, skips
//! what cannot arise (a path component holding a `/`), and panics when a property fails.

use std::collections::HashMap;
use std::ffi::{OsStr, OsString};
use std::fs;
use std::os::unix::ffi::OsStrExt;
use std::path::{Path, PathBuf};

use percent_encoding::percent_decode_str;
use sitemapgen::Request;
use sitemapgen::decide::verdict::{self, Verdict};
use sitemapgen::entry::{Alternate, Entry, Group};
use sitemapgen::known::Stamp;
use sitemapgen::scan::digest::{DigestRules, Mode};
use sitemapgen::scan::head;
use sitemapgen::scan::images::{ImageRules, parse_host};
use sitemapgen::scan::{Scanner, Settings, Want};
use sitemapgen::sitemap::xml::{Document, Extensions, Kind, SITEMAP_NS, XHTML_NS, render};
use sitemapgen::state::{self, Record};
use sitemapgen::url::{BaseUrl, Mapping};
use xml::reader::{EventReader, XmlEvent};

/// An entry's values as the drivers generate them: loc, lastmod, changefreq, priority, and
/// (hreflang, href) alternates.
pub type Values = (
    String,
    Option<String>,
    Option<String>,
    Option<String>,
    Vec<(String, String)>,
);

/// A `loc` as the protocol wants it: http(s), ASCII, no space, `<`, `>`, `"`, `#` or `?`, only
/// what RFC 3986 allows in an authority and a path, and every `%` starting an escape.
pub fn assert_strict_url(url: &str) {
    let (scheme, rest) = url.split_once("://").expect("scheme://");
    assert!(scheme == "http" || scheme == "https", "{url:?}: scheme");
    let bytes = url.as_bytes();
    for (i, byte) in bytes.iter().enumerate() {
        assert!(byte.is_ascii_graphic(), "{url:?}: byte {byte:#04x}");
        assert!(
            !b"<>\"#?".contains(byte),
            "{url:?}: raw {}",
            char::from(*byte)
        );
        if *byte == b'%' {
            let hex = bytes.get(i + 1..i + 3);
            assert!(
                hex.is_some_and(|hex| hex.iter().all(u8::is_ascii_hexdigit)),
                "{url:?}: a % that starts no escape"
            );
        }
    }
    let plain = |b: u8| b.is_ascii_alphanumeric() || b"-._~!$&'()*+,;=%:".contains(&b);
    let (authority, path) = rest.split_at(rest.find('/').unwrap_or(rest.len()));
    assert!(
        authority.bytes().all(|b| plain(b) || b"[]".contains(&b)),
        "{url:?}: authority"
    );
    assert!(
        path.bytes().all(|b| plain(b) || b"@/".contains(&b)),
        "{url:?}: path"
    );
}

/// The components of a page path, from any bytes: no `/` or NUL inside, none empty, `.` or
/// `..` (what a walk or a file list can hand the mapping).
fn components(segments: &[Vec<u8>]) -> Vec<Vec<u8>> {
    segments
        .iter()
        .map(|s| {
            s.iter()
                .copied()
                .filter(|b| *b != b'/' && *b != 0)
                .collect()
        })
        .filter(|s: &Vec<u8>| !s.is_empty() && s != b"." && s != b"..")
        .collect()
}

/// The URL path a page should have, decoded: its path, less an index file's name, less
/// `.html` under clean URLs, a directory keeping its final `/` only with a trailing slash.
fn expected_path(dirs: &[Vec<u8>], name: &[u8], mapping: Mapping) -> Vec<u8> {
    let mut path = dirs.join(&b'/');
    if name == b"index.html" || name == b"index.htm" {
        if !dirs.is_empty() && mapping.trailing_slash {
            path.push(b'/');
        }
        return path;
    }
    if !dirs.is_empty() {
        path.push(b'/');
    }
    let stem = [b".html".as_slice(), b".htm"]
        .iter()
        .find_map(|ext| name.strip_suffix(*ext))
        .filter(|stem| !stem.is_empty() && mapping.clean_urls);
    path.extend_from_slice(stem.unwrap_or(name));
    path
}

/// A page path's URL is strict, lies under the base URL, percent-decodes back to exactly the
/// path's bytes, and goes through the serializer unchanged.
pub fn url_mapping(base: &str, clean_urls: bool, trailing_slash: bool, segments: &[Vec<u8>]) {
    let Ok(base) = BaseUrl::parse(base) else {
        return;
    };
    let prefix = base.join("");
    assert_strict_url(&prefix);
    assert!(prefix.ends_with('/'), "{prefix:?}");
    let components = components(segments);
    let Some((name, dirs)) = components.split_last() else {
        return;
    };
    let rel = PathBuf::from(OsStr::from_bytes(&components.join(&b'/')));
    let mapping = Mapping {
        clean_urls,
        trailing_slash,
    };
    let loc = base.join(&mapping.page_path(&rel).path);
    assert_strict_url(&loc);
    let tail = loc
        .strip_prefix(&prefix)
        .expect("a loc starts with the base URL");
    let decoded: Vec<u8> = percent_decode_str(tail).collect();
    assert_eq!(
        decoded,
        expected_path(dirs, name, mapping),
        "{loc:?} for {rel:?}"
    );
    serializer(0, false, &[(loc, None, None, None, Vec::new())]);
}

/// Whether the serializer must take these values: none holds a control character, U+FFFE or
/// U+FFFF.
fn writable(values: &Values) -> bool {
    let (loc, lastmod, changefreq, priority, alternates) = values;
    let mut all = [
        Some(loc),
        lastmod.as_ref(),
        changefreq.as_ref(),
        priority.as_ref(),
    ]
    .into_iter()
    .flatten()
    .chain(alternates.iter().flat_map(|(lang, href)| [lang, href]));
    all.all(|value| {
        !value
            .chars()
            .any(|c| c.is_control() || c == '\u{FFFE}' || c == '\u{FFFF}')
    })
}

/// The serializer over any entries (`kind`: 0 urlset, 1 index, 2 text): it writes an entry
/// whole or refuses it, refuses exactly the values XML cannot carry, announces each entry's
/// size exactly, and writes a well-formed document that parses back to the values it took.
pub fn serializer(kind: u8, xhtml: bool, entries: &[Values]) {
    let kind = [Kind::Urlset, Kind::Index, Kind::Text][usize::from(kind % 3)];
    // The pipeline's side of the contract: an index entry has only loc and lastmod, and
    // alternates come with the XHTML namespace declared.
    let entries: Vec<Values> = entries
        .iter()
        .cloned()
        .map(|mut values| {
            if kind == Kind::Index {
                (values.2, values.3) = (None, None);
                values.4.clear();
            }
            values
        })
        .collect();
    let xhtml = xhtml || entries.iter().any(|values| !values.4.is_empty());
    let extensions = Extensions {
        xhtml,
        image: false,
    };
    let (_, empty) = Document::new(kind, Vec::new(), extensions, None, false)
        .unwrap()
        .finish()
        .unwrap();
    let mut doc = Document::new(kind, Vec::new(), extensions, None, false).unwrap();
    let mut taken = Vec::new();
    let mut announced = empty;
    let mut rendered = Vec::new();
    for values in &entries {
        let (loc, lastmod, changefreq, priority, alternates) = values.clone();
        let entry = Entry {
            loc,
            lastmod,
            changefreq,
            priority,
            alternates: alternates
                .into_iter()
                .map(|(lang, href)| Alternate { lang, href })
                .collect(),
            images: Vec::new(),
            group: Group::Default,
        };
        match render(kind, &entry, &mut rendered) {
            Ok(()) => {
                assert!(writable(values), "wrote {values:?}");
                doc.write(&rendered).unwrap();
                announced += rendered.len() as u64;
                taken.push(values.clone());
            }
            Err(err) => assert!(!writable(values), "refused {values:?}: {err}"),
        }
    }
    let (bytes, size) = doc.finish().unwrap();
    assert_eq!(size, bytes.len() as u64);
    assert_eq!(size, announced, "the entries' announced sizes");
    if kind == Kind::Text {
        let text = String::from_utf8(bytes).expect("UTF-8");
        let lines: Vec<&str> = text.split_terminator('\n').collect();
        let locs: Vec<&str> = taken.iter().map(|values| values.0.as_str()).collect();
        assert_eq!(lines, locs);
        return;
    }
    assert_eq!(read_document(&bytes, kind, xhtml), taken);
}

const CHILDREN: [&str; 4] = ["loc", "lastmod", "changefreq", "priority"];

/// The entries of a sitemap document, read with a namespace-aware parser that fails on
/// anything not well-formed; the root, the names, the namespaces and the children's order
/// are checked on the way.
fn read_document(bytes: &[u8], kind: Kind, xhtml: bool) -> Vec<Values> {
    let (root, entry) = match kind {
        Kind::Index => ("sitemapindex", "sitemap"),
        _ => ("urlset", "url"),
    };
    let show = || String::from_utf8_lossy(bytes).into_owned();
    let mut entries: Vec<Values> = Vec::new();
    let mut depth = 0;
    let mut text = String::new();
    let mut last_child = None;
    for event in EventReader::new(bytes) {
        let event = event.unwrap_or_else(|err| panic!("not well-formed: {err}\n{}", show()));
        match event {
            XmlEvent::StartElement {
                name,
                attributes,
                namespace,
            } => {
                depth += 1;
                let in_sitemap_ns = name.namespace.as_deref() == Some(SITEMAP_NS);
                match depth {
                    1 => {
                        assert!(in_sitemap_ns && name.local_name == root, "{}", show());
                        let declared = namespace.get("xhtml") == Some(XHTML_NS);
                        assert_eq!(declared, xhtml, "{}", show());
                    }
                    2 => {
                        assert!(in_sitemap_ns && name.local_name == entry, "{}", show());
                        entries.push(Default::default());
                        last_child = None;
                    }
                    3 if name.namespace.as_deref() == Some(XHTML_NS) => {
                        assert_eq!(name.local_name, "link");
                        let attr = |key: &str| {
                            let found = attributes.iter().find(|a| a.name.local_name == key);
                            found.map(|a| a.value.clone()).expect(key)
                        };
                        assert_eq!(attr("rel"), "alternate");
                        let current = entries.last_mut().unwrap();
                        current.4.push((attr("hreflang"), attr("href")));
                        last_child = Some(CHILDREN.len());
                    }
                    3 => {
                        let position = CHILDREN.iter().position(|c| *c == name.local_name);
                        assert!(in_sitemap_ns && position.is_some(), "{}", show());
                        assert!(position > last_child, "children out of order: {}", show());
                        last_child = position;
                        text.clear();
                    }
                    _ => panic!("nested too deep: {}", show()),
                }
            }
            XmlEvent::Characters(chunk) | XmlEvent::Whitespace(chunk) if depth == 3 => {
                text.push_str(&chunk);
            }
            XmlEvent::EndElement { name } => {
                if depth == 3 && name.namespace.as_deref() == Some(SITEMAP_NS) {
                    let current = entries.last_mut().unwrap();
                    let value = std::mem::take(&mut text);
                    match name.local_name.as_str() {
                        "loc" => current.0 = value,
                        "lastmod" => current.1 = Some(value),
                        "changefreq" => current.2 = Some(value),
                        _ => current.3 = Some(value),
                    }
                }
                depth -= 1;
            }
            _ => {}
        }
    }
    entries
}

/// A page's head says the same read from its file through a buffer of any size as parsed
/// from its bytes, and the same again when the whole page is read in one pass for its
/// content digest and its dates (the ways a run reads it); the digest is the same twice; any
/// declared date is one the schema takes; and what the head's verdict keeps for the sitemap
/// is strict enough to be written.
pub fn head(page: &[u8], buffer_len: usize, dir: &Path) {
    let parsed = head::parse(page);
    let path = dir.join("page.html");
    fs::write(&path, page).unwrap();
    // html5gum looks up to 7 bytes ahead, so its buffer must hold that much; a run's holds 16 KiB.
    let mut buffer = vec![0; buffer_len.clamp(64, 1 << 16)];
    let read = head::read(&path, &mut buffer).unwrap();
    assert_eq!(read, parsed, "read through a buffer of {}", buffer.len());
    let alone = Want {
        html: true,
        head: true,
        digest: false,
        dates: false,
        images: None,
        known: None,
    };
    let open = || fs::File::open(&path);
    let alone = Scanner::default().scan(&Settings::default(), open, page.len() as u64, alone);
    assert_eq!(
        alone.unwrap().head,
        Some(parsed.clone()),
        "the head read alone"
    );
    let rules = Settings {
        digest: Some(DigestRules::new(Mode::Content, Vec::new())),
        ..Settings::default()
    };
    let whole = |scanner: &mut Scanner| {
        let want = Want {
            html: true,
            head: true,
            digest: true,
            dates: true,
            images: None,
            known: None,
        };
        let open = || fs::File::open(&path);
        scanner.scan(&rules, open, page.len() as u64, want).unwrap()
    };
    let (once, twice) = (
        whole(&mut Scanner::default()),
        whole(&mut Scanner::default()),
    );
    if page.len() <= head::HEAD_CAP {
        assert_eq!(
            once.head.as_ref(),
            Some(&parsed),
            "the head read with the whole page"
        );
    }
    assert_eq!(once.digest, twice.digest);
    if let Some(date) = &once.declared {
        assert!(sitemapgen::w3c::is_w3c_date(date), "declared {date:?}");
    }
    let loc = "https://example.com/docs/page.html";
    images(&path, page.len() as u64, loc, once.digest);
    let base = ::url::Url::parse("https://example.com/docs/").unwrap();
    let (verdict, _) = verdict::judge(parsed, loc, &base).unwrap();
    if let Verdict::Keep { alternates, .. } = verdict {
        let alternates: Vec<(String, String)> = alternates
            .into_iter()
            .map(|Alternate { lang, href }| (lang, href))
            .collect();
        for (lang, href) in &alternates {
            assert!(
                !lang.is_empty() && lang.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'-'),
                "hreflang {lang:?}"
            );
            assert!(href.starts_with("http://") || href.starts_with("https://"));
        }
        let values = (loc.to_string(), None, None, None, alternates);
        assert!(writable(&values), "unwritable alternates {:?}", values.4);
        serializer(0, true, &[values]);
    }
}

/// The images of the page at `path` (whose URL is `loc`, and whose content digest alone is
/// `digest`): the same read for them alone, with the content digest or with the bytes'
/// digest, and the digest the same with them; distinct strict http(s) URLs on the allowed
/// hosts, at most 1,000, that the serializer writes.
fn images(path: &Path, len: u64, loc: &str, digest: Option<blake3::Hash>) {
    let base = BaseUrl::parse("https://example.com/docs/").unwrap();
    let cdn = parse_host("cdn.example.net").unwrap();
    let scan = |digest: Option<Mode>| {
        let settings = Settings {
            region: None,
            digest: digest.map(|mode| DigestRules::new(mode, Vec::new())),
            images: Some(ImageRules::new(&base, vec![cdn.clone()])),
        };
        let want = Want {
            html: true,
            head: true,
            digest: digest.is_some(),
            dates: true,
            images: Some(loc.to_string()),
            known: None,
        };
        let open = || fs::File::open(path);
        Scanner::default().scan(&settings, open, len, want).unwrap()
    };
    let alone = scan(None).images;
    let with_digest = scan(Some(Mode::Content));
    assert_eq!(with_digest.images, alone, "with the content digest");
    assert_eq!(with_digest.digest, digest, "the digest with the images");
    assert_eq!(
        scan(Some(Mode::Bytes)).images,
        alone,
        "with the bytes' digest"
    );
    assert!(alone.urls.len() <= 1000);
    let distinct: std::collections::HashSet<&String> = alone.urls.iter().collect();
    assert_eq!(distinct.len(), alone.urls.len(), "{:?}", alone.urls);
    for url in &alone.urls {
        let (path, query) = url.split_once('?').unwrap_or((url, ""));
        assert_strict_url(path);
        assert!(
            query
                .bytes()
                .all(|b| b.is_ascii_alphanumeric() || b"-._~!$&'()*+,;=%:@/?".contains(&b)),
            "{url:?}: query"
        );
        assert!(
            url.starts_with("https://example.com/")
                || url.starts_with("http://example.com/")
                || url.contains("://cdn.example.net/"),
            "{url:?}: host"
        );
        assert!(url.len() < 2048);
    }
    let entry = Entry {
        loc: loc.to_string(),
        images: alone.urls,
        ..Entry::default()
    };
    render(Kind::Urlset, &entry, &mut Vec::new()).expect("images the serializer writes");
}

/// Any bytes as a state file: read or refused, never a panic; a state that reads writes back
/// to one that reads the same. Returns whether it read.
pub fn state_file(bytes: &[u8]) -> bool {
    let rules = DigestRules::new(Mode::Bytes, Vec::new()).describe(None);
    let Ok(old) = state::parse(bytes, &rules) else {
        return false;
    };
    let records: HashMap<&str, Record> = old.records().collect();
    assert_eq!(records.len(), old.len());
    let again = written_state(records.iter().map(|(key, record)| (*key, record)), &rules);
    assert_eq!(again.records().collect::<HashMap<_, _>>(), records);
    true
}

/// The state that `records` write, read back.
fn written_state<'a>(
    records: impl Iterator<Item = (&'a str, &'a Record)>,
    rules: &str,
) -> state::OldState {
    let mut writer = state::Writer::new(Vec::new(), rules).unwrap();
    for (key, record) in records {
        writer.record(key, record).unwrap();
    }
    let out = writer.finish().unwrap();
    state::parse(out.as_slice(), rules).expect("a written state reads")
}

/// A page for `state_records`: path bytes, a date (year, month, day), digest, size, mtime.
pub type StatePage = (Vec<Vec<u8>>, Option<(u16, u8, u8)>, [u8; 32], u64, i64);

/// The state written for any pages reads back exactly, comparable under the same rules.
pub fn state_records(pages: &[StatePage], patterns: &[String]) {
    let Ok(ignore) = patterns
        .iter()
        .map(|p| regex::bytes::Regex::new(p))
        .collect::<Result<Vec<_>, _>>()
    else {
        return;
    };
    let rules = DigestRules::new(Mode::Bytes, ignore).describe(None);
    let mapping = Mapping {
        clean_urls: false,
        trailing_slash: true,
    };
    let mut records = HashMap::new();
    for (segments, date, digest, size, mtime) in pages {
        let components = components(segments);
        if components.is_empty() {
            continue;
        }
        let rel = PathBuf::from(OsStr::from_bytes(&components.join(&b'/')));
        let lastmod = date.map(|(year, month, day)| {
            let (year, month, day) = (year % 9999 + 1, month % 12 + 1, day % 28 + 1);
            format!("{year:04}-{month:02}-{day:02}")
        });
        let record = Record {
            lastmod,
            digest: blake3::Hash::from_bytes(*digest),
            stamp: Some(Stamp {
                size: *size,
                mtime: i128::from(*mtime),
                ctime: i128::from(*mtime) * 3,
                inode: *size / 2,
            }),
            streak: 0,
            fingerprint: (*size % 3 != 0).then_some((*size ^ mtime.unsigned_abs()) >> 4),
        };
        records.insert(mapping.page_path(&rel).path, record);
    }
    let read = written_state(records.iter().map(|(k, r)| (k.as_str(), r)), &rules);
    assert!(read.comparable);
    assert_eq!(read.len(), records.len());
    for (key, record) in &records {
        let (stamp, known) = read.seen(key).expect("a record of it");
        assert_eq!(stamp, record.stamp);
        assert_eq!(known.map(|known| known.fingerprint), record.fingerprint);
        assert_eq!(read.take(key), state::Take::Record(record.clone()), "{key}");
    }
}

/// Any config file under any command line: settings, or a usage error (`main` exits 2 for
/// any error of `request` but a help or version display) with a message. Where the same
/// command line makes settings under an empty config file, the error is the file's: it
/// names the file, and one of its keys (`key "max-urls"`) unless the file is no TOML.
pub fn config(toml: &str, args: &[String], dir: &Path) {
    let file = dir.join("sitemapgen.toml");
    let request = |text: &str| {
        fs::write(&file, text).unwrap();
        let mut argv: Vec<OsString> = vec!["sitemapgen".into(), "--config".into(), (&file).into()];
        argv.extend(args.iter().map(OsString::from));
        sitemapgen::request(argv)
    };
    let err = match request(toml) {
        Ok(Request::Run(settings) | Request::Explain(settings, _)) => {
            return assert_strict_url(&settings.decide.base.join(""));
        }
        Ok(Request::Submit(settings)) => return assert_strict_url(&settings.base.join("")),
        Ok(Request::GoogleSubmit(settings)) => return assert_strict_url(settings.sitemap.as_str()),
        Ok(Request::Completions(_)) => return,
        Err(err) => err,
    };
    let message = format!("{err:#}");
    assert!(!message.is_empty());
    if request("").is_err() {
        return;
    }
    let key = message
        .split("key \"")
        .nth(1)
        .and_then(|rest| rest.split('"').next());
    let key = key.filter(|key| !key.is_empty() && toml.contains(*key));
    assert!(
        message.starts_with(&format!("config file {}", file.display()))
            && (key.is_some() || message.contains("is not valid TOML")),
        "{message:?} names not the file and a key of {toml:?} (under {args:?})"
    );
}
