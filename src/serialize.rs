//! The sitemap document, streamed through xml-rs one `<url>` at a time.

use std::io::{self, Write};

use anyhow::{Result, anyhow};
use xml::escape::escape_str_attribute;
use xml::writer::{EmitterConfig, Error as EmitterError, EventWriter, XmlEvent};

pub const SITEMAP_NS: &str = "http://www.sitemaps.org/schemas/sitemap/0.9";

/// One `<url>`; `loc` is an encoded absolute URL, the rest already validated.
#[derive(Debug)]
pub struct UrlEntry<'a> {
    pub loc: &'a str,
    pub lastmod: Option<&'a str>,
    pub changefreq: Option<&'a str>,
    pub priority: Option<&'a str>,
}

pub struct UrlsetWriter<W: Write> {
    xml: EventWriter<W>,
}

impl<W: Write> UrlsetWriter<W> {
    pub fn new(sink: W) -> Result<Self> {
        // Escaping is done here, with the attribute rules, so that `'` and `"` become
        // entities too, as the protocol asks for `loc`.
        let mut config = EmitterConfig::new().perform_indent(true);
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
        emit(
            &mut xml,
            XmlEvent::start_element("urlset").default_ns(SITEMAP_NS),
        )?;
        Ok(UrlsetWriter { xml })
    }

    pub fn write(&mut self, entry: &UrlEntry) -> Result<()> {
        emit(&mut self.xml, XmlEvent::start_element("url"))?;
        let children = [
            ("loc", Some(entry.loc)),
            ("lastmod", entry.lastmod),
            ("changefreq", entry.changefreq),
            ("priority", entry.priority),
        ];
        for (name, value) in children {
            if let Some(value) = value {
                emit(&mut self.xml, XmlEvent::start_element(name))?;
                emit(
                    &mut self.xml,
                    XmlEvent::characters(&escape_str_attribute(value)),
                )?;
                emit(&mut self.xml, XmlEvent::end_element())?;
            }
        }
        emit(&mut self.xml, XmlEvent::end_element())
    }

    /// Closes the document and hands back the sink.
    pub fn finish(mut self) -> Result<W> {
        emit(&mut self.xml, XmlEvent::end_element())?;
        let mut sink = self.xml.into_inner();
        sink.write_all(b"\n")?;
        Ok(sink)
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

    #[test]
    fn writes_children_in_protocol_order_and_escapes_loc() {
        let mut doc = UrlsetWriter::new(Vec::new()).unwrap();
        doc.write(&UrlEntry {
            loc: "https://example.com/it's&more",
            lastmod: Some("2024-05-01"),
            changefreq: Some("daily"),
            priority: Some("0.8"),
        })
        .unwrap();
        doc.write(&UrlEntry {
            loc: "https://example.com/",
            lastmod: None,
            changefreq: None,
            priority: None,
        })
        .unwrap();
        let text = String::from_utf8(doc.finish().unwrap()).unwrap();
        assert_eq!(
            text,
            "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n\
             <urlset xmlns=\"http://www.sitemaps.org/schemas/sitemap/0.9\">\n  \
               <url>\n    \
                 <loc>https://example.com/it&apos;s&amp;more</loc>\n    \
                 <lastmod>2024-05-01</lastmod>\n    \
                 <changefreq>daily</changefreq>\n    \
                 <priority>0.8</priority>\n  \
               </url>\n  \
               <url>\n    \
                 <loc>https://example.com/</loc>\n  \
               </url>\n\
             </urlset>\n"
        );
    }
}
