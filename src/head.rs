//! What a page's `<head>` says about its place in a sitemap: noindex, a redirect, a canonical
//! URL, hreflang alternates. Only the head is read, with html5gum, a tokenizer that follows
//! the WHATWG rules (entities decoded, names lower-cased, broken markup tolerated).

use std::fs::File;
use std::io::{self, Read};
use std::path::Path;

use html5gum::{DefaultEmitter, IoReader, Readable, Reader, Token, Tokenizer};
use url::Url;

/// Bytes read from a page at most: a head is over long before, unless a page has none.
pub const HEAD_CAP: usize = 1024 * 1024;

/// A refresh with at most this many seconds of delay is a redirect stub.
pub const MAX_REDIRECT_DELAY: f64 = 5.0;

#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub struct Head {
    /// `<meta name="robots|googlebot|bingbot">` with `noindex` or `none`.
    pub noindex: bool,
    /// The target of a `<meta http-equiv="refresh">` redirect, as written.
    pub redirect: Option<String>,
    /// `<link rel="canonical" href>`, as written.
    pub canonical: Option<String>,
    /// `<link rel="alternate" hreflang href>`: (hreflang, href) as written.
    pub alternates: Vec<(String, String)>,
}

/// What a page's head means for its URL.
#[derive(Debug, PartialEq, Eq)]
pub enum Verdict {
    /// Listed, with its alternates resolved to absolute URLs. `canonical_form` is a canonical
    /// URL that differs from the page's own only in form (scheme, host, trailing slash,
    /// `.html`): the base URL or the slash options disagree with the site.
    Keep {
        alternates: Vec<(String, String)>,
        canonical_form: Option<String>,
    },
    Noindex,
    Redirect(String),
    /// Another page is the canonical one.
    Canonical(String),
}

impl Head {
    /// Judges the page whose URL is `page`; the second value lists what in the head was
    /// unusable and ignored.
    pub fn verdict(self, page: &Url) -> (Verdict, Vec<String>) {
        let mut ignored = Vec::new();
        let mut resolve = |what: &str, href: &str| match page.join(href) {
            Ok(url) if matches!(url.scheme(), "http" | "https") => Some(url),
            _ => {
                ignored.push(format!("{what} {href:?} is not an http(s) URL"));
                None
            }
        };
        if self.noindex {
            return (Verdict::Noindex, ignored);
        }
        if let Some(target) = &self.redirect {
            let target = resolve("the refresh target", target).map_or(target.clone(), String::from);
            return (Verdict::Redirect(target), ignored);
        }
        let mut canonical_form = None;
        if let Some(canonical) = self
            .canonical
            .as_deref()
            .and_then(|href| resolve("the canonical URL", href))
            && canonical.as_str() != page.as_str()
        {
            if !same_in_substance(&canonical, page) {
                return (Verdict::Canonical(canonical.to_string()), ignored);
            }
            canonical_form = Some(canonical.to_string());
        }
        let mut alternates = Vec::new();
        for (lang, href) in self.alternates {
            if let Some(url) = resolve(&format!("the {lang:?} alternate"), &href) {
                alternates.push((lang, url.to_string()));
            }
        }
        let (alternates, bad): (Vec<_>, Vec<_>) = alternates
            .into_iter()
            .partition(|(lang, _)| is_hreflang(lang));
        for (lang, href) in bad {
            ignored.push(format!(
                "the alternate {href} has hreflang {lang:?}, not a language tag"
            ));
        }
        // Language tags are case-insensitive: `EN` and `en` are one language, listed once.
        let mut unique: Vec<(String, String)> = Vec::with_capacity(alternates.len());
        for (lang, href) in alternates {
            match unique
                .iter()
                .find(|(seen, _)| seen.eq_ignore_ascii_case(&lang))
            {
                Some((_, first)) if *first == href => {}
                Some((seen, first)) => ignored.push(format!(
                    "the {lang:?} alternate {href} repeats the {seen:?} alternate {first}"
                )),
                None => unique.push((lang, href)),
            }
        }
        let alternates = unique;
        (
            Verdict::Keep {
                alternates,
                canonical_form,
            },
            ignored,
        )
    }
}

