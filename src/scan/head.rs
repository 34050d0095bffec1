//! What a page's `<head>` says: noindex, a redirect, canonical URLs, hreflang alternates,
//! its language (`<html lang>`), as written (`decide::verdict` judges them), and whether it
//! has a title. Only the head is read: up to `</head>`, the body, or any start tag that cannot
//! be in a head; a page with no title is read on until the first text of its body, to tell an
//! app shell (no title, no text) from a page. A `<noscript>` in the head is read as markup (a
//! redirect stub may hide its refresh there); a `<template>` is inert.

use std::fs::File;
use std::io::{self, Read};
use std::path::Path;

use html5gum::{IoReader, Readable, Reader};

use super::tokens::{self, Events, Flow, Tag};
use crate::entry::Alternate;

/// Bytes read from a page at most: a head is over long before, unless a page has none.
pub const HEAD_CAP: usize = 1024 * 1024;

/// A refresh with at most this many seconds of delay is a redirect stub.
const MAX_REDIRECT_DELAY: f64 = 5.0;

#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub struct Head {
    /// `<meta name="robots|googlebot|bingbot">` with `noindex` or `none`.
    pub noindex: bool,
    /// The target of a `<meta http-equiv="refresh">` redirect, as written.
    pub redirect: Option<String>,
    /// Every `<link rel="canonical" href>`, as written, in order.
    pub canonicals: Vec<String>,
    /// `<link rel="alternate" hreflang href>`, as written.
    pub alternates: Vec<Alternate>,
    /// `<html lang>`, as written: the language of a page that names its alternates but not
    /// itself among them (VuePress).
    pub lang: Option<String>,
    /// A `<title>` with text.
    pub titled: bool,
    /// Text in the body, outside scripts, styles and templates (looked for only when the
    /// page has no title).
    pub body_text: bool,
    /// A `<script>` (looked for only when the page has no title).
    pub scripted: bool,
}

impl Head {
    /// An app shell (an SPA's fallback page, nuxt's `200.html`): no title and no text, only
    /// scripts that render it. A page with neither and no script (a `go-import` stub) is
    /// for machines, not a shell.
    pub fn is_shell(&self) -> bool {
        !self.titled && !self.body_text && self.scripted
    }
}

/// Elements a head may hold; any other start tag begins the body.
const HEAD_ELEMENTS: &[&[u8]] = &[
    b"html",
    b"head",
    b"meta",
    b"link",
    b"title",
    b"style",
    b"script",
    b"base",
    b"noscript",
];

/// Reads the head of the page at `path`. `buffer` is reused from page to page.
pub fn read(path: &Path, buffer: &mut [u8]) -> io::Result<Head> {
    let file = File::open(path)?.take(HEAD_CAP as u64);
    scan(IoReader::new_with_buffer(file, buffer))
}

/// The head of a page already read.
pub fn parse(page: &[u8]) -> Head {
    let cap = page.len().min(HEAD_CAP);
    scan(&page[..cap]).unwrap_or_else(|never| match never {})
}

fn scan<'a, R: Readable<'a>>(input: R) -> Result<Head, <R::Reader as Reader>::Error> {
    let mut reader = HeadOnly(Facts::default());
    tokens::read(input, &mut reader)?;
    Ok(reader.0.head)
}

/// What the head says, as its tags go by.
#[derive(Default)]
pub struct Facts {
    pub head: Head,
    /// Depth in `<template>`s, whose content is inert.
    templates: usize,
    /// Inside a `<title>`.
    title: bool,
    /// The head is over.
    ended: bool,
    /// Depth in the body's elements whose text is no reader's: scripts, styles, templates.
    raw: usize,
}

/// Body elements whose text a reader does not see.
const NO_TEXT: &[&[u8]] = &[b"script", b"style", b"template", b"noscript", b"textarea"];

/// Whether the head goes on after a tag.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Goes {
    On,
    /// The tag ended the head (`</head>`), or began the body (any element a head cannot hold).
    Ended,
}

impl Facts {
    pub fn wants_attributes(&self, name: &[u8]) -> bool {
        self.templates == 0 && matches!(name, b"meta" | b"link" | b"html")
    }

    pub fn start(&mut self, tag: &Tag) -> Goes {
        if self.ended {
            if NO_TEXT.contains(&tag.name) {
                self.raw += 1;
            }
            // Looked for as long as the body's text is.
            self.head.scripted |= tag.name == b"script" && self.wants_body();
            return Goes::Ended;
        }
        if tag.name == b"template" {
            self.templates += 1;
            return Goes::On;
        }
        if self.templates > 0 {
            return Goes::On;
        }
        match tag.name {
            b"meta" => read_meta(&mut self.head, tag),
            b"link" => read_link(&mut self.head, tag),
            b"title" => self.title = true,
            b"script" => self.head.scripted = true,
            // The first `<html>` is the element; a parser merges a later one's new attributes.
            b"html" if self.head.lang.is_none() => {
                self.head.lang = tag.text(b"lang").map(|lang| lang.into_owned());
            }
            name if HEAD_ELEMENTS.contains(&name) => {}
            // The body's first element: its text counts.
            _ => {
                self.ended = true;
                return self.start(tag);
            }
        }
        Goes::On
    }

