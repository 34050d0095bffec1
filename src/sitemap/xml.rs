//! The sitemap documents, streamed through xml-rs one entry at a time: a `urlset` of `<url>`s,
//! or a `sitemapindex` of `<sitemap>`s; or the protocol's text format, a URL per line. Each knows its size before an entry is written, so the
//! split can keep every file within the protocol's byte limit.

use std::io::{self, Write};

use anyhow::{Result, anyhow};
use xml::escape::escape_str_attribute;
use xml::writer::{EmitterConfig, Error as EmitterError, EventWriter, XmlEvent};

use crate::entry::{Alternate, Entry};

pub const SITEMAP_NS: &str = "http://www.sitemaps.org/schemas/sitemap/0.9";
pub const XHTML_NS: &str = "http://www.w3.org/1999/xhtml";

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

pub struct Document<W: Write> {
    kind: Kind,
    out: Out<W>,
}

enum Out<W: Write> {
    Xml(EventWriter<Counting<W>>),
    Text(Counting<W>),
}

/// What `finish` writes: the root's end tag on its own line, and a final newline.
fn closing_len(kind: Kind) -> u64 {
    match kind {
        Kind::Text => 0,
        _ => ("\n</>\n".len() + kind.root().len()) as u64,
    }
}

impl<W: Write> Document<W> {
    /// `xhtml` declares the namespace of hreflang alternates on the root.
    pub fn new(kind: Kind, sink: W, xhtml: bool) -> Result<Self> {
        let sink = Counting {
            inner: sink,
            bytes: 0,
        };
        if kind == Kind::Text {
            return Ok(Document {
                kind,
                out: Out::Text(sink),
            });
        }
        // Escaping is done here, with the attribute rules, so that `'` and `"` become
        // entities too, as the protocol asks for `loc`. Without empty-element normalisation
        // xml-rs writes each tag whole at once, so the byte count is exact between entries.
        let mut config = EmitterConfig::new()
            .perform_indent(true)
            .normalize_empty_elements(false);
        config.perform_escaping = false;
        let mut xml = config.create_writer(sink);
        emit(
            &mut xml,
            XmlEvent::StartDocument {
                version: xml::common::XmlVersion::Version10,
                encoding: Some("UTF-8"),
                standalone: None,
            },
        )?;
        let mut root = XmlEvent::start_element(kind.root()).default_ns(SITEMAP_NS);
        if xhtml {
            root = root.ns("xhtml", XHTML_NS);
        }
        emit(&mut xml, root)?;
        Ok(Document {
            kind,
            out: Out::Xml(xml),
        })
    }

    fn bytes(&self) -> u64 {
        match &self.out {
            Out::Xml(xml) => xml.inner_ref().bytes,
            Out::Text(text) => text.bytes,
        }
    }

    /// Bytes `entry` takes in the document, exactly as `write` will emit it.
    pub fn entry_len(&self, entry: &Entry) -> u64 {
        if self.kind == Kind::Text {
            return entry.loc.len() as u64 + 1;
        }
        // "\n  <url>" … "\n  </url>", and "\n    <name>value</name>" per child.
        let tag = self.kind.entry().len();
        let children: usize = children(entry)
            .iter()
            .filter_map(|(name, value)| {
                Some(10 + 2 * name.len() + escape_str_attribute(value.as_ref()?).len())
            })
            .sum();
        // "\n    <xhtml:link rel=\"alternate\" hreflang=\"…\" href=\"…\"></xhtml:link>"
        let alternates: usize = entry
            .alternates
            .iter()
            .map(|Alternate { lang, href }| {
                66 + escape_str_attribute(lang).len() + escape_str_attribute(href).len()
            })
            .sum();
        (11 + 2 * tag + children + alternates) as u64
    }

    /// Whether an entry of `len` bytes still fits within the byte limit, closing included.
    pub fn fits(&self, len: u64) -> bool {
        self.bytes() + len + closing_len(self.kind) <= MAX_BYTES
    }

    /// Writes `entry`, or refuses it whole if a value holds a character that has no place in
    /// a sitemap (see `check_chars`): a document is never left broken by a value.
    pub fn write(&mut self, entry: &Entry) -> Result<()> {
        check_chars(entry)?;
        let before = self.bytes();
        let xml = match &mut self.out {
            Out::Xml(xml) => xml,
            Out::Text(text) => {
                text.write_all(entry.loc.as_bytes())?;
                return Ok(text.write_all(b"\n")?);
            }
        };
        emit(xml, XmlEvent::start_element(self.kind.entry()))?;
        for (name, value) in children(entry) {
            if let Some(value) = value {
                emit(xml, XmlEvent::start_element(name))?;
                emit(xml, XmlEvent::characters(&escape_str_attribute(value)))?;
                emit(xml, XmlEvent::end_element())?;
            }
        }
        for Alternate { lang, href } in &entry.alternates {
            let (lang, href) = (escape_str_attribute(lang), escape_str_attribute(href));
            let link = XmlEvent::start_element("xhtml:link")
                .attr("rel", "alternate")
                .attr("hreflang", &lang)
                .attr("href", &href);
            emit(xml, link)?;
            // Empty text keeps the end tag on the start tag's line.
            emit(xml, XmlEvent::characters(""))?;
            emit(xml, XmlEvent::end_element())?;
        }
        emit(xml, XmlEvent::end_element())?;
        debug_assert_eq!(self.bytes() - before, self.entry_len(entry));
        Ok(())
    }