/// Whether two URLs name the same page but for scheme, host, a trailing slash, an index
/// file or an `.html` extension.
fn same_in_substance(a: &Url, b: &Url) -> bool {
    fn substance(url: &Url) -> (&str, Option<&str>) {
        let mut path = url.path();
        for suffix in ["index.html", "index.htm"] {
            path = path.strip_suffix(suffix).unwrap_or(path);
        }
        for suffix in [".html", ".htm", "/"] {
            path = path.strip_suffix(suffix).unwrap_or(path);
        }
        (path, url.query())
    }
    substance(a) == substance(b)
}

/// `en`, `en-GB`, `zh-Hant-TW`, `x-default`: letters, digits and hyphens.
fn is_hreflang(lang: &str) -> bool {
    !lang.is_empty()
        && lang.len() <= 35
        && lang.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'-')
        && !lang.starts_with('-')
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

/// The head of a page already read (for --state, which digests every byte).
pub fn parse(page: &[u8]) -> Head {
    let cap = page.len().min(HEAD_CAP);
    scan(&page[..cap]).unwrap_or_else(|never| match never {})
}

fn scan<'a, R: Readable<'a>>(input: R) -> Result<Head, <R::Reader as Reader>::Error> {
    let mut emitter = DefaultEmitter::default();
    // Script, style and title bodies are text, not tags, as a browser reads them.
    emitter.naively_switch_states(true);
    let tokens = Tokenizer::new_with_emitter(input, emitter);
    let mut head = Head::default();
    // A template's content is inert: not part of the head, and no end of it either.
    let mut templates = 0usize;
    for token in tokens {
        match token? {
            Token::StartTag(tag) if tag.name.as_slice() == b"template" => templates += 1,
            Token::EndTag(tag) if tag.name.as_slice() == b"template" => {
                templates = templates.saturating_sub(1)
            }
            _ if templates > 0 => {}
            Token::StartTag(tag) => {
                let attr = |name: &str| {
                    tag.attributes
                        .get(name.as_bytes())
                        .map(|value| String::from_utf8_lossy(&value.value).trim().to_string())
                };
                match tag.name.as_slice() {
                    b"meta" => {
                        read_meta(&mut head, attr("name"), attr("http-equiv"), attr("content"))
                    }
                    b"link" => read_link(&mut head, attr("rel"), attr("hreflang"), attr("href")),
                    name if HEAD_ELEMENTS.contains(&name) => {}
                    _ => break,
                }
            }
            Token::EndTag(tag) if tag.name.as_slice() == b"head" => break,
            _ => {}
        }
    }
    Ok(head)
}

