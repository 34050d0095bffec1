//! A page's images for `--images`, found in its one pass: the sources of the `<img>` and
//! `<picture>` elements of its main region (the region of its content digest: see
//! `content/`, which says where each tag sits) and its `og:image`s. Each is resolved against
//! the page's URL (or its `<base href>`) and written as the sitemap writes URLs.
//!
//! Of an `<img>`: its `src`, and the largest candidate of its `srcset`; of a `<source>` (in a
//! `<picture>`), the largest candidate of its `srcset`. Left out: what is not http(s)
//! (`data:` URIs), images on hosts other than the base URL's and `--image-host`'s, tracking
//! pixels (`width` and `height` of at most 1), images whose file an exclude glob leaves out,
//! URLs of 2,048 characters or more. An image named twice is listed once, where first named;
//! past `MAX_IMAGES`, the rest are only noted, so what a page holds stays bounded.

use std::borrow::Cow;
use std::collections::HashSet;
use std::fmt;
use std::path::Path;

use anyhow::{Result, bail};
use url::Url;

use super::tokens::Tag;
use crate::io::native;
use crate::url::{BaseUrl, MAX_LOC_LEN, strict_url};

/// Google reads at most this many images of a URL.
pub const MAX_IMAGES: usize = 1000;

/// Whether a file under DIR, by its path relative to DIR, is left out by the exclude globs.
type Excluded = dyn Fn(&Path) -> bool + Send + Sync;

/// What `--images` lists, the same for every page.
pub struct ImageRules {
    /// The base URL, as the sitemap writes it.
    base: String,
    /// The hosts whose images are listed: the base URL's, then `--image-host`'s.
    hosts: Vec<String>,
    /// Whether the exclude globs leave out a file under DIR (by its path relative to DIR):
    /// an image whose file they leave out is left out too.
    excludes: Option<Box<Excluded>>,
}

impl fmt::Debug for ImageRules {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ImageRules")
            .field("base", &self.base)
            .field("hosts", &self.hosts)
            .field("excludes", &self.excludes.is_some())
            .finish()
    }
}

impl ImageRules {
    /// `hosts` are `--image-host`'s, each as `parse_host` made it.
    pub fn new(base: &BaseUrl, hosts: Vec<String>) -> ImageRules {
        let base = base.join("");
        let own = Url::parse(&base)
            .ok()
            .and_then(|url| url.host_str().map(String::from));
        ImageRules {
            hosts: own.into_iter().chain(hosts).collect(),
            base,
            excludes: None,
        }
    }

    /// Leaves out images whose file `excludes` leaves out.
    pub(crate) fn excluding(
        self,
        excludes: impl Fn(&Path) -> bool + Send + Sync + 'static,
    ) -> ImageRules {
        ImageRules {
            excludes: Some(Box::new(excludes)),
            ..self
        }
    }

    /// Whether the image at `url` (strict, without fragment) is a file under DIR that the
    /// exclude globs leave out.
    fn excluded(&self, url: &str) -> bool {
        let Some(excludes) = &self.excludes else {
            return false;
        };
        let Some(path) = url.strip_prefix(self.base.as_str()) else {
            return false;
        };
        let path = path.split_once('?').map_or(path, |(path, _)| path);
        let bytes: Vec<u8> = percent_encoding::percent_decode_str(path).collect();
        excludes(Path::new(native::os_str(&bytes)))
    }
}

/// A host name for `--image-host`: `cdn.example.com`, as the URL parser writes it (lower
/// case, punycode).
pub fn parse_host(text: &str) -> Result<String> {
    let host = match text.contains(['/', ':', '@', '?', '#', '\\', ' ']) {
        true => None,
        false => Url::parse(&format!("https://{text}/"))
            .ok()
            .and_then(|url| url.host_str().map(String::from)),
    };
    match host {
        Some(host)
            if !host.is_empty()
                && host
                    .bytes()
                    .all(|b| b.is_ascii_alphanumeric() || b"-._".contains(&b)) =>
        {
            Ok(host)
        }
        _ => bail!(
            "--image-host {text:?} is not a host name (the host alone, as in cdn.example.com)"
        ),
    }
}

