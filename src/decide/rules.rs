//! The rules that give a listed page its values: `--changefreq` and `--priority` (the last
//! matching rule's value) and `--group` (the group whose sitemap lists it). Their globs match
//! as the walk's do (`walk::rules`), on the page's path under DIR.

use anyhow::{Context, Result, bail};
use globset::{Candidate, GlobSet, GlobSetBuilder};

use crate::entry::{Entry, Group};
use crate::outputs::{DEFAULT_GROUP, is_group_name};
use crate::walk::rules::compile;

/// The protocol's change frequencies.
pub const CHANGEFREQS: &[&str] = &[
    "always", "hourly", "daily", "weekly", "monthly", "yearly", "never",
];

/// `GLOB=VALUE` rules (`--changefreq`, `--priority`): the last matching rule wins.
#[derive(Debug)]
pub struct ValueRules {
    globs: GlobSet,
    values: Vec<String>,
}

/// A `GLOB=VALUE` rule of `--changefreq` or `--priority`, its value checked.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ValueRule {
    glob: String,
    value: String,
}

pub fn parse_changefreq_rule(rule: &str) -> Result<ValueRule> {
    parse_value_rule(rule, "--changefreq", parse_changefreq)
}

pub fn parse_priority_rule(rule: &str) -> Result<ValueRule> {
    parse_value_rule(rule, "--priority", parse_priority)
}

fn parse_value_rule(
    rule: &str,
    flag: &str,
    parse_value: fn(&str) -> Result<String>,
) -> Result<ValueRule> {
    let Some((glob, value)) = rule.rsplit_once('=') else {
        bail!("{flag} {rule:?} must have the form GLOB=VALUE");
    };
    if glob.ends_with('/') {
        bail!("{flag} {rule:?} names a directory; use {glob}**={value}");
    }
    compile(glob, flag)?;
    Ok(ValueRule {
        glob: glob.to_string(),
        value: parse_value(value).with_context(|| format!("{flag} {rule:?}"))?,
    })
}

/// A `NAME=GLOB` rule of `--group`, its name checked.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct GroupRule {
    name: String,
    glob: String,
}

pub fn parse_group_rule(rule: &str) -> Result<GroupRule> {
    let Some((name, glob)) = rule.split_once('=') else {
        bail!("--group {rule:?} must have the form NAME=GLOB");
    };
    if name == DEFAULT_GROUP {
        bail!(
            "--group {rule:?}: {DEFAULT_GROUP} is the default group's name (the pages no group \
             takes); name this group otherwise"
        );
    }
    if !is_group_name(name.as_bytes()) {
        bail!(
            "--group {rule:?}: a group's name is a letter, then letters, digits, _ and -, at \
             most 64, not ending in - or a - and digits (it names the file sitemap-{name}.xml)"
        );
    }
    if glob.ends_with('/') {
        bail!("--group {rule:?} names a directory; use {name}={glob}**");
    }
    compile(glob, "--group")?;
    Ok(GroupRule {
        name: name.to_string(),
        glob: glob.to_string(),
    })
}

/// What the globs give a page by its path under DIR: `--changefreq`, `--priority`, `--group`.
#[derive(Debug)]
pub struct PathRules {
    pub changefreq: ValueRules,
    pub priority: ValueRules,
    /// Which group's sitemap lists each page.
    pub groups: GroupRules,
}

impl PathRules {
    /// Whether no rule is given: then no page's path is matched.
    pub fn is_empty(&self) -> bool {
        self.changefreq.is_empty() && self.priority.is_empty() && self.groups.is_empty()
    }

    /// The entry of the page at `candidate` (None when no rule is given) before its URL and
    /// date are known: the values and the group its globs give.
    pub fn entry(&self, candidate: Option<&Candidate>) -> Entry {
        let value = |rules: &ValueRules| candidate.and_then(|c| rules.value(c)).map(String::from);
        Entry {
            changefreq: value(&self.changefreq),
            priority: value(&self.priority),
            group: candidate.map_or(Group::Default, |c| self.groups.group(c)),
            ..Entry::default()
        }
    }
}

/// `--group` rules: a name given again adds globs to its group; the last matching rule wins,
/// as for `--changefreq`.
#[derive(Debug, Default)]
pub struct GroupRules {
    globs: GlobSet,
    /// The group of each rule, by index into `names`.
    groups: Vec<usize>,
    /// The groups in the order their names first come, without the default group.
    names: Vec<String>,
}

