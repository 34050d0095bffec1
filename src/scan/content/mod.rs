//! The digest of what a reader of a page cares about, so that a rebuild that only touches
//! navigation, site-wide chrome or asset names does not re-date the page (Google calls for
//! lastmod to move on a "significant" change: main content, structured data, links in the
//! content). It is made of:
//!
//! - the **main region**: the page's `<main>` elements and those with `role="main"` (or the
//!   elements `--digest-region` names). Without one, the content column and the articles
//!   (`#content`, `.content` and the like, and every `<article>`: themes without `<main>`
//!   put a blogroll or a link list in a section beside them); without those either, or
//!   without the region `--digest-region` names, the whole body. Within it, navigation
//!   and chrome are left out: `<nav>`, `<aside>`, elements with `role="navigation"`,
//!   `"banner"`, `"contentinfo"`, `"complementary"` or `"search"`, and a `<header>` or
//!   `<footer>` outside an `<article>`, but an `<article>` within chrome is content again;
//!   `<script>`, `<style>`, `<template>` and a `<noscript>` in the body are left out too.
//!   What counts there: the words of the text (whitespace and line breaks do not count),
//!   the targets of links, the sources of images, video and frames;
//! - the **structured data**: each JSON-LD block (but objects about the site as a whole,
//!   `WebSite` and `Organization`), its keys sorted;
//! - the **robots directives**.
//!
//! The title and the meta description are left out: generators fill them from site-wide
//! settings (a site name after every title, the site's description on pages without one),
//! so a rename would re-date every page; the page's own heading is in its main region. In
//! URLs (links, media, JSON-LD), the scheme and host are left out, so that a move to
//! another host or to https changes no digest. `--digest-ignore` removes its matches from
//! each run of text and each URL before it counts.
//!
//! The same walk through the page's regions finds its images for `--images` (`images.rs`):
//! those of the main region, or of the body less its chrome when there is none (the
//! content column is the digest's guess alone).

pub use json_ld::objects;
use json_ld::{strip_hosts, types, without_host};
use stream::Stream;

use super::digest::DigestRules;
use super::images::{Images, PageImages};
use super::select::Selector;
use super::tokens::Tag;

mod json_ld;
mod stream;

/// Elements without content or end tag.
const VOID: &[&[u8]] = &[
    b"area", b"base", b"br", b"col", b"embed", b"hr", b"img", b"input", b"link", b"meta",
    b"source", b"track", b"wbr", b"param", b"keygen",
];

/// Roles that mark navigation or chrome.
const CHROME_ROLES: &[&[u8]] = &[
    b"navigation",
    b"banner",
    b"contentinfo",
    b"complementary",
    b"search",
];

/// JSON-LD objects about the site as a whole, not the page.
const SITE_TYPES: &[&str] = &["WebSite", "Organization"];

/// A run of text counted at a time at most (longer runs are cut at a whitespace within it).
const MAX_RUN: usize = 64 * 1024;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Kind {
    Main,
    Chrome,
    Article,
    /// What themes without a main region name their content column (`#content`,
    /// `.content`, `#main`).
    Container,
    /// Inert, or text that is not content (`<template>`, `<noscript>` in the body).
    Inert,
}

struct Open {
    name: Vec<u8>,
    kind: Kind,
    /// Elements of the same name opened inside it, not yet closed.
    depth: u32,
}

impl Open {
    /// An `<article>` is one whatever region it also is (Furo's `<article role="main">`).
    fn is_article(&self) -> bool {
        self.kind == Kind::Article || self.name == b"article"
    }
}

/// What a reader cares about in a page, as its tokens go by: where each tag sits (the main
/// region, navigation and chrome), and from that the content digest, or the images, or both.
pub struct Content<'r> {
    /// `--digest-region`, instead of `<main>` and `role="main"`.
    region: Option<&'r Selector>,
    /// Open elements that decide where text counts, innermost last.
    stack: Vec<Open>,
    /// How many of each kind are open.
    main: u32,
    chrome: u32,
    articles: u32,
    containers: u32,
    inert: u32,
    /// Whether a main region was seen: then it is the digest, else the body.
    main_seen: bool,
    /// Whether a content column or an article was seen: then, without a main region,
    /// they are the digest.
    columns_seen: bool,
    digest: Option<Digest<'r>>,
    images: Option<Images<'r>>,
}

