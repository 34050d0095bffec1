//! The sitemap documents: a `urlset` of `<url>`s, or a `sitemapindex` of `<sitemap>`s; or
//! the protocol's text format, a URL per line. The markup is fixed, so it is written as it
//! is; every value in it is escaped by xml-rs. An entry is rendered before it is written, so
//! the split knows its size and keeps every file within the protocol's byte limit.

use std::borrow::Cow;
use std::io::{self, Write};

use anyhow::{Result, anyhow};
use xml::escape::escape_str_attribute;

use crate::entry::{Alternate, Entry};

pub use crate::outputs::{GROUP_MARK, IMAGE_NS, SITEMAP_NS, XHTML_NS};

/// The protocol's limits for one file, uncompressed.
pub const MAX_ENTRIES: usize = 50_000;
pub const MAX_BYTES: u64 = 52_428_800;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    Urlset,
    Index,
    /// One URL per line: no root, no entry elements, no dates.
    Text,
}

impl Kind {
    fn root(self) -> &'static str {
        match self {
            Kind::Urlset => "urlset",
            Kind::Index => "sitemapindex",
            Kind::Text => "",
        }
    }

    fn entry(self) -> &'static str {
        match self {
            Kind::Urlset => "url",
            Kind::Index => "sitemap",
            Kind::Text => "",
        }
    }
}

/// One entry's children, in protocol order.
fn children(entry: &Entry) -> [(&'static str, Option<&str>); 4] {
    [
        ("loc", Some(entry.loc.as_str())),
        ("lastmod", entry.lastmod.as_deref()),
        ("changefreq", entry.changefreq.as_deref()),
        ("priority", entry.priority.as_deref()),
    ]
}

/// Renders `entry` as the document of `kind` holds it, into `out` (emptied first), or
/// refuses it if a value holds a character that has no place in a sitemap (see
/// `check_chars`). Values are escaped with the attribute rules, so that `'` and `"` become
/// entities too, as the protocol asks for `loc`.
pub fn render(kind: Kind, entry: &Entry, out: &mut Vec<u8>) -> Result<()> {
    check_chars(entry)?;
    out.clear();
    if kind == Kind::Text {
        out.extend_from_slice(entry.loc.as_bytes());
        out.push(b'\n');
        return Ok(());
    }
    let tag = kind.entry();
    let text = |out: &mut Vec<u8>, parts: &[&str]| {
        for part in parts {
            out.extend_from_slice(part.as_bytes());
        }
    };
    text(out, &["\n  <", tag, ">"]);
    for (name, value) in children(entry) {
        if let Some(value) = value {
            let value = escape(value);
            text(out, &["\n    <", name, ">", &value, "</", name, ">"]);
        }
    }
    for Alternate { lang, href } in &entry.alternates {
        let (lang, href) = (escape(lang), escape(href));
        text(
            out,
            &[
                "\n    <xhtml:link rel=\"alternate\" hreflang=\"",
                &lang,
                "\" href=\"",
                &href,
                "\"></xhtml:link>",
            ],
        );
    }
    for image in &entry.images {
        let image = escape(image);
        text(
            out,
            &[
                "\n    <image:image><image:loc>",
                &image,
                "</image:loc></image:image>",
            ],
        );
    }
    text(out, &["\n  </", tag, ">"]);
    Ok(())
}

/// `value` escaped by xml-rs with the attribute rules; a value without any of the bytes they
/// replace (most are) as it is, without xml-rs's slower scan.
fn escape(value: &str) -> Cow<'_, str> {
    if value
        .bytes()
        .any(|byte| matches!(byte, b'<' | b'>' | b'"' | b'\'' | b'&' | b'\n' | b'\r'))
    {
        escape_str_attribute(value)
    } else {
        Cow::Borrowed(value)
    }
}

/// The extensions whose namespaces a urlset declares on its root: each only when some URL of
/// the sitemap uses it.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Extensions {
    /// hreflang alternates, `xhtml:link`.
    pub xhtml: bool,
    /// Google's image extension, `image:image`.
    pub image: bool,
}

pub struct Document<W: Write> {
    kind: Kind,
    out: Counting<W>,
}

/// What `finish` writes: the root's end tag on its own line, and a final newline.
fn closing_len(kind: Kind) -> u64 {
    match kind {
        Kind::Text => 0,
        _ => ("\n</>\n".len() + kind.root().len()) as u64,
    }
}

impl<W: Write> Document<W> {
    /// `extensions` names the namespaces to declare on the root; `stylesheet` is the href
    /// of an XSL stylesheet that browsers show the document through; `group` marks a
    /// group's sitemap as ours.
    pub fn new(
        kind: Kind,
        sink: W,
        extensions: Extensions,
        stylesheet: Option<&str>,
        group: bool,
    ) -> Result<Self> {
        let mut out = Counting {
            inner: sink,
            bytes: 0,
        };
        if kind != Kind::Text {
            out.write_all(b"<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n")?;
            if let Some(href) = stylesheet {
                writeln!(
                    out,
                    "<?xml-stylesheet type=\"text/xsl\" href=\"{}\"?>",
                    escape_str_attribute(href)
                )?;
            }
            if group {
                writeln!(out, "{GROUP_MARK}")?;
            }
            write!(out, "<{} xmlns=\"{SITEMAP_NS}\"", kind.root())?;
            if extensions.xhtml {
                write!(out, " xmlns:xhtml=\"{XHTML_NS}\"")?;
            }
            if extensions.image {
                write!(out, " xmlns:image=\"{IMAGE_NS}\"")?;
            }
            out.write_all(b">")?;
        }
        Ok(Document { kind, out })
    }