/// The images of a page, as its tags go by.
pub struct Images<'r> {
    rules: &'r ImageRules,
    /// What relative URLs are resolved against: the page's URL, or its first `<base href>`.
    base: Option<Url>,
    base_given: bool,
    og: Found,
    /// In the main region, and in the body (for a page without a main region).
    main: Found,
    body: Found,
}

/// Distinct URLs in the order first seen, at most `MAX_IMAGES`.
#[derive(Default)]
struct Found {
    urls: Vec<String>,
    seen: HashSet<String>,
    /// More were seen than are kept.
    more: bool,
}

impl Found {
    fn add(&mut self, url: &str) {
        if self.seen.contains(url) {
            return;
        }
        if self.urls.len() == MAX_IMAGES {
            self.more = true;
            return;
        }
        self.seen.insert(url.to_string());
        self.urls.push(url.to_string());
    }
}

/// A page's images: the URLs, and whether it named more than are kept.
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub struct PageImages {
    pub urls: Vec<String>,
    pub more: bool,
}

impl<'r> Images<'r> {
    /// The images of the page at `page`, its URL (where its relative URLs point from).
    pub fn new(rules: &'r ImageRules, page: &str) -> Images<'r> {
        Images {
            rules,
            base: Url::parse(page).ok(),
            base_given: false,
            og: Found::default(),
            main: Found::default(),
            body: Found::default(),
        }
    }

    /// A `<base href>`: the first one counts, if it is an http(s) URL.
    pub fn base(&mut self, href: &[u8]) {
        if std::mem::replace(&mut self.base_given, true) {
            return;
        }
        if let Some(base) = self.join(href) {
            self.base = Some(base);
        }
    }

    /// An `og:image` (or `og:image` named by `name`).
    pub fn og_image(&mut self, content: &[u8]) {
        if let Some(url) = self.resolve(content) {
            self.og.add(&url);
        }
    }

    /// A start tag of the body that counts (not in navigation or chrome): `main` when it
    /// sits in the main region, `body` while no main region has been seen.
    pub fn tag(&mut self, tag: &Tag, main: bool, body: bool) {
        let src = match tag.name {
            b"img" => tag.attribute(b"src"),
            b"source" => None,
            _ => return,
        };
        if !(main || body) || is_pixel(tag) {
            return;
        }
        let largest = tag.attribute(b"srcset").and_then(largest);
        for source in [src, largest].into_iter().flatten() {
            if let Some(url) = self.resolve(source) {
                if main {
                    self.main.add(&url);
                }
                if body {
                    self.body.add(&url);
                }
            }
        }
    }

    /// The images: the `og:image`s, then those of the main region (or of the body, when the
    /// page has no main region), at most `MAX_IMAGES`.
    pub fn finish(self, main_seen: bool) -> PageImages {
        let region = if main_seen { self.main } else { self.body };
        let mut all = Found::default();
        for url in self.og.urls.iter().chain(&region.urls) {
            all.add(url);
        }
        PageImages {
            urls: all.urls,
            more: all.more || self.og.more || region.more,
        }
    }

    /// `reference` resolved, as the sitemap would write it, if it is an image to list.
    fn resolve(&self, reference: &[u8]) -> Option<String> {
        let url = self.join(reference)?;
        if !self
            .rules
            .hosts
            .iter()
            .any(|host| Some(host.as_str()) == url.host_str())
        {
            return None;
        }
        let strict = strict_url(&url);
        if strict.len() >= MAX_LOC_LEN || self.rules.excluded(&strict) {
            return None;
        }
        Some(strict)
    }

    /// `reference` resolved against the base, if it is an http(s) URL. Bytes that are not
    /// ASCII are percent-encoded as they are (UTF-8 as the URL parser would encode it, and
    /// other bytes byte for byte, never replaced).
    fn join(&self, reference: &[u8]) -> Option<Url> {
        let reference = reference.trim_ascii();
        if reference.is_empty() {
            return None;
        }
        let text = match std::str::from_utf8(reference) {
            Ok(text) if text.is_ascii() => Cow::Borrowed(text),
            _ => Cow::Owned(percent_encoding::percent_encode(reference, NON_ASCII).to_string()),
        };
        let url = self.base.as_ref()?.join(&text).ok()?;
        matches!(url.scheme(), "http" | "https").then_some(url)
    }
}

/// Only bytes outside ASCII (which every set encodes): the rest is the URL parser's to read.
const NON_ASCII: &percent_encoding::AsciiSet = &percent_encoding::AsciiSet::EMPTY;

/// A tracking pixel: `width` and `height` attributes of at most 1.
fn is_pixel(tag: &Tag) -> bool {
    let at_most_one = |name: &[u8]| {
        tag.attribute(name)
            .and_then(dimension)
            .is_some_and(|pixels| pixels <= 1)
    };
    at_most_one(b"width") && at_most_one(b"height")
}

/// The number a `width` or `height` attribute starts with (`1`, ` 1px`), as browsers read it.
fn dimension(value: &[u8]) -> Option<u64> {
    let value = value.trim_ascii();
    let digits = value.iter().take_while(|b| b.is_ascii_digit()).count();
    std::str::from_utf8(&value[..digits]).ok()?.parse().ok()
}

/// How large a `srcset` candidate says it is.
#[derive(Debug, Clone, Copy, PartialEq, PartialOrd)]
enum Size {
    /// `2x`, or no descriptor (1x).
    Density(f64),
    /// `800w`: larger than any density.
    Width(u64),
}

/// The URL of the largest candidate of a `srcset`: the widest of those with a width
/// descriptor, else the densest (a candidate without a descriptor is 1x); the first on a
/// tie. A candidate whose descriptors do not parse is dropped, as browsers drop it.
fn largest(srcset: &[u8]) -> Option<&[u8]> {
    let mut best: Option<(&[u8], Size)> = None;
    let mut rest = srcset;
    while let Some((url, descriptors)) = next_candidate(&mut rest) {
        let Some(size) = size(descriptors) else {
            continue;
        };
        if best.is_none_or(|(_, best)| size > best) {
            best = Some((url, size));
        }
    }
    best.map(|(url, _)| url)
}

/// The next candidate of a `srcset` (split as the HTML standard splits it): its URL and its
/// descriptors' text.
fn next_candidate<'a>(rest: &mut &'a [u8]) -> Option<(&'a [u8], &'a [u8])> {
    let start = rest
        .iter()
        .position(|b| !b.is_ascii_whitespace() && *b != b',')?;
    let input = &rest[start..];
    let url_len = input
        .iter()
        .position(u8::is_ascii_whitespace)
        .unwrap_or(input.len());
    let (url, after) = input.split_at(url_len);
    // A URL that ends in commas ends its candidate, without descriptors.
    let commas = url.iter().rev().take_while(|b| **b == b',').count();
    if commas > 0 {
        *rest = after;
        return Some((&url[..url.len() - commas], &[]));
    }
    // The descriptors run to the next comma outside parentheses.
    let mut in_parens = false;
    let end = after
        .iter()
        .position(|&b| {
            match b {
                b'(' => in_parens = true,
                b')' => in_parens = false,
                b',' => return !in_parens,
                _ => {}
            }
            false
        })
        .unwrap_or(after.len());
    *rest = &after[end..];
    Some((url, &after[..end]))
}