/// The content digest in the making.
struct Digest<'r> {
    rules: &'r DigestRules,
    in_main: Stream,
    in_body: Stream,
    /// The content columns and the articles, for a page without a main region.
    in_columns: Stream,
    /// The run of text not yet counted.
    run: Vec<u8>,
    /// JSON-LD blocks and robots directives, counted whatever the region.
    structured: blake3::Hasher,
    robots: Vec<String>,
}

/// What `Content` found.
pub struct Found {
    pub digest: Option<blake3::Hash>,
    pub images: Option<PageImages>,
}

impl<'r> Content<'r> {
    /// Finds the page's main region by `region` (or `<main>` and `role="main"`), and in it
    /// the digest by `digest`'s rules, the images that `images` collects, or both.
    pub fn new(
        region: Option<&'r Selector>,
        digest: Option<&'r DigestRules>,
        images: Option<Images<'r>>,
    ) -> Self {
        Content {
            region,
            stack: Vec::new(),
            main: 0,
            chrome: 0,
            articles: 0,
            containers: 0,
            inert: 0,
            main_seen: false,
            columns_seen: false,
            digest: digest.map(|rules| Digest {
                rules,
                in_main: Stream::new(),
                in_body: Stream::new(),
                in_columns: Stream::new(),
                run: Vec::new(),
                structured: blake3::Hasher::new(),
                robots: Vec::new(),
            }),
            images,
        }
    }

    /// Whether the structured data (JSON-LD, robots directives) is wanted.
    pub fn wants_structure(&self) -> bool {
        self.digest.is_some()
    }

    /// An `og:image`'s URL.
    pub fn og_image(&mut self, content: &[u8]) {
        if let Some(images) = &mut self.images {
            images.og_image(content);
        }
    }

    /// A `<base href>`.
    pub fn base(&mut self, href: &[u8]) {
        if let Some(images) = &mut self.images {
            images.base(href);
        }
    }

    /// A `<meta name="robots">`'s directives.
    pub fn robots(&mut self, content: &str) {
        let Some(digest) = &mut self.digest else {
            return;
        };
        digest.robots.extend(
            content
                .split([',', ' ', '\t', '\n'])
                .map(|d| d.trim().to_ascii_lowercase())
                .filter(|d| !d.is_empty()),
        );
    }

    /// A JSON-LD block, as written.
    pub fn json_ld(&mut self, json: &[u8], value: Option<&serde_json::Value>) {
        let Some(digest) = &mut self.digest else {
            return;
        };
        match value {
            Some(value) => {
                for object in objects(value) {
                    let about_site = object
                        .get("@type")
                        .is_some_and(|kind| types(kind).any(|t| SITE_TYPES.contains(&t)));
                    if !about_site {
                        let mut object = serde_json::Value::Object(object.clone());
                        strip_hosts(&mut object);
                        let text = object.to_string();
                        digest
                            .structured
                            .update(&digest.rules.strip(text.as_bytes()));
                        digest.structured.update(b"\0");
                    }
                }
            }
            // Not JSON: its words count, as text would.
            None => {
                for word in json
                    .split(u8::is_ascii_whitespace)
                    .filter(|w| !w.is_empty())
                {
                    digest.structured.update(word);
                    digest.structured.update(b"\0");
                }
            }
        }
    }

    /// Whether text here counts at all: outside inert elements, and outside chrome unless
    /// an article within it holds the text (Pelican's `<aside id="featured">` shows a list's
    /// newest article in full: an edit of it is a change of the list).
    fn counts(&self) -> bool {
        self.inert == 0
            && (self.chrome == 0
                || self
                    .stack
                    .iter()
                    .rev()
                    .find(|open| open.kind == Kind::Chrome || open.is_article())
                    .is_some_and(Open::is_article))
    }

    /// Whether text here is in a content column or an article.
    fn in_columns(&self) -> bool {
        self.containers > 0 || self.articles > 0
    }

    /// Counts the run of text so far in the streams it belongs to.
    fn flush(&mut self) {
        let len = self.digest.as_ref().map_or(0, |digest| digest.run.len());
        self.count_run(len);
    }

    /// Counts the first `len` bytes of the run of text, and takes them off it.
    fn count_run(&mut self, len: usize) {
        let counts = self.counts();
        let (main_seen, in_main, in_columns) = (self.main_seen, self.main > 0, self.in_columns());
        let Some(digest) = &mut self.digest else {
            return;
        };
        if len == 0 {
            return;
        }
        let run = std::mem::take(&mut digest.run);
        let text = digest.rules.strip(&run[..len]);
        // Once a main region is seen, the other streams no longer matter.
        if counts {
            if !main_seen {
                digest.in_body.words(&text);
                if in_columns {
                    digest.in_columns.words(&text);
                }
            }
            if in_main {
                digest.in_main.words(&text);
            }
        }
        digest.run = run;
        digest.run.drain(..len);
    }