    pub fn kind(&self) -> Kind {
        self.kind
    }

    /// Whether an entry of `len` bytes still fits within the byte limit, closing included.
    pub fn fits(&self, len: usize) -> bool {
        self.out.bytes + len as u64 + closing_len(self.kind) <= MAX_BYTES
    }

    /// Writes an entry `render` made for this kind of document.
    pub fn write(&mut self, rendered: &[u8]) -> io::Result<()> {
        self.out.write_all(rendered)
    }

    /// Closes the document and hands back the sink with the document's size in bytes.
    pub fn finish(mut self) -> Result<(W, u64)> {
        if self.kind != Kind::Text {
            write!(self.out, "\n</{}>\n", self.kind.root())?;
        }
        Ok((self.out.inner, self.out.bytes))
    }
}

/// Refuses control characters (which XML 1.0 cannot carry, or which a parser would turn into
/// other whitespace) and the non-characters U+FFFE and U+FFFF. No URL, date, word or number
/// of a sitemap holds one: the mapping percent-encodes them, and the other values are checked
/// where they are made; this is the last line.
fn check_chars(entry: &Entry) -> Result<()> {
    let alternates = entry
        .alternates
        .iter()
        .flat_map(|Alternate { lang, href }| [lang, href]);
    let values = children(entry).into_iter().filter_map(|(_, value)| value);
    let images = entry.images.iter().map(String::as_str);
    for value in values.chain(alternates.map(String::as_str)).chain(images) {
        // Printable ASCII, the common case, holds none of them.
        if value.bytes().all(|byte| matches!(byte, b' '..=b'~')) {
            continue;
        }
        if let Some(c) = value
            .chars()
            .find(|&c| c.is_control() || c == '\u{FFFE}' || c == '\u{FFFF}')
        {
            return Err(anyhow!(
                "cannot write {value:?} into a sitemap: it holds the character U+{:04X}",
                u32::from(c)
            ));
        }
    }
    Ok(())
}

/// Counts what passes through: the document's size, uncompressed.
struct Counting<W> {
    inner: W,
    bytes: u64,
}