    /// Closes the document and hands back the sink with the document's size in bytes.
    pub fn finish(self) -> Result<(W, u64)> {
        let before = self.bytes();
        let mut xml = match self.out {
            Out::Xml(xml) => xml,
            Out::Text(text) => return Ok((text.inner, text.bytes)),
        };
        emit(&mut xml, XmlEvent::end_element())?;
        let mut sink = xml.into_inner();
        sink.write_all(b"\n")?;
        debug_assert_eq!(sink.bytes - before, closing_len(self.kind));
        Ok((sink.inner, sink.bytes))
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
    for value in values.chain(alternates.map(String::as_str)) {
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

/// Keeps the I/O error itself in the chain, so that a closed pipe can be recognised.
fn emit<'a, W: Write>(xml: &mut EventWriter<W>, event: impl Into<XmlEvent<'a>>) -> Result<()> {
    xml.write(event).map_err(|err| match err {
        EmitterError::Io(io) => anyhow!(io),
        other => anyhow!(io::Error::other(other)),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn entry(loc: &str, lastmod: Option<&str>) -> Entry {
        Entry {
            loc: loc.into(),
            lastmod: lastmod.map(String::from),
            ..Entry::default()
        }
    }

    #[test]
    fn writes_children_in_protocol_order_and_escapes_loc() {
        let mut doc = Document::new(Kind::Urlset, Vec::new(), true).unwrap();
        doc.write(&Entry {
            loc: "https://example.com/it's&more".into(),
            lastmod: Some("2024-05-01".into()),
            changefreq: Some("daily".into()),
            priority: Some("0.8".into()),
            alternates: vec![Alternate {
                lang: "de".into(),
                href: "https://example.com/de/it's".into(),
            }],
        })
        .unwrap();
        doc.write(&entry("https://example.com/", None)).unwrap();
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
    fn a_value_with_a_control_character_is_refused_before_anything_is_written() {
        let mut doc = Document::new(Kind::Urlset, Vec::new(), false).unwrap();
        let before = doc.bytes();
        let err = doc.write(&entry("https://example.com/a\u{1}b", None));
        assert!(err.unwrap_err().to_string().contains("U+0001"));
        let err = doc.write(&Entry {
            alternates: vec![Alternate {
                lang: "de\t".into(),
                href: "https://example.com/".into(),
            }],
            ..entry("https://example.com/", None)
        });
        assert!(err.unwrap_err().to_string().contains("U+0009"));
        assert_eq!(doc.bytes(), before);
    }

    #[test]
    fn a_text_sitemap_is_a_url_per_line() {
        let mut doc = Document::new(Kind::Text, Vec::new(), false).unwrap();
        let url = entry("https://example.com/a&b", Some("2024-05-01"));
        assert_eq!(doc.entry_len(&url), 24);
        doc.write(&url).unwrap();
        let (bytes, len) = doc.finish().unwrap();
        assert_eq!(bytes, b"https://example.com/a&b\n");
        assert_eq!(len, 24);
    }

    #[test]
    fn an_index_lists_sitemaps_and_sizes_are_exact() {
        let mut doc = Document::new(Kind::Index, Vec::new(), false).unwrap();
        let shard = entry("https://example.com/sitemap-1.xml", Some("2024-05-01"));
        let len = doc.entry_len(&shard);
        let (empty, before) = Document::new(Kind::Index, Vec::new(), false)
            .unwrap()
            .finish()
            .unwrap();
        doc.write(&shard).unwrap();
        let (bytes, total) = doc.finish().unwrap();
        assert_eq!(total, before + len);
        assert_eq!(empty.len() as u64, before);
        let text = String::from_utf8(bytes).unwrap();
        assert!(text.contains(
            "<sitemapindex xmlns=\"http://www.sitemaps.org/schemas/sitemap/0.9\">\n  \
             <sitemap>\n    <loc>https://example.com/sitemap-1.xml</loc>\n    \
             <lastmod>2024-05-01</lastmod>\n  </sitemap>\n</sitemapindex>\n"
        ));
    }
}