    pub fn text(&mut self, text: &[u8]) {
        if !self.counts() {
            return;
        }
        let Some(digest) = &mut self.digest else {
            return;
        };
        digest.run.extend_from_slice(text);
        // A long run is cut where its text alone says (after its last whitespace within
        // the limit), never where the tokenizer's pieces happen to end.
        while let Some(digest) = &self.digest
            && digest.run.len() >= MAX_RUN
        {
            let cut = digest.run[..MAX_RUN]
                .iter()
                .rposition(u8::is_ascii_whitespace)
                .map_or(MAX_RUN, |at| at + 1);
            self.count_run(cut);
        }
    }

    fn url(&mut self, mark: u8, url: &[u8]) {
        let (main_seen, in_main, in_columns) = (self.main_seen, self.main > 0, self.in_columns());
        let Some(digest) = &mut self.digest else {
            return;
        };
        let url = digest.rules.strip(without_host(url.trim_ascii()));
        if !main_seen {
            digest.in_body.url(mark, &url);
            if in_columns {
                digest.in_columns.url(mark, &url);
            }
        }
        if in_main {
            digest.in_main.url(mark, &url);
        }
    }

    pub fn start(&mut self, tag: &Tag) {
        self.flush();
        let kind = self.kind(tag);
        self.main_seen |= kind == Some(Kind::Main);
        // A named region replaces the guess: a page without it counts its body.
        self.columns_seen |=
            self.region.is_none() && (kind == Some(Kind::Container) || tag.name == b"article");
        if self.counts() && !matches!(kind, Some(Kind::Chrome | Kind::Inert)) {
            if self.digest.is_some() {
                self.links_and_media(tag);
            }
            if let Some(images) = &mut self.images {
                images.tag(tag, self.main > 0, !self.main_seen);
            }
        }
        if VOID.contains(&tag.name) {
            return;
        }
        match kind {
            Some(kind) => {
                let open = Open {
                    name: tag.name.to_vec(),
                    kind,
                    depth: 0,
                };
                self.count(&open, 1);
                self.stack.push(open);
            }
            None => {
                if let Some(open) = self.stack.iter_mut().rev().find(|o| o.name == tag.name) {
                    open.depth += 1;
                }
            }
        }
    }

    pub fn end(&mut self, name: &[u8]) {
        self.flush();
        let Some(at) = self.stack.iter().rposition(|open| open.name == name) else {
            return;
        };
        if self.stack[at].depth > 0 {
            self.stack[at].depth -= 1;
            return;
        }
        for open in self.stack.split_off(at) {
            self.count(&open, -1);
        }
    }

    fn count(&mut self, open: &Open, by: i32) {
        let counter = match open.kind {
            Kind::Main => &mut self.main,
            Kind::Chrome => &mut self.chrome,
            Kind::Article => &mut self.articles,
            Kind::Container => &mut self.containers,
            Kind::Inert => &mut self.inert,
        };
        *counter = counter.saturating_add_signed(by);
        if open.is_article() && open.kind != Kind::Article {
            self.articles = self.articles.saturating_add_signed(by);
        }
    }

    /// What an element opened by `tag` makes of what it holds (None: nothing of note).
    fn kind(&self, tag: &Tag) -> Option<Kind> {
        let role = tag.attribute(b"role").map(|role| role.trim_ascii());
        let main = match self.region {
            Some(selector) => selector.matches(tag),
            None => tag.name == b"main" || role == Some(b"main".as_slice()),
        };
        if main {
            return Some(Kind::Main);
        }
        if role.is_some_and(|role| CHROME_ROLES.contains(&role)) {
            return Some(Kind::Chrome);
        }
        match tag.name {
            b"nav" | b"aside" => Some(Kind::Chrome),
            // A page's own header and footer sit in its article; the site's outside.
            b"header" | b"footer" if self.articles == 0 => Some(Kind::Chrome),
            b"article" => Some(Kind::Article),
            b"template" | b"script" | b"style" | b"noscript" => Some(Kind::Inert),
            _ if self.region.is_none() && is_container(tag) => Some(Kind::Container),
            _ => None,
        }
    }

