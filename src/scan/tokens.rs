//! HTML as a stream of tags and text, from html5gum's tokenizer (the WHATWG rules: names
//! lower-cased, entities decoded, any quoting, broken markup tolerated) through an emitter
//! of our own: no token is allocated, attributes are kept only for the tags a reader asks
//! for, and parse errors are not tracked.

use std::borrow::Cow;
use std::ops::Range;

use html5gum::{Emitter, Error, Readable, Reader, State, Tokenizer};

/// What reads the stream.
pub trait Events {
    /// Whether the attributes of a start tag named `name` are wanted.
    fn wants_attributes(&mut self, name: &[u8]) -> bool;

    /// A start tag (its attributes, if wanted). `Flow::Stop` ends the reading.
    fn start(&mut self, tag: &Tag) -> Flow;

    /// An end tag.
    fn end(&mut self, name: &[u8]) -> Flow;

    /// Text (or raw text of a script, a style, a title), in pieces of any size.
    fn text(&mut self, text: &[u8]);

    /// Whether a `<noscript>` is read as markup here (in a head, as a browser without
    /// scripts reads it), not as raw text.
    fn noscript_is_markup(&mut self) -> bool;
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Flow {
    Continue,
    Stop,
}

/// A start tag.
pub struct Tag<'a> {
    pub name: &'a [u8],
    bytes: &'a [u8],
    attributes: &'a [(Range<usize>, Range<usize>)],
}

impl<'a> Tag<'a> {
    /// The value of attribute `name` (lower case), the first if it is repeated.
    pub fn attribute(&self, name: &[u8]) -> Option<&'a [u8]> {
        self.attributes
            .iter()
            .find(|(key, _)| &self.bytes[key.clone()] == name)
            .map(|(_, value)| &self.bytes[value.clone()])
    }

    /// The value of attribute `name` as text (borrowed when it is UTF-8), less the white
    /// space around it.
    pub fn text(&self, name: &[u8]) -> Option<Cow<'a, str>> {
        self.attribute(name)
            .map(|value| match String::from_utf8_lossy(value) {
                Cow::Borrowed(text) => Cow::Borrowed(text.trim()),
                Cow::Owned(text) => Cow::Owned(text.trim().to_string()),
            })
    }
}

/// Tokenizes `input`, calling `events`, until its end or until `events` says stop.
pub fn read<'a, R: Readable<'a>>(
    input: R,
    events: &mut impl Events,
) -> Result<(), <R::Reader as Reader>::Error> {
    let emitter = TagEmitter {
        events,
        name: Vec::new(),
        end: false,
        keep_attributes: None,
        bytes: Vec::new(),
        attributes: Vec::new(),
        attribute: None,
        last_start: Vec::new(),
        stop: false,
    };
    // The tokenizer yields only when `events` said stop.
    Tokenizer::new_with_emitter(input, emitter)
        .next()
        .transpose()
        .map(drop)
}

struct TagEmitter<'e, E> {
    events: &'e mut E,
    /// The current tag's name, and whether it is an end tag.
    name: Vec<u8>,
    end: bool,
    /// Whether the current tag's attributes are wanted: asked when its first attribute
    /// begins, its name being complete then.
    keep_attributes: Option<bool>,
    /// The current tag's attribute names and values, and their places in `bytes`.
    bytes: Vec<u8>,
    attributes: Vec<(Range<usize>, Range<usize>)>,
    /// The attribute being read: its name, then its value.
    attribute: Option<(Range<usize>, Range<usize>)>,
    last_start: Vec<u8>,
    /// Set when `events` said stop: the tokenizer yields once, and reading ends.
    stop: bool,
}

impl<E: Events> TagEmitter<'_, E> {
    fn init_tag(&mut self, end: bool) {
        self.name.clear();
        self.end = end;
        self.keep_attributes = None;
        self.bytes.clear();
        self.attributes.clear();
        self.attribute = None;
    }

    /// Puts the attribute being read on the tag, unless one of its name is there already.
    fn flush_attribute(&mut self) {
        if let Some((name, value)) = self.attribute.take() {
            let key = &self.bytes[name.clone()];
            if !self
                .attributes
                .iter()
                .any(|(other, _)| &self.bytes[other.clone()] == key)
            {
                self.attributes.push((name, value));
            }
        }
    }
}

