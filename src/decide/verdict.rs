//! What a page's head means for its URL: left out (noindex, a redirect stub, a duplicate of
//! another page, a page whose canonical URL lies elsewhere), or listed, at the URL the site
//! declares for it, with its alternates resolved.
//!
//! URLs are compared after RFC 3986 §6.2.2 normalisation (host in lower case, escapes in
//! upper case, escaped unreserved characters decoded), so `caf%c3%a9.html` is the page
//! `caf%C3%A9.html`, and `%7Ew.html` the page `~w.html`.

use crate::report::shown;
use url::{ParseError, Url};

use crate::entry::Alternate;
use crate::html;
use crate::scan::head::Head;
use crate::url::normal_path;

/// What a page's head means for its URL.
#[derive(Debug, PartialEq, Eq)]
pub enum Verdict {
    /// Listed, with its alternates resolved to absolute URLs.
    Keep {
        alternates: Vec<Alternate>,
        form: Form,
    },
    Noindex,
    Redirect(String),
    /// Another page of the site is the canonical one.
    Canonical(String),
    /// The canonical URL is another page outside the base URL (another host, scheme or path
    /// prefix).
    Elsewhere(Url),
    /// An error page (named for its HTTP status, `1.0/404.html`) that does not name itself
    /// as its canonical URL, as a page about errors would.
    ErrorPage,
    /// An app shell, an SPA's fallback for unknown paths (nuxt's `200.html`): no title and
    /// no text.
    Shell,
}

/// The URL a listed page declares for itself.
#[derive(Debug, PartialEq, Eq)]
pub enum Form {
    /// Its own URL as computed, or none declared.
    Computed,
    /// Its own URL in another form (`/docs/intro` for `/docs/intro/`, `/index.html` for
    /// `/`): the path, relative to the base URL, to list it at.
    Declared(String),
    /// Its own URL's path on another host or scheme: the base URL and the site disagree.
    OtherHost(Url),
}

/// Judges the head of the page whose URL is `loc`, in the sitemap of `base`; the second
/// value lists what in the head was unusable and ignored.
pub fn judge(head: Head, loc: &str, base: &Url) -> Result<(Verdict, Vec<String>), ParseError> {
    // Most heads name no URL, or only the page's own exactly as computed: nothing to parse.
    if is_plain(&head, loc) {
        let keep = Verdict::Keep {
            alternates: Vec::new(),
            form: Form::Computed,
        };
        return Ok((keep, Vec::new()));
    }
    Ok(judge_at(head, &Url::parse(loc)?, base))
}

/// Whether a head says nothing but that the page at `loc` is listed at it: no redirect, no
/// noindex, no alternates, and no canonical URL but `loc` as written.
fn is_plain(head: &Head, loc: &str) -> bool {
    !head.noindex
        && head.redirect.is_none()
        && head.alternates.is_empty()
        && head.canonicals.iter().all(|canonical| canonical == loc)
}

