//! What a page's head means for its URL: left out (noindex, a redirect stub, another page's
//! duplicate), or listed with its alternates resolved.

use url::Url;

use crate::entry::Alternate;
use crate::html;
use crate::scan::head::Head;

/// What a page's head means for its URL.
#[derive(Debug, PartialEq, Eq)]
pub enum Verdict {
    /// Listed, with its alternates resolved to absolute URLs. `canonical_form` is a canonical
    /// URL that differs from the page's own only in form (scheme, host, trailing slash,
    /// `.html`): the base URL or the slash options disagree with the site.
    Keep {
        alternates: Vec<Alternate>,
        canonical_form: Option<String>,
    },
    Noindex,
    Redirect(String),
    /// Another page is the canonical one.
    Canonical(String),
}

/// Judges the head of the page whose URL is `page`; the second value lists what in the head
/// was unusable and ignored.
pub fn judge(head: Head, page: &Url) -> (Verdict, Vec<String>) {
    let mut ignored = Vec::new();
    let mut resolve = |what: &str, href: &str| match page.join(href) {
        Ok(url) if matches!(url.scheme(), "http" | "https") => Some(url),
        _ => {
            ignored.push(format!("{what} {href:?} is not an http(s) URL"));
            None
        }
    };
    if head.noindex {
        return (Verdict::Noindex, ignored);
    }
    if let Some(target) = &head.redirect {
        let target = resolve("the refresh target", target).map_or(target.clone(), String::from);
        return (Verdict::Redirect(target), ignored);
    }
    let mut canonical_form = None;
    if let Some(canonical) = head
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
    let mut resolved = Vec::new();
    for Alternate { lang, href } in head.alternates {
        if let Some(url) = resolve(&format!("the {lang:?} alternate"), &href) {
            resolved.push(Alternate {
                lang,
                href: url.to_string(),
            });
        }
    }
    let (resolved, bad): (Vec<_>, Vec<_>) = resolved
        .into_iter()
        .partition(|alternate| is_hreflang(&alternate.lang));
    for Alternate { lang, href } in bad {
        ignored.push(format!(
            "the alternate {href} has hreflang {lang:?}, not a language tag"
        ));
    }
    // Language tags are case-insensitive: `EN` and `en` are one language, listed once.
    let mut alternates: Vec<Alternate> = Vec::with_capacity(resolved.len());
    for alternate in resolved {
        match alternates
            .iter()
            .find(|seen| seen.lang.eq_ignore_ascii_case(&alternate.lang))
        {
            Some(first) if first.href == alternate.href => {}
            Some(first) => ignored.push(format!(
                "the {:?} alternate {} repeats the {:?} alternate {}",
                alternate.lang, alternate.href, first.lang, first.href
            )),
            None => alternates.push(alternate),
        }
    }
    (
        Verdict::Keep {
            alternates,
            canonical_form,
        },
        ignored,
    )
}

/// Whether two URLs name the same page but for scheme, host, a trailing slash, an index
/// file or an `.html` extension.
fn same_in_substance(a: &Url, b: &Url) -> bool {
    let substance = |url: &Url| {
        (
            html::url_substance(url.path()).to_string(),
            url.query().map(String::from),
        )
    };
    substance(a) == substance(b)
}

/// `en`, `en-GB`, `zh-Hant-TW`, `x-default`: letters, digits and hyphens.
fn is_hreflang(lang: &str) -> bool {
    !lang.is_empty()
        && lang.len() <= 35
        && lang.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'-')
        && !lang.starts_with('-')
}

#[cfg(test)]
mod tests {
    use super::*;

    fn head(html: &str) -> Head {
        crate::scan::head::parse(html.as_bytes())
    }

    fn alternate(lang: &str, href: &str) -> Alternate {
        Alternate {
            lang: lang.into(),
            href: href.into(),
        }
    }

    fn verdict(html: &str) -> (Verdict, Vec<String>) {
        judge(
            head(html),
            &Url::parse("https://example.com/docs/a/").unwrap(),
        )
    }

    #[test]
    fn verdicts() {
        let keep = |alternates: Vec<(&str, &str)>, form: Option<&str>| Verdict::Keep {
            alternates: alternates
                .into_iter()
                .map(|(l, h)| alternate(l, h))
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
                alternate("de", "https://example.com/de/"),
                alternate("EN", "https://example.com/en/"),
                alternate("fr", "https://example.com/fr/"),
            ]
        );
        assert_eq!(ignored.len(), 1, "{ignored:?}");
        assert!(ignored[0].contains("/fr2/"), "{ignored:?}");
    }
}