/// A candidate's size from its descriptors: `Nw` (with an optional `Nh`) or `Nx`, each once;
/// none is 1x. None when they do not parse.
fn size(descriptors: &[u8]) -> Option<Size> {
    let (mut width, mut height, mut density) = (None, None, None);
    for descriptor in descriptors
        .split(u8::is_ascii_whitespace)
        .filter(|d| !d.is_empty())
    {
        let (number, kind) = descriptor.split_at(descriptor.len() - 1);
        let number = std::str::from_utf8(number).ok()?;
        match kind {
            b"w" if width.is_none() => width = Some(positive_integer(number)?),
            b"h" if height.is_none() => height = Some(positive_integer(number)?),
            b"x" if density.is_none() => density = Some(positive_number(number)?),
            _ => return None,
        }
    }
    match (width, height, density) {
        (Some(width), _, None) => Some(Size::Width(width)),
        (None, None, density) => Some(Size::Density(density.unwrap_or(1.0))),
        // A height needs a width; a width and a density contradict each other.
        _ => None,
    }
}

fn positive_integer(text: &str) -> Option<u64> {
    let digits = !text.is_empty() && text.bytes().all(|b| b.is_ascii_digit());
    text.parse().ok().filter(|n| digits && *n > 0)
}

/// A floating-point number as HTML writes one (`1.5`, `2`, `1e1`): no `inf` or `nan`.
fn positive_number(text: &str) -> Option<f64> {
    let valid = text
        .bytes()
        .all(|b| b.is_ascii_digit() || b".eE+-".contains(&b));
    let number: f64 = text.parse().ok().filter(|_| valid)?;
    (number.is_finite() && number > 0.0).then_some(number)
}