/// `judge`, for the page at `page`.
fn judge_at(head: Head, page: &Url, base: &Url) -> (Verdict, Vec<String>) {
    let mut ignored = Vec::new();
    let mut resolve = |what: &str, href: &str| match page.join(href) {
        Ok(url) if matches!(url.scheme(), "http" | "https") => Some(url),
        _ => {
            ignored.push(format!("{what} \"{}\" is not an http(s) URL", shown(href)));
            None
        }
    };
    // A redirect stub that is noindex too (Hugo's aliases, jekyll-redirect-from) is a
    // redirect for the summary.
    if let Some(target) = &head.redirect {
        let target =
            resolve("the refresh target", target).map_or_else(|| shown(target), String::from);
        return (Verdict::Redirect(target), ignored);
    }
    if head.noindex {
        return (Verdict::Noindex, ignored);
    }
    let mut canonicals: Vec<Url> = Vec::new();
    for href in &head.canonicals {
        if let Some(url) = resolve("the canonical URL", href)
            && !canonicals.iter().any(|seen| normal(seen) == normal(&url))
        {
            canonicals.push(url);
        }
    }
    let (mut form, mut conflict) = (Form::Computed, None);
    match canonicals.as_slice() {
        [] => {}
        [canonical] => match place(canonical, page, base) {
            Place::Itself => {}
            Place::Declared(path) => form = Form::Declared(path),
            Place::OtherHost => form = Form::OtherHost(canonical.clone()),
            Place::OtherPage => return (Verdict::Canonical(canonical.to_string()), ignored),
            Place::Elsewhere => return (Verdict::Elsewhere(canonical.clone()), ignored),
        },
        // Google takes none of several that disagree; so does the sitemap.
        [first, second, ..] => {
            conflict = Some(format!(
                "its canonical URLs {first} and {second} conflict, so neither counts"
            ))
        }
    }
    let mut resolved = Vec::new();
    let own_lang = head.lang;
    for Alternate { lang, href } in head.alternates {
        if let Some(url) = resolve(&format!("the \"{}\" alternate", shown(&lang)), &href) {
            resolved.push(Alternate {
                lang,
                href: url.to_string(),
            });
        }
    }
    ignored.extend(conflict);
    let (resolved, bad): (Vec<_>, Vec<_>) = resolved
        .into_iter()
        .partition(|alternate| is_hreflang(&alternate.lang));
    for Alternate { lang, href } in bad {
        ignored.push(format!(
            "the alternate {href} has hreflang \"{}\", not a language tag",
            shown(&lang)
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
                "the \"{}\" alternate {} repeats the \"{}\" alternate {}",
                shown(&alternate.lang),
                alternate.href,
                shown(&first.lang),
                first.href
            )),
            None => alternates.push(alternate),
        }
    }
    if let Some(lang) = own_lang {
        name_itself(&mut alternates, lang, page);
    }
    (Verdict::Keep { alternates, form }, ignored)
}

/// Adds the page at `page` to its own alternates, in its `<html lang>`, when they name other
/// pages but not it (VuePress): Google wants each URL to list every alternate, itself too.
/// A language its alternates give another page is not its own (a theme's fixed `lang`).
fn name_itself(alternates: &mut Vec<Alternate>, lang: String, page: &Url) {
    let itself = |alternate: &Alternate| {
        Url::parse(&alternate.href).is_ok_and(|href| same_page(&href, page))
    };
    if alternates.is_empty()
        || !is_hreflang(&lang)
        || lang.eq_ignore_ascii_case("x-default")
        || alternates.iter().any(itself)
        || alternates
            .iter()
            .any(|alternate| alternate.lang.eq_ignore_ascii_case(&lang))
    {
        return;
    }
    alternates.push(Alternate {
        lang,
        href: page.to_string(),
    });
}

/// Whether two URLs are one page in any of its forms (`/a/`, `/a`, `/a/index.html`).
fn same_page(a: &Url, b: &Url) -> bool {
    let substance = |url: &Url| html::url_substance(&normal_path(url.path())).to_string();
    origin(a) == origin(b) && a.query() == b.query() && substance(a) == substance(b)
}

/// Where a canonical URL points, seen from the page at `page` in the sitemap of `base`.
enum Place {
    Itself,
    /// This page in another form, under the base URL: the normal path relative to it.
    Declared(String),
    /// This page's path on another host or scheme.
    OtherHost,
    /// Another page under the base URL.
    OtherPage,
    /// Another page outside the base URL.
    Elsewhere,
}

fn place(canonical: &Url, page: &Url, base: &Url) -> Place {
    let (canonical_path, page_path) = (normal_path(canonical.path()), normal_path(page.path()));
    let same_query = canonical.query() == page.query();
    if origin(canonical) == origin(page) && same_query {
        if canonical_path == page_path {
            return Place::Itself;
        }
        let base_path = normal_path(base.path());
        let same_page = html::url_substance(&canonical_path) == html::url_substance(&page_path);
        return match canonical_path.strip_prefix(&base_path) {
            Some(relative) if same_page => Place::Declared(relative.to_string()),
            Some(_) => Place::OtherPage,
            None => Place::Elsewhere,
        };
    }
    let same_page = html::url_substance(&canonical_path) == html::url_substance(&page_path);
    if same_page && same_query {
        Place::OtherHost
    } else {
        Place::Elsewhere
    }
}

/// Scheme, host and port, as the URL parser normalised them.
fn origin(url: &Url) -> (&str, Option<&str>, Option<u16>) {
    (url.scheme(), url.host_str(), url.port_or_known_default())
}

