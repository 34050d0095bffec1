//! W3C Datetime, as the sitemap schema and search engines take it: the two forms sitemapgen
//! writes, their instants, and dates from elsewhere made into one of them.

use time::format_description::well_known::Rfc3339;
use time::macros::format_description;
use time::{Date, OffsetDateTime, Time};

/// `YYYY-MM-DD`, or `YYYY-MM-DDThh:mm:ss[.s]TZD` with TZD `Z` or `±hh:mm`: the two W3C
/// Datetime forms that every search engine accepts (a time without a zone is not one), within
/// what the XSD's types allow: a year from 0001, a zone offset of at most 14 hours.
pub fn is_w3c_date(text: &str) -> bool {
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

/// The instant a W3C date names, to compare dates written in different zones; a date alone
/// counts as its midnight in UTC.
pub fn instant(text: &str) -> Option<OffsetDateTime> {
    if text.len() == 10 {
        let date = Date::parse(text, format_description!("[year]-[month]-[day]")).ok()?;
        return Some(date.midnight().assume_utc());
    }
    OffsetDateTime::parse(text, &Rfc3339).ok()
}

/// A date from elsewhere (git, a plugin) in a W3C form the schema takes: as it is if it is
/// one; else an ISO 8601 date as git prints or takes it (`%cI`, `%ci`: a space for the `T`
/// or before the zone, a zone `Z`, `±hh`, `±hhmm` or `±hh:mm`, its hours and its minutes up
/// to 99 as git reads them) with its zone written `±hh:mm`, or moved to UTC where it is
/// beyond the schema's 14 hours; None otherwise (no zone, a year before 0001).
pub fn w3c_form(text: &str) -> Option<String> {
    if is_w3c_date(text) {
        return Some(text.to_string());
    }
    let (date, rest) = text.split_at_checked(10)?;
    let (clock, rest) = rest.strip_prefix(['T', ' '])?.split_at_checked(8)?;
    let date = Date::parse(date, format_description!("[year]-[month]-[day]")).ok()?;
    let clock = Time::parse(clock, format_description!("[hour]:[minute]:[second]")).ok()?;
    let digits = |s: &str| !s.is_empty() && s.bytes().all(|b| b.is_ascii_digit());
    let (fraction, zone) = match rest.strip_prefix('.') {
        Some(rest) => rest.split_at(
            rest.find(|c: char| !c.is_ascii_digit())
                .unwrap_or(rest.len()),
        ),
        None => ("", rest),
    };
    let fraction = match fraction {
        "" if rest.starts_with('.') => return None,
        "" => String::new(),
        digits => format!(".{digits}"),
    };
    let zone = zone.strip_prefix(' ').unwrap_or(zone);
    let (sign, hhmm) = match zone.split_at_checked(1)? {
        ("Z", "") => (1, "0000"),
        ("+", hhmm) => (1, hhmm),
        ("-", hhmm) => (-1, hhmm),
        _ => return None,
    };
    let (hours, minutes) = match hhmm.len() {
        2 => (hhmm, "00"),
        4 => hhmm.split_at(2),
        5 if hhmm.as_bytes()[2] == b':' => (&hhmm[..2], &hhmm[3..]),
        _ => return None,
    };
    if !digits(hours) || !digits(minutes) {
        return None;
    }
    let (hours, minutes) = (hours.parse::<i64>().ok()?, minutes.parse::<i64>().ok()?);
    let offset = sign * (hours * 60 + minutes);
    let local = date.with_time(clock);
    let seconds = format_description!("[year]-[month]-[day]T[hour]:[minute]:[second]");
    let written = match minutes < 60 && hours <= 14 && offset.abs() <= 14 * 60 {
        true => {
            let sign = if sign < 0 && offset != 0 { '-' } else { '+' };
            let at = local.format(seconds).ok()?;
            format!("{at}{fraction}{sign}{hours:02}:{minutes:02}")
        }
        false => {
            let at = (local.assume_utc() - time::Duration::minutes(offset))
                .format(seconds)
                .ok()?;
            format!("{at}{fraction}+00:00")
        }
    };
    Some(written).filter(|date| is_w3c_date(date))
}

/// An mtime (seconds since the epoch) as `YYYY-MM-DDThh:mm:ss+00:00`, or None outside
/// 1970..=9999: a page cannot have changed before the epoch, and W3C years have four digits.
pub fn format_mtime(seconds: i64) -> Option<String> {
    let when = OffsetDateTime::from_unix_timestamp(seconds).ok()?;
    let year = u32::try_from(when.year()).ok().filter(|year| *year <= 9999);
    let (Some(year), false) = (year, seconds < 0) else {
        return None;
    };
    // Digit by digit: once per page, where time's formatter cost a tenth of a --no-html run.
    let mut text = String::with_capacity(25);
    let (hour, minute, second) = when.to_hms();
    let fields = [
        (year, 4, '-'),
        (u32::from(u8::from(when.month())), 2, '-'),
        (u32::from(when.day()), 2, 'T'),
        (u32::from(hour), 2, ':'),
        (u32::from(minute), 2, ':'),
        (u32::from(second), 2, '+'),
    ];
    for (value, width, then) in fields {
        for place in (0..width).rev() {
            let digit = (value / 10u32.pow(place)) % 10;
            text.push(char::from(b'0' + digit as u8));
        }
        text.push(then);
    }
    text.push_str("00:00");
    Some(text)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn mtimes_are_utc_with_an_explicit_zone() {
        assert_eq!(format_mtime(0).unwrap(), "1970-01-01T00:00:00+00:00");
        assert_eq!(
            format_mtime(1_714_557_600).unwrap(),
            "2024-05-01T10:00:00+00:00"
        );
        assert_eq!(format_mtime(-1), None);
        assert_eq!(format_mtime(253_402_300_800), None, "year 10000");
        // Every field's every digit, as time's own formatter writes them.
        let format = format_description!("[year]-[month]-[day]T[hour]:[minute]:[second]+00:00");
        let mut seconds = 0;
        while seconds < 253_402_300_800 {
            let when = OffsetDateTime::from_unix_timestamp(seconds).unwrap();
            assert_eq!(format_mtime(seconds), when.format(format).ok(), "{seconds}");
            seconds += 7_777_777;
        }
        assert_eq!(
            format_mtime(253_402_300_799).unwrap(),
            "9999-12-31T23:59:59+00:00"
        );
    }

    #[test]
    fn dates_from_git_are_made_valid_and_compared_as_instants() {
        let ok = "2024-05-01T10:00:00+02:00";
        assert_eq!(w3c_form(ok).as_deref(), Some(ok));
        assert_eq!(
            w3c_form("2024-05-01T10:00:00+15:00").as_deref(),
            Some("2024-04-30T19:00:00+00:00")
        );
        assert_eq!(w3c_form("0000-01-01T00:00:00+00:00"), None);
        assert_eq!(w3c_form("yesterday"), None);
        // Every zone git prints (%cI, %ci) or takes (GIT_COMMITTER_DATE), in one W3C form.
        for (given, written) in [
            ("2024-05-01T10:00:00+1500", "2024-04-30T19:00:00+00:00"),
            ("2024-05-01 10:00:00 +1500", "2024-04-30T19:00:00+00:00"),
            ("2024-05-01T10:00:00+15", "2024-04-30T19:00:00+00:00"),
            ("2024-05-01T10:00:00+0200", "2024-05-01T10:00:00+02:00"),
            ("2024-05-01 10:00:00 -0530", "2024-05-01T10:00:00-05:30"),
            ("2024-05-01T10:00:00-0000", "2024-05-01T10:00:00+00:00"),
            ("2024-05-01T10:00:00 Z", "2024-05-01T10:00:00+00:00"),
            ("2024-05-01 10:00:00Z", "2024-05-01T10:00:00+00:00"),
            ("2024-05-01T11:15:00+00:75", "2024-05-01T10:00:00+00:00"),
            ("2024-05-05T13:59:00+99:59", "2024-05-01T10:00:00+00:00"),
            ("2024-04-30T19:30:00-14:30", "2024-05-01T10:00:00+00:00"),
            (
                "2024-05-01T10:00:00.25+1500",
                "2024-04-30T19:00:00.25+00:00",
            ),
        ] {
            assert_eq!(w3c_form(given).as_deref(), Some(written), "{given}");
        }
        for bad in [
            "2024-05-01T10:00:00",
            "2024-05-01 10:00:00",
            "2024-05-01T10:00:00+1",
            "2024-05-01T10:00:00+150",
            "2024-05-01T10:00:00+15:0",
            "2024-05-01T10:00:00+1a00",
            "2024-05-01T10:00:00.+00:00",
            "2024-05-01T10:00:00  +0000",
            "2024-05-01t10:00:00+0000",
            "0001-01-01T00:00:00+1500",
        ] {
            assert_eq!(w3c_form(bad), None, "{bad}");
        }
        assert!(
            instant("2024-05-01T05:00:00-05:00")
                < instant("2024-05-01T10:00:00+09:00").map(|t| t + time::Duration::hours(24))
        );
        assert!(instant("2024-05-01T05:00:00-05:00") > instant("2024-05-01T10:00:00+09:00"));
        assert!(instant("2024-05-02") > instant("2024-05-01T23:00:00Z"));
    }
}