    /// The targets of links and the sources of media that `tag` holds.
    fn links_and_media(&mut self, tag: &Tag) {
        const LINK: u8 = 1;
        const MEDIA: u8 = 2;
        let attributes: &[(&[u8], u8)] = match tag.name {
            b"a" | b"area" => &[(b"href", LINK)],
            b"img" | b"source" => &[(b"src", MEDIA), (b"srcset", MEDIA)],
            b"video" => &[(b"src", MEDIA), (b"poster", MEDIA)],
            b"audio" | b"iframe" | b"embed" | b"track" => &[(b"src", MEDIA)],
            b"object" => &[(b"data", MEDIA)],
            _ => return,
        };
        for (name, mark) in attributes {
            if let Some(value) = tag.attribute(name) {
                self.url(*mark, value);
            }
        }
    }

    /// The digest (the main region, or the body without one, the structured data and the
    /// robots directives) and the images, those asked for.
    pub fn finish(mut self) -> Found {
        self.flush();
        let main_seen = self.main_seen;
        let region = if main_seen {
            Region::Main
        } else if self.columns_seen {
            Region::Columns
        } else {
            Region::Body
        };
        Found {
            digest: self.digest.map(|digest| digest.finish(region)),
            images: self.images.map(|images| images.finish(main_seen)),
        }
    }
}

/// Which of the page's streams is its digest.
enum Region {
    Main,
    Columns,
    Body,
}

/// Whether `tag` is a content column as themes without `<main>` name it: `id="content"`,
/// `id="main"` or `id="main-content"`, or the class `content`.
fn is_container(tag: &Tag) -> bool {
    let id = tag.attribute(b"id").map(<[u8]>::trim_ascii);
    id.is_some_and(|id| {
        [b"content".as_slice(), b"main", b"main-content"]
            .iter()
            .any(|name| id.eq_ignore_ascii_case(name))
    }) || tag.attribute(b"class").is_some_and(|class| {
        class
            .split(u8::is_ascii_whitespace)
            .any(|name| name.eq_ignore_ascii_case(b"content"))
    })
}

impl Digest<'_> {
    fn finish(mut self, region: Region) -> blake3::Hash {
        let region = match region {
            Region::Main => self.in_main.finalize(),
            Region::Columns => self.in_columns.finalize(),
            Region::Body => self.in_body.finalize(),
        };
        self.robots.sort();
        self.robots.dedup();
        let mut digest = blake3::Hasher::new();
        digest.update(region.as_bytes());
        digest.update(self.structured.finalize().as_bytes());
        for directive in &self.robots {
            digest.update(directive.as_bytes());
            digest.update(b"\0");
        }
        digest.finalize()
    }
}

#[cfg(test)]
mod tests {
    use super::super::digest::{DigestRules, Mode};
    use super::super::select::Selector;
    use super::super::{Settings, Want, scan_page};

    fn digest_with(settings: &Settings, html: &str) -> blake3::Hash {
        let want = Want {
            html: true,
            head: true,
            digest: true,
            dates: false,
            images: None,
            known: None,
        };
        scan_page(settings, html, want).digest.unwrap()
    }

    /// The scan's settings of a content digest, within `region` when it is given, less what
    /// `ignore` matches.
    fn rules(region: Option<&str>, ignore: Vec<regex::bytes::Regex>) -> Settings {
        Settings {
            region: region.map(|region| Selector::parse(region).unwrap()),
            digest: Some(DigestRules::new(Mode::Content, ignore)),
            images: None,
        }
    }

    fn digest(html: &str) -> blake3::Hash {
        digest_with(&rules(None, Vec::new()), html)
    }

    fn page(head: &str, body: &str) -> String {
        format!("<!doctype html><html><head>{head}</head><body>{body}</body></html>")
    }