    pub fn end(&mut self, name: &[u8]) -> Goes {
        if self.ended {
            if NO_TEXT.contains(&name) {
                self.raw = self.raw.saturating_sub(1);
            }
            return Goes::Ended;
        }
        match name {
            b"template" => self.templates = self.templates.saturating_sub(1),
            b"title" => self.title = false,
            b"head" if self.templates == 0 => {
                self.ended = true;
                return Goes::Ended;
            }
            _ => {}
        }
        Goes::On
    }

    /// Text: a title's, or the body's.
    pub fn text(&mut self, text: &[u8]) {
        let seen = !text.trim_ascii().is_empty();
        if self.ended {
            self.head.body_text |= self.raw == 0 && seen && !self.head.titled;
        } else if self.title && self.templates == 0 {
            self.head.titled |= seen;
        }
    }

    /// Whether the reading must go on past the head: a page with no title is read until
    /// the first text of its body.
    pub fn wants_body(&self) -> bool {
        !self.head.titled && !self.head.body_text
    }
}

/// Reads a head and stops.
struct HeadOnly(Facts);

impl Events for HeadOnly {
    fn wants_attributes(&mut self, name: &[u8]) -> bool {
        self.0.wants_attributes(name)
    }

    fn start(&mut self, tag: &Tag) -> Flow {
        match self.0.start(tag) {
            Goes::Ended if !self.0.wants_body() => Flow::Stop,
            _ => Flow::Continue,
        }
    }

    fn end(&mut self, name: &[u8]) -> Flow {
        match self.0.end(name) {
            Goes::Ended if !self.0.wants_body() => Flow::Stop,
            _ => Flow::Continue,
        }
    }

    fn text(&mut self, text: &[u8]) {
        self.0.text(text);
    }

    fn noscript_is_markup(&mut self) -> bool {
        !self.0.ended
    }
}

/// The crawlers whose robots metas count.
pub const BOTS: [&str; 3] = ["robots", "googlebot", "bingbot"];

/// A `<meta>`: robots directives, or a refresh. Its content (often a long description) is
/// looked at only for those.
fn read_meta(head: &mut Head, tag: &Tag) {
    let is = |name: &[u8], words: &[&str]| {
        tag.text(name)
            .is_some_and(|value| words.iter().any(|word| value.eq_ignore_ascii_case(word)))
    };
    let robots = is(b"name", &BOTS);
    if !robots && !is(b"http-equiv", &["refresh"]) {
        return;
    }
    let Some(content) = tag.text(b"content") else {
        return; // A robots meta without content says nothing.
    };
    if robots {
        let directives = content.split([',', ' ', '\t', '\n']).map(str::trim);
        if directives
            .into_iter()
            .any(|d| d.eq_ignore_ascii_case("noindex") || d.eq_ignore_ascii_case("none"))
        {
            head.noindex = true;
        }
    } else if let Some(target) = refresh_target(&content) {
        head.redirect = Some(target);
    }
}

/// The URL of `0; url=/new/` when the delay is short enough to make the page a redirect stub.
fn refresh_target(content: &str) -> Option<String> {
    let (delay, rest) = content.split_once([';', ','])?;
    let delay: f64 = delay.trim().parse().ok()?;
    if !(0.0..=MAX_REDIRECT_DELAY).contains(&delay) {
        return None;
    }
    let rest = rest.trim_start();
    let url = match rest.get(..4) {
        Some(prefix) if prefix.eq_ignore_ascii_case("url=") => &rest[4..],
        _ => rest,
    };
    let url = url.trim().trim_matches(['\'', '"']).trim();
    (!url.is_empty()).then(|| url.to_string())
}