impl GroupRules {
    pub fn new(rules: &[GroupRule]) -> Result<Self> {
        let mut globs = GlobSetBuilder::new();
        let mut names: Vec<String> = Vec::new();
        let mut groups = Vec::new();
        for rule in rules {
            globs.add(compile(&rule.glob, "--group")?);
            let group = match names.iter().position(|name| *name == rule.name) {
                Some(group) => group,
                None => {
                    names.push(rule.name.clone());
                    names.len() - 1
                }
            };
            groups.push(group);
        }
        Ok(GroupRules {
            globs: globs.build()?,
            groups,
            names,
        })
    }

    pub fn is_empty(&self) -> bool {
        self.names.is_empty()
    }

    /// The groups' names, without the default group.
    pub fn names(&self) -> &[String] {
        &self.names
    }

    /// The group of a page: the last matching rule's, else the default group.
    pub fn group(&self, candidate: &Candidate) -> Group {
        let last = self.globs.matches_candidate(candidate).into_iter().max();
        last.map_or(Group::Default, |rule| Group::Named(self.groups[rule]))
    }
}

impl ValueRules {
    pub fn new(rules: &[ValueRule], flag: &str) -> Result<Self> {
        let mut globs = GlobSetBuilder::new();
        for rule in rules {
            globs.add(compile(&rule.glob, flag)?);
        }
        Ok(ValueRules {
            globs: globs.build()?,
            values: rules.iter().map(|rule| rule.value.clone()).collect(),
        })
    }

    pub fn is_empty(&self) -> bool {
        self.globs.is_empty()
    }

    pub fn value(&self, candidate: &Candidate) -> Option<&str> {
        if self.globs.is_empty() {
            return None;
        }
        let last = self.globs.matches_candidate(candidate).into_iter().max()?;
        Some(&self.values[last])
    }
}

fn parse_changefreq(word: &str) -> Result<String> {
    if CHANGEFREQS.contains(&word) {
        Ok(word.to_string())
    } else {
        bail!("{word:?} is not one of {}", CHANGEFREQS.join(", "))
    }
}

/// A decimal from 0.0 to 1.0, written normalised: `.80` → `0.8`, `1` → `1.0`.
fn parse_priority(text: &str) -> Result<String> {
    let well_formed = !text.is_empty()
        && text != "."
        && text.bytes().all(|b| b.is_ascii_digit() || b == b'.')
        && text.bytes().filter(|&b| b == b'.').count() <= 1;
    let value: f64 = match text.parse() {
        Ok(value) if well_formed => value,
        _ => bail!("priority {text:?} is not a decimal number"),
    };
    if !(0.0..=1.0).contains(&value) {
        bail!("priority {text} is outside 0.0 to 1.0");
    }
    let mut written = value.to_string();
    if !written.contains('.') {
        written.push_str(".0");
    }
    Ok(written)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn last_matching_value_rule_wins() {
        let rules = ValueRules::new(
            &[
                parse_changefreq_rule("*=weekly").unwrap(),
                parse_changefreq_rule("blog/*=daily").unwrap(),
            ],
            "--changefreq",
        )
        .unwrap();
        assert_eq!(rules.value(&Candidate::new("blog/a.html")), Some("daily"));
        assert_eq!(rules.value(&Candidate::new("a.html")), Some("weekly"));
        assert!(parse_changefreq("Daily").is_err());
    }

    #[test]
    fn priorities_are_normalised_and_range_checked() {
        for (given, written) in [("0.8", "0.8"), (".80", "0.8"), ("1", "1.0"), ("0", "0.0")] {
            assert_eq!(parse_priority(given).unwrap(), written);
        }
        for bad in ["1.1", "-0.1", "0x1", "nan", "inf", "1e-1", "", ".", "0.5.1"] {
            assert!(parse_priority(bad).is_err(), "{bad} accepted");
        }
    }

    #[test]
    fn a_page_joins_the_group_of_the_last_matching_rule() {
        let rule = |text: &str| parse_group_rule(text).unwrap();
        let groups = GroupRules::new(&[
            rule("blog=blog/**"),
            rule("news=blog/news/**"),
            rule("blog=posts/*.html"),
        ])
        .unwrap();
        assert_eq!(groups.names(), ["blog", "news"]);
        let group = |rel: &str| groups.group(&Candidate::new(rel));
        assert_eq!(group("blog/a/index.html"), Group::Named(0));
        assert_eq!(group("blog/news/b.html"), Group::Named(1));
        assert_eq!(group("posts/c.html"), Group::Named(0));
        assert_eq!(group("about/index.html"), Group::Default);
        for bad in [
            "blog",
            "=blog/**",
            "pages=docs/**",
            "blog-2=x",
            "blog=docs/",
            "b=a[",
            "blog=",
        ] {
            assert!(parse_group_rule(bad).is_err(), "{bad}");
        }
    }
}