/// A URL after RFC 3986 §6.2.2 normalisation, to compare two.
fn normal(url: &Url) -> String {
    let mut normal = url.clone();
    normal.set_path(&normal_path(url.path()));
    normal.set_fragment(None);
    normal.into()
}

/// `en`, `en-GB`, `zh-Hant-TW`, `x-default`: letters, digits and hyphens.
pub fn is_hreflang(lang: &str) -> bool {
    !lang.is_empty()
        && lang.len() <= 35
        && lang.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'-')
        && !lang.starts_with('-')
}

/// The base URL a canonical URL suggests for the page at URL path `path` (relative to the
/// base URL): the canonical URL less the page's path, when it ends with it.
pub fn suggested_base(canonical: &Url, path: &str) -> Option<String> {
    let canonical_path = normal_path(canonical.path());
    let page = html::url_substance(path);
    let mut prefix = html::url_substance(&canonical_path)
        .strip_suffix(page)?
        .to_string();
    if page.is_empty() {
        prefix.push('/');
    }
    if !prefix.ends_with('/') {
        return None;
    }
    let mut base = canonical.clone();
    base.set_path(&prefix);
    base.set_query(None);
    base.set_fragment(None);
    Some(base.into())
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

    fn verdict_at(html: &str, page: &str) -> (Verdict, Vec<String>) {
        judge(
            head(html),
            page,
            &Url::parse("https://example.com/docs/").unwrap(),
        )
        .unwrap()
    }

    fn verdict(html: &str) -> (Verdict, Vec<String>) {
        verdict_at(html, "https://example.com/docs/a/")
    }

    fn keep(alternates: Vec<(&str, &str)>, form: Form) -> Verdict {
        Verdict::Keep {
            alternates: alternates
                .into_iter()
                .map(|(l, h)| alternate(l, h))
                .collect(),
            form,
        }
    }

    fn url(text: &str) -> Url {
        Url::parse(text).unwrap()
    }

    #[test]
    fn verdicts() {
        let cases = [
            (
                "<link rel=canonical href=/docs/a/>",
                keep(vec![], Form::Computed),
            ),
            (
                "<link rel=canonical href=https://EXAMPLE.com/docs/a/#top>",
                keep(vec![], Form::Computed),
            ),
            (
                "<link rel=canonical href=/docs/b/>",
                Verdict::Canonical("https://example.com/docs/b/".into()),
            ),
            (
                "<link rel=canonical href=http://www.example.com/docs/a>",
                keep(
                    vec![],
                    Form::OtherHost(url("http://www.example.com/docs/a")),
                ),
            ),
            (
                "<link rel=canonical href=../a.html>",
                keep(vec![], Form::Declared("a.html".into())),
            ),
            (
                "<link rel=canonical href=/docs/a/index.html>",
                keep(vec![], Form::Declared("a/index.html".into())),
            ),
            (
                "<link rel=canonical href=/blog/a/>",
                Verdict::Elsewhere(url("https://example.com/blog/a/")),
            ),
            (
                "<link rel=canonical href=https://mirror.example.org/x/>",
                Verdict::Elsewhere(url("https://mirror.example.org/x/")),
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
                "<meta name=robots content=noindex><meta http-equiv=refresh content='0;url=/x'>",
                Verdict::Redirect("https://example.com/x".into()),
            ),
            (
                "<link rel=alternate hreflang=de href=../../de/a/><link rel=alternate hreflang=x-default href=.>",
                keep(
                    vec![
                        ("de", "https://example.com/de/a/"),
                        ("x-default", "https://example.com/docs/a/"),
                    ],
                    Form::Computed,
                ),
            ),
        ];
        for (page, expected) in cases {
            assert_eq!(verdict(page).0, expected, "{page}");
        }
        let (kept, ignored) = verdict(
            "<link rel=alternate hreflang='e n' href=/x><link rel=alternate hreflang=fr href='mailto:a@b'>",
        );
        assert_eq!(kept, keep(vec![], Form::Computed));
        assert_eq!(ignored.len(), 2, "{ignored:?}");
    }

    #[test]
    fn a_canonical_url_in_another_spelling_is_the_page_itself() {
        for (page, canonical) in [
            ("https://example.com/docs/caf%C3%A9.html", "caf%c3%a9.html"),
            ("https://example.com/docs/y(1).html", "y%281%29.html"),
            ("https://example.com/docs/~w.html", "%7Ew.html"),
            ("https://example.com/docs/e.html", "%65.html"),
        ] {
            let html = format!("<link rel=canonical href='{canonical}'>");
            let (verdict, _) = verdict_at(&html, page);
            assert!(
                matches!(
                    verdict,
                    Verdict::Keep {
                        form: Form::Computed,
                        ..
                    }
                ),
                "{canonical} for {page}: {verdict:?}"
            );
        }
    }

    #[test]
    fn a_head_judged_without_parsing_is_judged_as_parsed() {
        let base = url("https://example.com/docs/");
        let pages = [
            "https://example.com/docs/",
            "https://example.com/docs/a/",
            "https://example.com/docs/caf%C3%A9.html",
            "https://example.com/docs/y(1).html",
            "https://example.com/docs/a%20b/index.html",
        ];
        for page in pages {
            let heads = [
                String::new(),
                format!("<link rel=canonical href='{page}'>"),
                format!("<link rel=canonical href=' {page}\n'><link rel=canonical href={page}>"),
                format!("<meta name=description content=x><link rel=canonical href='{page}'>"),
            ];
            for html in heads {
                assert!(is_plain(&head(&html), page), "{html}");
                let parsed = judge_at(head(&html), &url(page), &base);
                assert_eq!(judge(head(&html), page, &base).unwrap(), parsed, "{html}");
                assert_eq!(parsed, (keep(vec![], Form::Computed), vec![]), "{html}");
            }
            for html in [
                format!("<link rel=canonical href='{page}#top'>"),
                format!("<link rel=canonical href='{page}'><meta name=robots content=noindex>"),
                format!("<link rel=alternate hreflang=de href='{page}'>"),
                "<meta http-equiv=refresh content='0; url=/x/'>".to_string(),
                "<link rel=canonical href=/docs/>".to_string(),
            ] {
                assert!(!is_plain(&head(&html), page), "{html}");
            }
        }
    }

    #[test]
    fn conflicting_canonical_urls_count_for_none() {
        let (kept, ignored) =
            verdict("<link rel=canonical href=/docs/b/><link rel=canonical href=/docs/c/>");
        assert_eq!(kept, keep(vec![], Form::Computed));
        assert!(ignored[0].contains("conflict"), "{ignored:?}");
        // The same URL twice is no conflict.
        let (other, ignored) =
            verdict("<link rel=canonical href=/docs/b/><link rel=canonical href=/docs/b/>");
        assert_eq!(
            other,
            Verdict::Canonical("https://example.com/docs/b/".into())
        );
        assert!(ignored.is_empty());
    }

    #[test]
    fn a_page_that_names_only_its_alternates_names_itself_in_its_language() {
        let alternates = |html: &str| match verdict_at(html, "https://example.com/docs/") {
            (Verdict::Keep { alternates, .. }, _) => alternates,
            other => panic!("{other:?}"),
        };
        // VuePress: the other locale in the head, its own in `<html lang>`.
        assert_eq!(
            alternates("<html lang=en-US><link rel=alternate hreflang=zh-cn href=/docs/zh/>"),
            [
                alternate("zh-cn", "https://example.com/docs/zh/"),
                alternate("en-US", "https://example.com/docs/"),
            ]
        );
        for html in [
            // Named already, in any form.
            "<html lang=en><link rel=alternate hreflang=en href=/docs/index.html>\
             <link rel=alternate hreflang=de href=/docs/de/>",
            // A language its alternates give another page.
            "<html lang=de><link rel=alternate hreflang=de href=/docs/de/>",
            // No language, or none that is a tag.
            "<html><link rel=alternate hreflang=de href=/docs/de/>",
            "<html lang='e n'><link rel=alternate hreflang=de href=/docs/de/>",
        ] {
            let own = alternates(html)
                .into_iter()
                .filter(|a| a.href == "https://example.com/docs/")
                .count();
            assert!(own <= 1, "{html}");
            assert!(!alternates(html).iter().any(|a| a.lang == "e n"), "{html}");
        }
        assert_eq!(
            alternates("<html lang=de><link rel=alternate hreflang=de href=/docs/de/>").len(),
            1
        );
        // No alternates: nothing to add to.
        assert!(alternates("<html lang=en>").is_empty());
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