fn read_meta(
    head: &mut Head,
    name: Option<String>,
    http_equiv: Option<String>,
    content: Option<String>,
) {
    let Some(content) = content else {
        return; // A robots meta without content says nothing.
    };
    let is = |value: &Option<String>, word: &str| {
        value
            .as_deref()
            .is_some_and(|v| v.eq_ignore_ascii_case(word))
    };
    if ["robots", "googlebot", "bingbot"]
        .iter()
        .any(|bot| is(&name, bot))
    {
        let directives = content.split([',', ' ', '\t', '\n']).map(str::trim);
        if directives
            .into_iter()
            .any(|d| d.eq_ignore_ascii_case("noindex") || d.eq_ignore_ascii_case("none"))
        {
            head.noindex = true;
        }
    } else if is(&http_equiv, "refresh")
        && let Some(target) = refresh_target(&content)
    {
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

fn read_link(head: &mut Head, rel: Option<String>, hreflang: Option<String>, href: Option<String>) {
    let (Some(rel), Some(href)) = (rel, href) else {
        return;
    };
    let has = |word: &str| {
        rel.split_ascii_whitespace()
            .any(|r| r.eq_ignore_ascii_case(word))
    };
    if has("canonical") && head.canonical.is_none() {
        head.canonical = Some(href);
    } else if has("alternate")
        && let Some(lang) = hreflang.filter(|lang| !lang.is_empty())
    {
        head.alternates.push((lang, href));
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
        assert_eq!(page.canonical.as_deref(), Some("/a/"));
        assert_eq!(
            page.alternates,
            [
                ("de".into(), "/de/a/".into()),
                ("x-default".into(), "/a/".into())
            ]
        );
    }

    fn verdict(html: &str) -> (Verdict, Vec<String>) {
        head(html).verdict(&Url::parse("https://example.com/docs/a/").unwrap())
    }

    #[test]
    fn verdicts() {
        let keep = |alternates: Vec<(&str, &str)>, form: Option<&str>| Verdict::Keep {
            alternates: alternates
                .into_iter()
                .map(|(l, h)| (l.into(), h.into()))
                .collect(),
            canonical_form: form.map(String::from),
        };
        let cases = [
            ("<link rel=canonical href=/docs/a/>", keep(vec![], None)),
            (
                "<link rel=canonical href=https://example.com/docs/a/>",
                keep(vec![], None),
            ),
            (
                "<link rel=canonical href=/docs/b/>",
                Verdict::Canonical("https://example.com/docs/b/".into()),
            ),
            (
                "<link rel=canonical href=http://www.example.com/docs/a>",
                keep(vec![], Some("http://www.example.com/docs/a")),
            ),
            (
                "<link rel=canonical href=../a.html>",
                keep(vec![], Some("https://example.com/docs/a.html")),
            ),
            (
                "<meta http-equiv=refresh content='0;url=../b/'>",
                Verdict::Redirect("https://example.com/docs/b/".into()),
            ),
            (
                "<meta name=robots content=noindex><link rel=canonical href=/x>",
                Verdict::Noindex,
            ),
            (
                "<link rel=alternate hreflang=de href=../../de/a/><link rel=alternate hreflang=x-default href=.>",
                keep(
                    vec![
                        ("de", "https://example.com/de/a/"),
                        ("x-default", "https://example.com/docs/a/"),
                    ],
                    None,
                ),
            ),
        ];
        for (page, expected) in cases {
            assert_eq!(verdict(page).0, expected, "{page}");
        }
        let (kept, ignored) = verdict(
            "<link rel=alternate hreflang='e n' href=/x><link rel=alternate hreflang=fr href='mailto:a@b'>",
        );
        assert_eq!(kept, keep(vec![], None));
        assert_eq!(ignored.len(), 2, "{ignored:?}");
    }

    #[test]
    fn a_template_in_the_head_neither_ends_it_nor_counts() {
        let page = "<head><template><div><meta name=robots content=noindex></div></template>\
                    <link rel=canonical href=/x></head>";
        let head = head(page);
        assert!(!head.noindex, "a template's content is inert");
        assert_eq!(head.canonical.as_deref(), Some("/x"), "reading went on");
        assert!(
            self::head("<head><template><p></template><meta name=robots content=noindex>").noindex
        );
    }

    #[test]
    fn an_alternate_language_is_listed_once_in_any_case() {
        let (verdict, ignored) = verdict(
            "<link rel=alternate hreflang=de href=/de/><link rel=alternate hreflang=de href=/de/>\
             <link rel=alternate hreflang=EN href=/en/><link rel=alternate hreflang=en href=/en/>\
             <link rel=alternate hreflang=fr href=/fr/><link rel=alternate hreflang=FR href=/fr2/>",
        );
        let Verdict::Keep { alternates, .. } = verdict else {
            panic!("{verdict:?}");
        };
        assert_eq!(
            alternates,
            [
                ("de".into(), "https://example.com/de/".into()),
                ("EN".into(), "https://example.com/en/".into()),
                ("fr".into(), "https://example.com/fr/".into()),
            ]
        );
        assert_eq!(ignored.len(), 1, "{ignored:?}");
        assert!(ignored[0].contains("/fr2/"), "{ignored:?}");
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
        assert_eq!(
            head("<p>no head at all</p><meta name=robots content=noindex>"),
            Head::default()
        );
        assert!(head(b"\xe9\xff<meta name=robots content=noindex>").noindex);
    }
}