#[cfg(test)]
mod tests {
    use super::super::{Settings, Want, scan_page};
    use super::*;

    fn largest_of(srcset: &str) -> Option<&str> {
        largest(srcset.as_bytes()).map(|url| std::str::from_utf8(url).unwrap())
    }

    #[test]
    fn the_largest_srcset_candidate_by_width_or_density() {
        for (srcset, expected) in [
            ("a.png 480w, b.png 800w, c.png 640w", Some("b.png")),
            ("a.png, b.png 2x, c.png 1.5x", Some("b.png")),
            ("a.png 1x,b.png 3x", Some("b.png")),
            ("  a.png  ", Some("a.png")),
            ("a.png 2x, b.png 2x", Some("a.png")),
            // A width beats a density: a mixed srcset is an author's error.
            ("a.png 3x, b.png 100w", Some("b.png")),
            // Commas in a URL are the URL's; trailing commas end a candidate.
            ("x.php?a=1,2 100w, y.php?b,, z.png 50w", Some("x.php?a=1,2")),
            ("a.png,, b.png 2x", Some("b.png")),
            ("a.png 600w 400h, b.png 500w", Some("a.png")),
            // Bad descriptors drop their candidate.
            ("a.png 2q, b.png", Some("b.png")),
            ("a.png 0w, b.png -1x, c.png 1w 1x, d.png 1x", Some("d.png")),
            ("a.png 1e1x, b.png 9x", Some("a.png")),
            ("a.png infx, b.png nanx, c.png 100h", None),
            ("a.png (calc(1,2)) 2x, b.png", Some("b.png")),
            ("", None),
            (" , ,", None),
        ] {
            assert_eq!(largest_of(srcset), expected, "{srcset:?}");
        }
    }

    /// The scan's settings of `--images` with `--image-host` `hosts`.
    fn rules(base: &str, hosts: &[&str]) -> Settings {
        let hosts = hosts.iter().map(|host| parse_host(host).unwrap()).collect();
        Settings {
            images: Some(ImageRules::new(&BaseUrl::parse(base).unwrap(), hosts)),
            ..Settings::default()
        }
    }

    /// The images of the page at `url` whose markup is `html`, read as a run reads it.
    fn images_with(settings: &Settings, url: &str, html: impl AsRef<[u8]>) -> PageImages {
        let want = Want {
            html: true,
            head: true,
            digest: false,
            dates: false,
            images: Some(url.to_string()),
            known: None,
        };
        scan_page(settings, html, want).images
    }

