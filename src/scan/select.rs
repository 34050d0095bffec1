//! `--digest-region SELECTOR`: the small part of CSS selectors that names an element by its
//! own tag and attributes: `main`, `.content`, `#main-content`, `article.md-content__inner`,
//! `[role=main]`, `div[data-page]`, and lists of them joined by commas. No combinators: the
//! region is the element itself, wherever it sits.

use anyhow::{Result, bail};

use super::tokens::Tag;

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Selector {
    alternatives: Vec<Compound>,
    /// As given, for the state's record of the rules.
    text: String,
}

#[derive(Debug, Clone, PartialEq, Eq)]
struct Compound {
    name: Option<String>,
    conditions: Vec<Condition>,
}

#[derive(Debug, Clone, PartialEq, Eq)]
enum Condition {
    Class(String),
    Id(String),
    /// `[attr]` or `[attr=value]`.
    Attribute(String, Option<String>),
}

impl Selector {
    pub fn parse(text: &str) -> Result<Selector> {
        let alternatives = text
            .split(',')
            .map(|part| Compound::parse(part.trim()))
            .collect::<Result<Vec<_>>>()?;
        Ok(Selector {
            alternatives,
            text: text.to_string(),
        })
    }

    pub fn as_str(&self) -> &str {
        &self.text
    }

    /// Whether the start tag `tag` is an element the selector names.
    pub fn matches(&self, tag: &Tag) -> bool {
        self.alternatives
            .iter()
            .any(|compound| compound.matches(tag))
    }
}

impl Compound {
    fn parse(text: &str) -> Result<Compound> {
        let invalid = || {
            anyhow::anyhow!(
                "--digest-region {text:?} is not a selector this tool reads (tag, .class, #id, [attr] or [attr=value], joined without spaces)"
            )
        };
        if text.is_empty() {
            bail!(invalid());
        }
        let name_end = text.find(['.', '#', '[']).unwrap_or(text.len());
        let name = &text[..name_end];
        if !name.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'-') {
            bail!(invalid());
        }
        let mut conditions = Vec::new();
        let mut rest = &text[name_end..];
        while let Some(first) = rest.chars().next() {
            rest = &rest[1..];
            match first {
                '.' | '#' => {
                    let end = rest.find(['.', '#', '[']).unwrap_or(rest.len());
                    let word = &rest[..end];
                    if word.is_empty() || word.contains(char::is_whitespace) {
                        bail!(invalid());
                    }
                    conditions.push(if first == '.' {
                        Condition::Class(word.to_string())
                    } else {
                        Condition::Id(word.to_string())
                    });
                    rest = &rest[end..];
                }
                '[' => {
                    let end = rest.find(']').ok_or_else(invalid)?;
                    let inside = &rest[..end];
                    let (attribute, value) = match inside.split_once('=') {
                        Some((attribute, value)) => {
                            let value = value.trim_matches(['"', '\'']);
                            (attribute, Some(value.to_string()))
                        }
                        None => (inside, None),
                    };
                    if attribute.is_empty() || attribute.contains(char::is_whitespace) {
                        bail!(invalid());
                    }
                    conditions.push(Condition::Attribute(attribute.to_ascii_lowercase(), value));
                    rest = &rest[end + 1..];
                }
                _ => bail!(invalid()),
            }
        }
        Ok(Compound {
            name: (!name.is_empty()).then(|| name.to_ascii_lowercase()),
            conditions,
        })
    }

    fn matches(&self, tag: &Tag) -> bool {
        if self
            .name
            .as_ref()
            .is_some_and(|name| name.as_bytes() != tag.name)
        {
            return false;
        }
        self.conditions.iter().all(|condition| match condition {
            Condition::Class(class) => tag.attribute(b"class").is_some_and(|classes| {
                classes
                    .split(u8::is_ascii_whitespace)
                    .any(|word| word == class.as_bytes())
            }),
            Condition::Id(id) => tag.attribute(b"id") == Some(id.as_bytes()),
            Condition::Attribute(attribute, value) => {
                match (tag.attribute(attribute.as_bytes()), value) {
                    (Some(found), Some(value)) => found == value.as_bytes(),
                    (found, None) => found.is_some(),
                    (None, Some(_)) => false,
                }
            }
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn selectors_parse_or_are_refused() {
        for good in [
            "main",
            ".content",
            "#main-content",
            "article.md-content__inner.md-typeset",
            "[role=main]",
            "div[role='main']",
            "main, [role=main]",
            "div[data-page]",
        ] {
            assert!(Selector::parse(good).is_ok(), "{good}");
        }
        for bad in [
            "",
            "main article",
            "div > p",
            ".",
            "#",
            "[role=main",
            "a:hover",
            "*",
        ] {
            assert!(Selector::parse(bad).is_err(), "{bad}");
        }
    }
}