    #[test]
    fn what_does_not_count() {
        let base = digest(&page(
            "<title>A - Site</title>",
            "<header>Site</header><nav><a href=/a>A</a></nav>\
             <main><nav>toc</nav><article><h1>A</h1><p>Some text <a href=/b>link</a></p>\
             <img src=/i.png></article><aside>related</aside></main><footer>© 2024</footer>",
        ));
        for (what, other) in [
            (
                "title, header, footer, navigation, asides, scripts, styles",
                page(
                    "<title>A - New site name</title><link rel=stylesheet href=/app.4f2a.css>",
                    "<header>New site</header><nav><a href=/a>A</a><a href=/new>New</a></nav>\
                     <main><nav>toc, longer</nav><article><h1>A</h1><p>Some text <a href=/b>link</a>\
                     </p><img src=/i.png><script>track()</script><style>p{}</style></article>\
                     <aside>other related</aside></main><footer>© 2025</footer>\
                     <script src=/app.9e1c.js></script>",
                ),
            ),
            (
                "whitespace, quotes, attribute order, a move to another host",
                page(
                    "<title>A - Site</title>",
                    "<header>Site</header><nav><a href=/a>A</a></nav>\n<main>\n  <nav>toc</nav>\n  \
                     <article>\n    <h1>A</h1>\n    <p>Some\n      text   <a class='x' \
                     href='https://example.org/b'>link</a></p>\n    <img alt=x src='/i.png'>\n  \
                     </article>\n  <aside>related</aside>\n</main>\n<footer>© 2024</footer>",
                ),
            ),
        ] {
            assert_eq!(digest(&other), base, "{what} counted");
        }
        for (what, other) in [
            (
                "the text",
                page(
                    "",
                    "<main><article><h1>A</h1><p>Other text <a href=/b>link</a></p><img src=/i.png></article></main>",
                ),
            ),
            (
                "a link's target",
                page(
                    "",
                    "<main><article><h1>A</h1><p>Some text <a href=/c>link</a></p><img src=/i.png></article></main>",
                ),
            ),
            (
                "an image",
                page(
                    "",
                    "<main><article><h1>A</h1><p>Some text <a href=/b>link</a></p><img src=/j.png></article></main>",
                ),
            ),
            (
                "the robots directives",
                page(
                    "<meta name=robots content=nofollow>",
                    "<main><article><h1>A</h1><p>Some text <a href=/b>link</a></p><img src=/i.png></article></main>",
                ),
            ),
            (
                "the structured data",
                page(
                    r#"<script type="application/ld+json">{"@type":"Article","dateModified":"2024-05-01"}</script>"#,
                    "<main><article><h1>A</h1><p>Some text <a href=/b>link</a></p><img src=/i.png></article></main>",
                ),
            ),
        ] {
            assert_ne!(digest(&other), base, "{what} not counted");
        }
    }

    #[test]
    fn the_region_is_the_main_one_or_else_the_body_less_its_chrome() {
        // Sphinx's role="main", with relbars marked as navigation.
        let sphinx = |sidebar: &str| {
            page(
                "",
                &format!(
                    "<div role=navigation>{sidebar}</div><div class=document><div class=body \
                     role=main><p>Text</p><div><p>nested</p></div></div></div>\
                     <div class=footer role=contentinfo>© x</div>"
                ),
            )
        };
        assert_eq!(digest(&sphinx("a")), digest(&sphinx("a, b")));
        // Without a main region, the body less its header, footer and navigation.
        let plain = |footer: &str| {
            page(
                "",
                &format!("<header>x</header><p>Text</p><footer>{footer}</footer>"),
            )
        };
        assert_eq!(digest(&plain("© 2024")), digest(&plain("© 2025")));
        assert_ne!(
            digest(&page("", "<p>Text</p>")),
            digest(&page("", "<p>Other</p>"))
        );
        // A header and a footer inside an article belong to it.
        let article = |footer: &str| {
            page(
                "",
                &format!(
                    "<main><article><header>Title</header><p>x</p><footer>{footer}</footer></article></main>"
                ),
            )
        };
        assert_ne!(digest(&article("tag: a")), digest(&article("tag: b")));
        // JSON-LD about the site as a whole does not count.
        let site = |name: &str| {
            page(
                &format!(
                    r#"<script type="application/ld+json">{{"@type":"WebSite","name":"{name}"}}</script>"#
                ),
                "<main>x</main>",
            )
        };
        assert_eq!(digest(&site("A")), digest(&site("B")));
    }

    #[test]
    fn an_article_in_an_aside_is_content() {
        // Pelican's notmyidea: a list's newest article shown in full in an aside.
        let list = |featured: &str, related: &str| {
            page(
                "",
                &format!(
                    "<main><aside id=featured><h2>Featured</h2><article><h1>Post</h1>\
                     <footer>tags: a</footer><p>{featured}</p><nav>next</nav></article></aside>\
                     <p>Others</p><aside>{related}</aside></main>"
                ),
            )
        };
        let base = digest(&list("Text", "r"));
        assert_ne!(digest(&list("Edited", "r")), base);
        // The rest of the aside, a nav within its article and another aside stay chrome.
        assert_eq!(digest(&list("Text", "r, s")), base);
        assert_eq!(
            digest(&list("Text", "r").replace("Featured", "Newest")),
            base
        );
        assert_eq!(digest(&list("Text", "r").replace("next", "previous")), base);
    }