    const PAGE: &str = "https://example.com/docs/guide/index.html";

    /// The images of the main region `main` of a page at `PAGE`.
    fn images(main: &str) -> Vec<String> {
        let rules = rules("https://example.com/docs/", &["cdn.example.net"]);
        let html = format!("<!doctype html><title>x</title><body><main>{main}</main></body>");
        images_with(&rules, PAGE, &html).urls
    }

    #[test]
    fn sources_resolved_against_the_page() {
        for (main, expected) in [
            (
                "<img src=a.png>",
                &["https://example.com/docs/guide/a.png"][..],
            ),
            (
                "<img src='../a.png' srcset='b.png 1x, c.png 2x'>",
                &[
                    "https://example.com/docs/a.png",
                    "https://example.com/docs/guide/c.png",
                ],
            ),
            (
                "<picture><source srcset='s.webp 300w, l.webp 900w' type=image/webp>\
                 <img src=f.jpg></picture>",
                &[
                    "https://example.com/docs/guide/l.webp",
                    "https://example.com/docs/guide/f.jpg",
                ],
            ),
            ("<IMG SRC=/i/a.png#frag>", &["https://example.com/i/a.png"]),
            (
                "<img src='  a.png\n'>",
                &["https://example.com/docs/guide/a.png"],
            ),
            (
                "<img src=a.png><img src=./a.png><img src=b.png srcset=a.png>",
                &[
                    "https://example.com/docs/guide/a.png",
                    "https://example.com/docs/guide/b.png",
                ],
            ),
            // Written as page URLs are: non-ASCII as UTF-8, what RFC 3986 forbids escaped.
            (
                "<img src='caf&eacute; x|y.png?q={a}'>",
                &["https://example.com/docs/guide/caf%C3%A9%20x%7Cy.png?q=%7Ba%7D"],
            ),
            (
                "<img src=\"it's&amp;.png\">",
                &["https://example.com/docs/guide/it's&.png"],
            ),
        ] {
            assert_eq!(images(main), expected, "{main}");
        }
    }

    #[test]
    fn what_is_left_out() {
        for main in [
            "<img src='data:image/png;base64,iVBORw0KGgo='>",
            "<img src='javascript:alert(1)'>",
            "<img src='mailto:a@example.com'>",
            "<img src=''><img>",
            "<img src=https://other.example.org/a.png>",
            "<img src=//other.example.org/a.png>",
            "<img src=p.gif width=1 height=1>",
            "<img src=p.gif width=' 0px' height=1 srcset='q.gif 2x'>",
            "<video src=v.mp4 poster=p.png><source src=v.webm></video>",
            "<audio src=a.mp3></audio><iframe src=f.html></iframe><embed src=e.swf>",
            "<a href=a.png>a link to an image</a>",
            "<nav><img src=nav.png></nav><aside><img src=aside.png></aside>",
            "<div role=navigation><img src=n.png></div><template><img src=t.png></template>",
            "<noscript><img src=n.png></noscript>",
        ] {
            assert_eq!(images(main), Vec::<String>::new(), "{main}");
        }
        let long = format!("<img src=/{}.png>", "a".repeat(MAX_LOC_LEN));
        assert_eq!(images(&long), Vec::<String>::new());
        // One dimension of a pixel, or none, is an image.
        assert_eq!(images("<img src=p.gif width=1>").len(), 1);
        assert_eq!(images("<img src=p.gif width=10 height=1>").len(), 1);
        // An article in an aside is content, as for the digest (Pelican's featured one).
        assert_eq!(
            images("<aside><img src=a.png><article><img src=f.png></article></aside>"),
            ["https://example.com/docs/guide/f.png"]
        );
    }