/// A `<link>`: a canonical URL, or an hreflang alternate.
fn read_link(head: &mut Head, tag: &Tag) {
    let Some(rel) = tag.text(b"rel") else {
        return;
    };
    let has = |word: &str| {
        rel.split_ascii_whitespace()
            .any(|r| r.eq_ignore_ascii_case(word))
    };
    let canonical = has("canonical");
    if !canonical && !has("alternate") {
        return;
    }
    let Some(href) = tag.text(b"href") else {
        return;
    };
    let href = href.into_owned();
    if canonical {
        head.canonicals.push(href);
    } else if let Some(lang) = tag.text(b"hreflang").filter(|lang| !lang.is_empty()) {
        let lang = lang.into_owned();
        head.alternates.push(Alternate { lang, href });
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn head(html: impl AsRef<[u8]>) -> Head {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("page.html");
        std::fs::write(&path, html).unwrap();
        read(&path, &mut [0; 4096]).unwrap()
    }

    #[test]
    fn robots_noindex_in_any_spelling() {
        for page in [
            r#"<meta name="robots" content="noindex, follow">"#,
            r#"<META NAME='ROBOTS' CONTENT='NOINDEX'>"#,
            r#"<meta name=googlebot content="none">"#,
            r#"<meta name="bingbot" content="index,&#110;oindex">"#,
        ] {
            assert!(head(page).noindex, "{page}");
        }
        for page in [
            r#"<meta name="robots">"#,
            r#"<meta name="robots" content="index, follow">"#,
            r#"<meta name="description" content="noindex">"#,
            r#"<!-- <meta name="robots" content="noindex"> -->"#,
            r#"<script>document.write('<meta name="robots" content="noindex">')</script>"#,
            r#"<body><meta name="robots" content="noindex">"#,
        ] {
            assert!(!head(page).noindex, "{page}");
        }
    }

    #[test]
    fn a_quick_refresh_with_a_url_is_a_redirect() {
        assert_eq!(
            head(r#"<meta http-equiv="refresh" content="0; url=/new/">"#)
                .redirect
                .as_deref(),
            Some("/new/")
        );
        assert_eq!(
            head(r#"<meta http-equiv=Refresh content="3;URL='https://example.com/x'">"#)
                .redirect
                .as_deref(),
            Some("https://example.com/x")
        );
        for page in [
            r#"<meta http-equiv="refresh" content="30; url=/new/">"#,
            r#"<meta http-equiv="refresh" content="0">"#,
            r#"<meta http-equiv="refresh">"#,
        ] {
            assert_eq!(head(page).redirect, None, "{page}");
        }
    }

    #[test]
    fn canonical_and_alternates() {
        let page = head(
            "\u{feff}<!doctype html><html><head>\
             <link rel=\"canonical\" href=\" /a/ \">\
             <link rel=\"alternate\" hreflang=\"de\" href=\"/de/a/\">\
             <link rel=\"ALTERNATE\" HREFLANG=\"x-default\" href=\"/a/\">\
             <link rel=\"alternate\" type=\"application/rss+xml\" href=\"/feed.xml\">\
             </head><body><link rel=\"alternate\" hreflang=\"fr\" href=\"/fr/a/\">",
        );
        assert_eq!(page.canonicals, ["/a/"]);
        let alternate = |lang: &str, href: &str| Alternate {
            lang: lang.into(),
            href: href.into(),
        };
        assert_eq!(
            page.alternates,
            [alternate("de", "/de/a/"), alternate("x-default", "/a/")]
        );
    }

    #[test]
    fn a_page_with_no_title_is_read_to_its_text_and_scripts() {
        let shell = head(
            "<head><script src=/app.js></script></head><body><div id=app></div>\
             <noscript>Enable JavaScript</noscript><script>x</script></body>",
        );
        assert!(shell.is_shell(), "{shell:?}");
        let text = head("<head><script src=/a.js></script></head><body><div>Hello</div>");
        assert!(text.body_text && !text.is_shell());
        assert!(!head("<head><title> Home </title><script></script></head><body>").is_shell());
        assert!(!head("<head><title> </title></head><body><p>x</p>").titled);
        assert!(!head("<head><meta name=go-import content=x></head><body></body>").is_shell());
    }

    #[test]
    fn the_html_element_names_the_language() {
        assert_eq!(
            head("<!doctype html><HTML LANG=' en-US '><head>")
                .lang
                .as_deref(),
            Some("en-US")
        );
        assert_eq!(
            head("<html lang=zh-CN><html lang=fr>").lang.as_deref(),
            Some("zh-CN")
        );
        assert_eq!(head("<html><head><meta charset=utf-8>").lang, None);
        assert_eq!(head("<body><html lang=fr>").lang, None);
    }

    #[test]
    fn a_template_in_the_head_neither_ends_it_nor_counts() {
        let page = "<head><template><div><meta name=robots content=noindex></div></template>\
                    <link rel=canonical href=/x></head>";
        let head = head(page);
        assert!(!head.noindex, "a template's content is inert");
        assert_eq!(head.canonicals, ["/x"], "reading went on");
        assert!(
            self::head("<head><template><p></template><meta name=robots content=noindex>").noindex
        );
    }

    #[test]
    fn reading_stops_at_the_body_and_at_the_cap() {
        let huge_head = format!(
            "<head><style>{}</style><meta name=robots content=noindex></head>",
            "a{}".repeat(100_000)
        );
        assert!(head(&huge_head).noindex);
        let beyond_cap = format!(
            "<head><style>{}</style><meta name=robots content=noindex>",
            "a".repeat(HEAD_CAP)
        );
        assert!(!head(&beyond_cap).noindex);
        // No head: the body's text is read for (the page has no title), its metas are not.
        assert_eq!(
            head("<p>no head at all</p><meta name=robots content=noindex>"),
            Head {
                body_text: true,
                ..Head::default()
            }
        );
        assert!(head(b"\xe9\xff<meta name=robots content=noindex>").noindex);
    }
}