    #[test]
    fn without_a_main_region_the_content_column_and_the_articles() {
        // Pelican's notmyidea: no <main>; the featured article, the #content column, and
        // a blogroll in a section beside them.
        let pelican = |featured: &str, content: &str, blogroll: &str| {
            page(
                "",
                &format!(
                    "<header><h1>Site</h1></header><a href=/fork>Fork me</a>\
                     <aside id=featured><article><p>{featured}</p></article></aside>\
                     <section id=content class=body><h1>Other articles</h1><p>{content}</p>\
                     </section><section id=extras><a href=/x>{blogroll}</a></section>\
                     <footer>© x</footer>"
                ),
            )
        };
        let base = digest(&pelican("F", "C", "B"));
        assert_eq!(digest(&pelican("F", "C", "B, and a new link")), base);
        assert_ne!(digest(&pelican("G", "C", "B")), base);
        assert_ne!(digest(&pelican("F", "D", "B")), base);
        // A list of one article: the article alone.
        let single = |featured: &str, blogroll: &str| {
            page(
                "",
                &format!("<article><p>{featured}</p></article><section>{blogroll}</section>"),
            )
        };
        assert_eq!(digest(&single("F", "B")), digest(&single("F", "C")));
        assert_ne!(digest(&single("F", "B")), digest(&single("G", "B")));
        // The columns as themes name them.
        for column in [
            "<div id=content>",
            "<div id=Main>",
            "<div id=main-content>",
            "<div class='content container'>",
        ] {
            let page = |sidebar: &str, text: &str| {
                page(
                    "",
                    &format!("<div class=sidebar>{sidebar}</div>{column}<p>{text}</p></div>"),
                )
            };
            assert_eq!(digest(&page("a", "T")), digest(&page("b", "T")), "{column}");
            assert_ne!(digest(&page("a", "T")), digest(&page("a", "U")), "{column}");
        }
        // With a main region, a column outside it does not count.
        let main =
            |column: &str| page("", &format!("<main>M</main><div id=content>{column}</div>"));
        assert_eq!(digest(&main("a")), digest(&main("b")));
    }

    #[test]
    fn a_named_aside_is_the_region_and_a_page_without_it_counts_its_body() {
        let rules = rules(Some("aside#featured"), Vec::new());
        let named = |featured: &str, other: &str| {
            page(
                "",
                &format!("<aside id=featured>{featured}</aside><div id=content>{other}</div>"),
            )
        };
        assert_eq!(
            digest_with(&rules, &named("F", "a")),
            digest_with(&rules, &named("F", "b"))
        );
        assert_ne!(
            digest_with(&rules, &named("F", "a")),
            digest_with(&rules, &named("G", "a"))
        );
        // Without the named region: the body less its chrome, not the guessed column.
        let unnamed = |column: &str, loose: &str| {
            page(
                "",
                &format!(
                    "<div id=content>{column}</div><article>a</article><p>{loose}</p><nav>n</nav>"
                ),
            )
        };
        assert_ne!(
            digest_with(&rules, &unnamed("a", "x")),
            digest_with(&rules, &unnamed("a", "y"))
        );
        assert_eq!(
            digest_with(&rules, &unnamed("a", "x")),
            digest_with(&rules, &unnamed("a", "x").replace(">n<", ">m<"))
        );
    }

    #[test]
    fn a_named_region_and_ignored_matches() {
        let rules = rules(
            Some("div.content"),
            vec![regex::bytes::Regex::new("Updated [0-9-]+").unwrap()],
        );
        let page = |main: &str, content: &str| {
            page(
                "",
                &format!(
                    "<main>{main}</main><div class='x content'>{content} Updated 2024-05-01</div>"
                ),
            )
        };
        let (a, b) = (page("one", "text"), page("two", "text"));
        assert_eq!(digest_with(&rules, &a), digest_with(&rules, &b));
        let c = page("one", "text").replace("2024-05-01", "2025-01-01");
        assert_eq!(digest_with(&rules, &a), digest_with(&rules, &c));
        assert_ne!(
            digest_with(&rules, &a),
            digest_with(&rules, &page("one", "other"))
        );
    }
}