impl<W: Write> Write for Counting<W> {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        let written = self.inner.write(buf)?;
        self.bytes += written as u64;
        Ok(written)
    }

    fn flush(&mut self) -> io::Result<()> {
        self.inner.flush()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn put(doc: &mut Document<Vec<u8>>, entry: &Entry) -> Result<usize> {
        let mut rendered = Vec::new();
        render(doc.kind(), entry, &mut rendered)?;
        doc.write(&rendered)?;
        Ok(rendered.len())
    }

    fn entry(loc: &str, lastmod: Option<&str>) -> Entry {
        Entry {
            loc: loc.into(),
            lastmod: lastmod.map(String::from),
            ..Entry::default()
        }
    }

    const XHTML: Extensions = Extensions {
        xhtml: true,
        image: false,
    };

    proptest::proptest! {
        #[test]
        fn values_are_escaped_as_xml_rs_escapes_them(value in "[a<>\"'&\n\r é]*") {
            proptest::prop_assert_eq!(escape(&value), escape_str_attribute(&value));
        }
    }

    #[test]
    fn writes_children_in_protocol_order_and_escapes_loc() {
        let mut doc = Document::new(Kind::Urlset, Vec::new(), XHTML, None, false).unwrap();
        put(
            &mut doc,
            &Entry {
                loc: "https://example.com/it's&more".into(),
                lastmod: Some("2024-05-01".into()),
                changefreq: Some("daily".into()),
                priority: Some("0.8".into()),
                alternates: vec![Alternate {
                    lang: "de".into(),
                    href: "https://example.com/de/it's".into(),
                }],
                images: Vec::new(),
                group: Default::default(),
            },
        )
        .unwrap();
        put(&mut doc, &entry("https://example.com/", None)).unwrap();
        let (bytes, len) = doc.finish().unwrap();
        let text = String::from_utf8(bytes).unwrap();
        assert_eq!(len, text.len() as u64);
        assert_eq!(
            text,
            "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n\
             <urlset xmlns=\"http://www.sitemaps.org/schemas/sitemap/0.9\" xmlns:xhtml=\"http://www.w3.org/1999/xhtml\">\n  \
               <url>\n    \
                 <loc>https://example.com/it&apos;s&amp;more</loc>\n    \
                 <lastmod>2024-05-01</lastmod>\n    \
                 <changefreq>daily</changefreq>\n    \
                 <priority>0.8</priority>\n    \
                 <xhtml:link rel=\"alternate\" hreflang=\"de\" href=\"https://example.com/de/it&apos;s\"></xhtml:link>\n  \
               </url>\n  \
               <url>\n    \
                 <loc>https://example.com/</loc>\n  \
               </url>\n\
             </urlset>\n"
        );
    }

    #[test]
    fn images_follow_the_alternates_under_their_namespace() {
        let extensions = Extensions {
            xhtml: false,
            image: true,
        };
        let mut doc = Document::new(Kind::Urlset, Vec::new(), extensions, None, false).unwrap();
        let images = vec![
            "https://example.com/a&b.png".to_string(),
            "https://cdn.example.net/it's.png".to_string(),
        ];
        let len = put(
            &mut doc,
            &Entry {
                images,
                ..entry("https://example.com/", None)
            },
        )
        .unwrap();
        let (bytes, total) = doc.finish().unwrap();
        let text = String::from_utf8(bytes).unwrap();
        assert_eq!(
            text,
            "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n\
             <urlset xmlns=\"http://www.sitemaps.org/schemas/sitemap/0.9\" xmlns:image=\"http://www.google.com/schemas/sitemap-image/1.1\">\n  \
               <url>\n    \
                 <loc>https://example.com/</loc>\n    \
                 <image:image><image:loc>https://example.com/a&amp;b.png</image:loc></image:image>\n    \
                 <image:image><image:loc>https://cdn.example.net/it&apos;s.png</image:loc></image:image>\n  \
               </url>\n\
             </urlset>\n"
        );
        assert_eq!(total, text.len() as u64);
        assert!(len > 0);
        let mut out = Vec::new();
        let refused = render(
            Kind::Urlset,
            &Entry {
                images: vec!["https://example.com/a\u{7}.png".into()],
                ..entry("https://example.com/", None)
            },
            &mut out,
        );
        assert!(refused.unwrap_err().to_string().contains("U+0007"));
    }

    #[test]
    fn a_value_with_a_control_character_is_refused_before_anything_is_written() {
        let mut doc =
            Document::new(Kind::Urlset, Vec::new(), Extensions::default(), None, false).unwrap();
        let before = doc.out.bytes;
        let err = put(&mut doc, &entry("https://example.com/a\u{1}b", None));
        assert!(err.unwrap_err().to_string().contains("U+0001"));
        let err = put(
            &mut doc,
            &Entry {
                alternates: vec![Alternate {
                    lang: "de\t".into(),
                    href: "https://example.com/".into(),
                }],
                ..entry("https://example.com/", None)
            },
        );
        assert!(err.unwrap_err().to_string().contains("U+0009"));
        assert_eq!(doc.out.bytes, before);
    }

    #[test]
    fn a_groups_sitemap_carries_our_mark_after_the_stylesheet() {
        let doc = Document::new(
            Kind::Urlset,
            Vec::new(),
            Extensions::default(),
            Some("/s.xsl"),
            true,
        );
        let (bytes, _) = doc.unwrap().finish().unwrap();
        assert_eq!(
            String::from_utf8(bytes).unwrap(),
            "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n\
             <?xml-stylesheet type=\"text/xsl\" href=\"/s.xsl\"?>\n\
             <!-- sitemapgen group sitemap -->\n\
             <urlset xmlns=\"http://www.sitemaps.org/schemas/sitemap/0.9\">\n</urlset>\n"
        );
    }

    #[test]
    fn a_text_sitemap_is_a_url_per_line() {
        let mut doc =
            Document::new(Kind::Text, Vec::new(), Extensions::default(), None, false).unwrap();
        let url = entry("https://example.com/a&b", Some("2024-05-01"));
        assert_eq!(put(&mut doc, &url).unwrap(), 24);
        let (bytes, len) = doc.finish().unwrap();
        assert_eq!(bytes, b"https://example.com/a&b\n");
        assert_eq!(len, 24);
    }

    #[test]
    fn an_index_lists_sitemaps_and_sizes_are_exact() {
        let mut doc =
            Document::new(Kind::Index, Vec::new(), Extensions::default(), None, false).unwrap();
        let shard = entry("https://example.com/sitemap-1.xml", Some("2024-05-01"));
        let (empty, before) =
            Document::new(Kind::Index, Vec::new(), Extensions::default(), None, false)
                .unwrap()
                .finish()
                .unwrap();
        let len = put(&mut doc, &shard).unwrap();
        let (bytes, total) = doc.finish().unwrap();
        assert_eq!(total, before + len as u64);
        assert_eq!(empty.len() as u64, before);
        let text = String::from_utf8(bytes).unwrap();
        assert!(text.contains(
            "<sitemapindex xmlns=\"http://www.sitemaps.org/schemas/sitemap/0.9\">\n  \
             <sitemap>\n    <loc>https://example.com/sitemap-1.xml</loc>\n    \
             <lastmod>2024-05-01</lastmod>\n  </sitemap>\n</sitemapindex>\n"
        ));
    }
}
