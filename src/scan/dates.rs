//! The dates a page declares for itself (`--lastmod page`), as generators write them: Open
//! Graph's `article:modified_time` (Hugo, Docusaurus), JSON-LD's `dateModified` (jekyll-seo-tag,
//! Hugo themes), microdata's `itemprop="dateModified"`, `<meta name="last-modified">`,
//! Dublin Core's `dcterms.modified`; then the dates of publication when no modification is
//! declared. Each is made into a W3C Datetime the sitemap schema takes, or ignored.

use time::format_description::well_known::Rfc3339;
use time::macros::format_description;
use time::{Date, OffsetDateTime, PrimitiveDateTime, UtcOffset};

use crate::w3c;

/// Where a page declares a date, most telling first.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Source {
    OpenGraphModified,
    JsonLdModified,
    ItempropModified,
    LastModified,
    DublinCoreModified,
    JsonLdPublished,
    OpenGraphPublished,
    ItempropPublished,
    Date,
}

impl Source {
    /// The source a `<meta>` with this `name`, `property` or `itemprop` is.
    pub fn of_meta(key: &str) -> Option<Source> {
        Some(match key.to_ascii_lowercase().as_str() {
            "article:modified_time" | "og:updated_time" => Source::OpenGraphModified,
            "datemodified" => Source::ItempropModified,
            "last-modified" => Source::LastModified,
            "dcterms.modified" | "dc.date.modified" => Source::DublinCoreModified,
            "article:published_time" => Source::OpenGraphPublished,
            "datepublished" => Source::ItempropPublished,
            "date" | "dc.date" | "dcterms.date" => Source::Date,
            _ => return None,
        })
    }
}

/// The dates found in a page, the first of each source.
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub struct Declared {
    found: Vec<(Source, String)>,
}

impl Declared {
    /// Records `text` from `source`, if it is a date and the source has none yet.
    pub fn add(&mut self, source: Source, text: &str) {
        if self.found.iter().any(|(seen, _)| *seen == source) {
            return;
        }
        if let Some(date) = w3c_date(text) {
            self.found.push((source, date));
        }
    }

    /// The date the page declares: from the most telling source.
    pub fn date(&self) -> Option<&str> {
        self.found
            .iter()
            .min_by_key(|(source, _)| *source)
            .map(|(_, date)| date.as_str())
    }
}

/// A declared date as a W3C Datetime the schema takes: as written when it is one already;
/// else made into `YYYY-MM-DD`, or a datetime with seconds and a zone (a zone beyond ±14:00
/// moved to UTC). A time without a zone says nothing of the instant, so only its date is
/// kept. None for anything else.
pub fn w3c_date(text: &str) -> Option<String> {
    let text = text.trim();
    if w3c::is_w3c_date(text) {
        return Some(text.to_string());
    }
    let formats = [
        format_description!("[year]-[month]-[day]T[hour]:[minute]:[second]"),
        format_description!("[year]-[month]-[day]T[hour]:[minute]"),
        format_description!("[year]-[month]-[day] [hour]:[minute]:[second]"),
        format_description!("[year]-[month]-[day] [hour]:[minute]"),
    ];
    if let Ok(when) = OffsetDateTime::parse(text, &Rfc3339) {
        return format_instant(when);
    }
    // Jekyll's `2016-06-02 14:30:00 +0000`, and other spellings with a zone.
    let zoned = [
        format_description!(
            "[year]-[month]-[day] [hour]:[minute]:[second] [offset_hour sign:mandatory][offset_minute]"
        ),
        format_description!(
            "[year]-[month]-[day]T[hour]:[minute]:[second][offset_hour sign:mandatory][offset_minute]"
        ),
        format_description!(
            "[year]-[month]-[day]T[hour]:[minute][offset_hour sign:mandatory]:[offset_minute]"
        ),
    ];
    for format in zoned {
        if let Ok(when) = OffsetDateTime::parse(text, format) {
            return format_instant(when);
        }
    }
    let date = format_description!("[year]-[month]-[day]");
    for format in formats {
        if let Ok(local) = PrimitiveDateTime::parse(text, format) {
            return local
                .date()
                .format(date)
                .ok()
                .filter(|d| w3c::is_w3c_date(d));
        }
    }
    Date::parse(text.get(..10)?, date)
        .ok()
        .filter(|_| text.len() == 10)
        .and_then(|d| d.format(date).ok())
        .filter(|d| w3c::is_w3c_date(d))
}

fn format_instant(when: OffsetDateTime) -> Option<String> {
    let when = if when.offset().whole_hours().abs() > 14 {
        when.to_offset(UtcOffset::UTC)
    } else {
        when
    };
    let text = when.format(&Rfc3339).ok()?;
    // RFC 3339 writes UTC as `Z`; so does W3C. Both are taken.
    w3c::is_w3c_date(&text).then_some(text)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn declared_dates_are_made_w3c_or_ignored() {
        for (written, w3c) in [
            (
                "2021-12-23T17:47:41+01:00",
                Some("2021-12-23T17:47:41+01:00"),
            ),
            ("2021-08-26T00:00:00.000Z", Some("2021-08-26T00:00:00.000Z")),
            (
                "2016-05-20T00:00:00+00:00",
                Some("2016-05-20T00:00:00+00:00"),
            ),
            ("2016-06-02 14:30:00 +0000", Some("2016-06-02T14:30:00Z")),
            ("2016-07-15", Some("2016-07-15")),
            (" 2016-07-15T10:00 ", Some("2016-07-15")),
            ("2024-05-01T10:00:00+15:00", Some("2024-04-30T19:00:00Z")),
            ("yesterday", None),
            ("2024-13-01", None),
            ("0000-01-01", None),
            ("", None),
        ] {
            assert_eq!(w3c_date(written).as_deref(), w3c, "{written}");
        }
    }

    #[test]
    fn a_modification_date_wins_over_a_publication_date() {
        let mut declared = Declared::default();
        declared.add(Source::JsonLdPublished, "2020-01-01");
        declared.add(Source::ItempropModified, "not a date");
        assert_eq!(declared.date(), Some("2020-01-01"));
        declared.add(Source::ItempropModified, "2021-01-01");
        declared.add(Source::ItempropModified, "2022-01-01");
        assert_eq!(declared.date(), Some("2021-01-01"));
    }
}
