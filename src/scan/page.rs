//! One pass over a page's tokens for everything asked of it: what its head says, the digest
//! of its content, its images, the dates it declares. Reading stops at the end of the head
//! when nothing more is asked.

use super::content::{self, Content};
use super::dates::{Declared, Source};
use super::head::{BOTS, Facts, Goes};
use super::tokens::{Events, Flow, Tag};

/// JSON-LD kept of one block at most (a larger one is read as text).
const MAX_JSON: usize = 1024 * 1024;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Phase {
    Head,
    Body,
}

pub struct PageReader<'c, 'r> {
    phase: Phase,
    pub facts: Facts,
    /// Stop once the head is read.
    head_only: bool,
    content: Option<&'c mut Content<'r>>,
    pub dates: Option<Declared>,
    /// A JSON-LD block being read, when the content or the dates want it.
    json: Option<Vec<u8>>,
}

impl<'c, 'r> PageReader<'c, 'r> {
    pub fn new(content: Option<&'c mut Content<'r>>, dates: bool) -> Self {
        PageReader {
            phase: Phase::Head,
            facts: Facts::default(),
            head_only: content.is_none() && !dates,
            content,
            dates: dates.then(Declared::default),
            json: None,
        }
    }

    /// Whether the head is read, and with it all `Facts` want (a page with no title is read
    /// on to its body's first text).
    pub fn head_done(&self) -> bool {
        self.phase == Phase::Body && !self.facts.wants_body()
    }

    /// Whether JSON-LD and metas are wanted: for the digest or the dates.
    fn wants_structure(&self) -> bool {
        self.content.as_ref().is_some_and(|c| c.wants_structure()) || self.dates.is_some()
    }

    /// A `<meta>`: robots directives for the content, an `og:image` for the images, dates for
    /// the dates.
    fn meta(&mut self, tag: &Tag) {
        if let Some(page) = &mut self.content
            && let Some(url) = tag.attribute(b"content")
            && [b"property".as_slice(), b"name"].iter().any(|key| {
                tag.attribute(key)
                    .is_some_and(|key| key.trim_ascii().eq_ignore_ascii_case(b"og:image"))
            })
        {
            page.og_image(url);
        }
        // The key first: a content (often a long description) is wanted for a few keys.
        let Some(key) = [b"property".as_slice(), b"name", b"itemprop"]
            .into_iter()
            .find_map(|name| tag.text(name))
        else {
            return;
        };
        let source = self.dates.as_ref().and(Source::of_meta(&key));
        let robots = self.content.is_some() && BOTS.iter().any(|bot| key.eq_ignore_ascii_case(bot));
        if source.is_none() && !robots {
            return;
        }
        let Some(content) = tag.text(b"content") else {
            return;
        };
        if let (Some(dates), Some(source)) = (&mut self.dates, source) {
            dates.add(source, &content);
        }
        if robots && let Some(page) = &mut self.content {
            page.robots(&content);
        }
    }

    /// The end of a JSON-LD block.
    fn json_ld(&mut self, json: Vec<u8>) {
        let value: Option<serde_json::Value> = serde_json::from_slice(&json).ok();
        if let (Some(dates), Some(value)) = (&mut self.dates, &value) {
            for object in content::objects(value) {
                for (key, source) in [
                    ("dateModified", Source::JsonLdModified),
                    ("datePublished", Source::JsonLdPublished),
                ] {
                    if let Some(date) = object.get(key).and_then(|date| date.as_str()) {
                        dates.add(source, date);
                    }
                }
            }
        }
        if let Some(page) = &mut self.content {
            page.json_ld(&json, value.as_ref());
        }
    }
}

impl Events for PageReader<'_, '_> {
    fn wants_attributes(&mut self, name: &[u8]) -> bool {
        let structure = (self.wants_structure() && matches!(name, b"meta" | b"script"))
            || (self.content.is_some() && matches!(name, b"meta" | b"base"));
        match self.phase {
            Phase::Head => self.facts.wants_attributes(name) || structure,
            Phase::Body => self.content.is_some() || structure,
        }
    }

    fn start(&mut self, tag: &Tag) -> Flow {
        match tag.name {
            b"meta" if self.content.is_some() || self.dates.is_some() => self.meta(tag),
            b"script" if self.wants_structure() => {
                let json_ld = tag.attribute(b"type").is_some_and(|kind| {
                    kind.trim_ascii()
                        .eq_ignore_ascii_case(b"application/ld+json")
                });
                if json_ld {
                    self.json = Some(Vec::new());
                }
            }
            b"base" => {
                if let Some(page) = &mut self.content
                    && let Some(href) = tag.attribute(b"href")
                {
                    page.base(href);
                }
            }
            _ => {}
        }
        if self.facts.start(tag) == Goes::On {
            return Flow::Continue;
        }
        self.phase = Phase::Body;
        if self.head_only && !self.facts.wants_body() {
            return Flow::Stop;
        }
        if let Some(page) = &mut self.content {
            page.start(tag);
        }
        Flow::Continue
    }

    fn end(&mut self, name: &[u8]) -> Flow {
        if name == b"script"
            && let Some(json) = self.json.take()
        {
            self.json_ld(json);
        }
        if self.facts.end(name) == Goes::On {
            return Flow::Continue;
        }
        self.phase = Phase::Body;
        if self.head_only && !self.facts.wants_body() {
            return Flow::Stop;
        }
        if let Some(page) = &mut self.content {
            page.end(name);
        }
        Flow::Continue
    }

    fn text(&mut self, text: &[u8]) {
        self.facts.text(text);
        if let Some(json) = &mut self.json {
            if json.len() + text.len() <= MAX_JSON {
                json.extend_from_slice(text);
            }
            return;
        }
        if self.phase == Phase::Body
            && let Some(page) = &mut self.content
        {
            page.text(text);
        }
    }

    fn noscript_is_markup(&mut self) -> bool {
        self.phase == Phase::Head
    }
}
