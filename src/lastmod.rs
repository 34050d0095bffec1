//! What goes into `<lastmod>`.

use anyhow::{Result, bail};
use time::format_description::well_known::Rfc3339;
use time::macros::format_description;
use time::{Date, OffsetDateTime};

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum LastmodMode {
    /// The file's modification time, in UTC.
    Mtime,
    /// No `<lastmod>` at all.
    Omit,
    /// The same W3C date or datetime on every URL, written exactly as given.
    Fixed(String),
}

impl LastmodMode {
    pub fn parse(text: &str) -> Result<Self> {
        match text {
            "mtime" => Ok(LastmodMode::Mtime),
            "none" => Ok(LastmodMode::Omit),
            _ if is_w3c_date(text) => Ok(LastmodMode::Fixed(text.to_string())),
            _ => bail!(
                "--lastmod {text:?} is not mtime, none, a date (2024-05-01) or a datetime with \
                 seconds and zone (2024-05-01T10:00:00+02:00)"
            ),
        }
    }
}

/// `YYYY-MM-DD`, or `YYYY-MM-DDThh:mm:ss[.s]TZD` with TZD `Z` or `±hh:mm`: the two W3C
/// Datetime forms that every search engine accepts (a time without a zone is not one), within
/// what the XSD's types allow: a year from 0001, a zone offset of at most 14 hours.
fn is_w3c_date(text: &str) -> bool {
    let date = format_description!("[year]-[month]-[day]");
    if text.len() == 10 {
        return Date::parse(text, date).is_ok_and(|date| date.year() >= 1);
    }
    // RFC 3339 also allows a lower-case `t`/`z` and a space separator; W3C does not.
    text.len() > 10
        && text.as_bytes()[10] == b'T'
        && !text.bytes().any(|b| b.is_ascii_lowercase())
        && OffsetDateTime::parse(text, &Rfc3339).is_ok_and(|when| {
            when.year() >= 1 && when.offset().whole_minutes().unsigned_abs() <= 14 * 60
        })
}

/// An mtime (seconds since the epoch) as `YYYY-MM-DDThh:mm:ss+00:00`, or None outside
/// 1970..=9999: a page cannot have changed before the epoch, and W3C years have four digits.
pub fn format_mtime(seconds: i64) -> Option<String> {
    let format = format_description!("[year]-[month]-[day]T[hour]:[minute]:[second]+00:00");
    let when = OffsetDateTime::from_unix_timestamp(seconds).ok()?;
    if seconds < 0 || when.year() > 9999 {
        return None;
    }
    when.format(format).ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fixed_dates_must_be_w3c_with_a_zone() {
        for good in [
            "2024-05-01",
            "2024-05-01T10:00:00+02:00",
            "2024-05-01T10:00:00Z",
            "2024-05-01T10:00:00.25-05:30",
            "2024-05-01T10:00:00+14:00",
        ] {
            assert_eq!(
                LastmodMode::parse(good).unwrap(),
                LastmodMode::Fixed(good.into())
            );
        }
        for bad in [
            "2024-02-30",
            "2024-05",
            "2024-05-01T10:00:00",
            "2024-05-01T10:00Z",
            "2024-05-01t10:00:00z",
            "2024-05-01 10:00:00Z",
            "0000-01-01",
            "0000-01-01T10:00:00Z",
            "2024-05-01T10:00:00+14:01",
            "yesterday",
            "",
        ] {
            assert!(LastmodMode::parse(bad).is_err(), "{bad} accepted");
        }
    }

    #[test]
    fn mtimes_are_utc_with_an_explicit_zone() {
        assert_eq!(format_mtime(0).unwrap(), "1970-01-01T00:00:00+00:00");
        assert_eq!(
            format_mtime(1_714_557_600).unwrap(),
            "2024-05-01T10:00:00+00:00"
        );
        assert_eq!(format_mtime(-1), None);
        assert_eq!(format_mtime(253_402_300_800), None, "year 10000");
    }
}