/// What the tokenizer does after a start tag, as a browser's tree builder would tell it.
fn next_state(name: &[u8], noscript_is_markup: impl FnOnce() -> bool) -> Option<State> {
    match name {
        b"title" | b"textarea" => Some(State::RcData),
        b"script" => Some(State::ScriptData),
        b"style" | b"xmp" | b"iframe" | b"noembed" | b"noframes" => Some(State::RawText),
        b"noscript" if !noscript_is_markup() => Some(State::RawText),
        b"plaintext" => Some(State::PlainText),
        _ => None,
    }
}

impl<E: Events> Emitter for TagEmitter<'_, E> {
    type Token = ();

    fn set_last_start_tag(&mut self, last_start_tag: Option<&[u8]>) {
        self.last_start.clear();
        self.last_start.extend(last_start_tag.unwrap_or_default());
    }

    fn emit_eof(&mut self) {}

    fn emit_error(&mut self, _: Error) {}

    #[inline]
    fn should_emit_errors(&mut self) -> bool {
        false
    }

    fn pop_token(&mut self) -> Option<()> {
        self.stop.then_some(())
    }

    fn emit_string(&mut self, text: &[u8]) {
        if !self.stop {
            self.events.text(text);
        }
    }

    fn init_start_tag(&mut self) {
        self.init_tag(false);
    }

    fn init_end_tag(&mut self) {
        self.init_tag(true);
    }

    fn init_comment(&mut self) {}

    fn emit_current_tag(&mut self) -> Option<State> {
        self.flush_attribute();
        if self.stop {
            return None;
        }
        if self.end {
            self.stop = self.events.end(&self.name) == Flow::Stop;
            return None;
        }
        self.last_start.clone_from(&self.name);
        let tag = Tag {
            name: &self.name,
            bytes: &self.bytes,
            attributes: &self.attributes,
        };
        self.stop = self.events.start(&tag) == Flow::Stop;
        let events = &mut self.events;
        next_state(&self.name, || events.noscript_is_markup())
    }

    fn emit_current_comment(&mut self) {}

    fn emit_current_doctype(&mut self) {}

    fn set_self_closing(&mut self) {}

    fn set_force_quirks(&mut self) {}

    fn push_tag_name(&mut self, s: &[u8]) {
        self.name.extend_from_slice(s);
    }

    fn push_comment(&mut self, _: &[u8]) {}

    fn push_doctype_name(&mut self, _: &[u8]) {}

    fn init_doctype(&mut self) {}

    fn init_attribute(&mut self) {
        self.flush_attribute();
        let (end, name, events) = (self.end, &self.name, &mut self.events);
        let keep = *self
            .keep_attributes
            .get_or_insert_with(|| !end && events.wants_attributes(name));
        if keep {
            let at = self.bytes.len();
            self.attribute = Some((at..at, at..at));
        }
    }

    fn push_attribute_name(&mut self, s: &[u8]) {
        if let Some((name, value)) = &mut self.attribute {
            self.bytes.extend_from_slice(s);
            name.end = self.bytes.len();
            *value = name.end..name.end;
        }
    }

    fn push_attribute_value(&mut self, s: &[u8]) {
        if let Some((_, value)) = &mut self.attribute {
            self.bytes.extend_from_slice(s);
            value.end = self.bytes.len();
        }
    }

    fn set_doctype_public_identifier(&mut self, _: &[u8]) {}

    fn set_doctype_system_identifier(&mut self, _: &[u8]) {}

    fn push_doctype_public_identifier(&mut self, _: &[u8]) {}

    fn push_doctype_system_identifier(&mut self, _: &[u8]) {}

    fn current_is_appropriate_end_tag_token(&mut self) -> bool {
        self.end && !self.last_start.is_empty() && self.name == self.last_start
    }
}