    #[test]
    fn other_hosts_only_those_named() {
        assert_eq!(
            images("<img src=//cdn.example.net/a.png><img src=http://CDN.example.net/b.png>"),
            [
                "https://cdn.example.net/a.png",
                "http://cdn.example.net/b.png"
            ]
        );
        // The base URL's host, whatever the scheme, and outside the base URL's path.
        assert_eq!(
            images("<img src=http://example.com/x.png>"),
            ["http://example.com/x.png"]
        );
    }

    #[test]
    fn bytes_that_are_not_utf8_are_encoded_as_they_are() {
        let rules = rules("https://example.com/", &[]);
        let html = b"<main><img src='caf\xe9.png'><img src='caf\xc3\xa9.png'></main>";
        assert_eq!(
            images_with(&rules, "https://example.com/a.html", html).urls,
            [
                "https://example.com/caf%E9.png",
                "https://example.com/caf%C3%A9.png"
            ]
        );
    }

    #[test]
    fn the_base_href_the_og_image_and_the_region() {
        let rules = rules("https://example.com/", &[]);
        let page = "https://example.com/blog/post.html";
        let html = "<head><meta property=og:image content=/social.png>\
                    <base href=/static/><base href=/other/>\
                    <meta name=og:image content='https://example.com/b.png'></head>\
                    <body><header><img src=logo.png></header><img src=a.png>\
                    <main><img src=b.png><img src=/social.png></main><img src=c.png></body>";
        assert_eq!(
            images_with(&rules, page, html).urls,
            [
                "https://example.com/social.png",
                "https://example.com/b.png",
                "https://example.com/static/b.png",
            ]
        );
        // Without a main region, the body less its chrome.
        let html = "<head><base href='data:text/html,x'></head><body><header><img src=logo.png>\
                    </header><img src=a.png><footer><img src=f.png></footer></body>";
        assert_eq!(
            images_with(&rules, page, html).urls,
            ["https://example.com/blog/a.png"]
        );
    }

    #[test]
    fn the_region_a_selector_names() {
        let settings = Settings {
            region: Some(crate::scan::select::Selector::parse("div.content").unwrap()),
            ..rules("https://example.com/", &[])
        };
        let html = "<main><img src=m.png></main><div class='x content'><img src=c.png></div>";
        assert_eq!(
            images_with(&settings, "https://example.com/", html).urls,
            ["https://example.com/c.png"]
        );
    }

    #[test]
    fn at_most_a_thousand_distinct_images_in_the_order_first_seen() {
        let rules = rules("https://example.com/", &[]);
        let page = |n: usize| {
            let imgs: String = (0..n)
                .map(|i| format!("<img src=/{i}.png><img src=/0.png>"))
                .collect();
            format!("<meta property=og:image content=/0.png><main>{imgs}</main>")
        };
        let found = images_with(&rules, "https://example.com/", page(MAX_IMAGES));
        assert_eq!(found.urls.len(), MAX_IMAGES);
        assert!(!found.more, "exactly the limit is no cut");
        assert_eq!(found.urls[1], "https://example.com/1.png");
        let found = images_with(&rules, "https://example.com/", page(MAX_IMAGES + 1));
        assert_eq!(found.urls.len(), MAX_IMAGES);
        assert!(found.more);
        assert_eq!(found.urls.last().unwrap(), "https://example.com/999.png");
    }

    #[test]
    fn hosts_for_image_host() {
        assert_eq!(parse_host("CDN.Example.com").unwrap(), "cdn.example.com");
        assert_eq!(parse_host("b\u{fc}cher.de").unwrap(), "xn--bcher-kva.de");
        assert_eq!(parse_host("192.0.2.1").unwrap(), "192.0.2.1");
        for bad in [
            "",
            "https://cdn.example.com/",
            "cdn.example.com/img",
            "cdn.example.com:8080",
            "user@cdn.example.com",
            "a b",
            "a{b}",
        ] {
            assert!(parse_host(bad).is_err(), "{bad:?} accepted");
        }
    }
}
