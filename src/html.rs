//! What sitemapgen knows of HTML file names: which files are pages whose heads it reads,
//! which stand for their directory, and what `--clean-urls` strips.

use std::path::Path;

/// The default `--include` globs.
pub const PAGE_GLOBS: &[&str] = &["*.html", "*.htm"];

/// The file names that stand for their directory, in the order they win a tie.
pub const INDEX_NAMES: [&[u8]; 2] = [b"index.html", b"index.htm"];

/// Where `name` ranks among a directory's index files (None if it is not one).
pub fn index_rank(name: &[u8]) -> Option<usize> {
    INDEX_NAMES.iter().position(|index| *index == name)
}

/// `.html` and `.htm` files, in any case: the pages whose heads are read.
pub fn is_page(rel: &Path) -> bool {
    rel.extension()
        .map(|ext| ext.as_encoded_bytes())
        .is_some_and(|ext| ext.eq_ignore_ascii_case(b"html") || ext.eq_ignore_ascii_case(b"htm"))
}

/// Whether the page at `rel` is named for an HTTP error status, 400 to 599: `404.html`, or
/// `404/index.html` (a page built as a directory index), at any depth.
pub fn is_error_page(rel: &Path) -> bool {
    let mut parts = rel.iter().rev().map(|part| part.as_encoded_bytes());
    let name = match parts.next() {
        Some(name) if index_rank(name).is_some() => parts.next(),
        Some(name) => stem(name),
        None => None,
    };
    name.is_some_and(|name| matches!(name, [b'4' | b'5', b'0'..=b'9', b'0'..=b'9']))
}

/// `about` for `about.html` or `about.htm`; None for other names and for a bare `.html`.
pub fn stem(name: &[u8]) -> Option<&[u8]> {
    [b".html".as_slice(), b".htm"]
        .iter()
        .find_map(|ext| name.strip_suffix(*ext))
        .filter(|stem| !stem.is_empty())
}

/// A URL path without what only its form adds: an index file name, an `.html`/`.htm`
/// extension, a final `/`. `docs/index.html`, `docs/`, `docs.html` and `docs` are all `docs`.
pub fn url_substance(path: &str) -> &str {
    let mut path = path;
    for index in ["index.html", "index.htm"] {
        if let Some(rest) = path.strip_suffix(index)
            && (rest.is_empty() || rest.ends_with('/'))
        {
            path = rest;
        }
    }
    for suffix in [".html", ".htm", "/"] {
        path = path.strip_suffix(suffix).unwrap_or(path);
    }
    path
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_substance_of_a_url_path_is_what_its_forms_share() {
        for form in ["docs/index.html", "docs/", "docs.html", "docs", "docs.htm"] {
            assert_eq!(url_substance(form), "docs", "{form}");
        }
        assert_eq!(url_substance("index.html"), "");
        assert_eq!(url_substance("docs/myindex.html"), "docs/myindex");
        assert_eq!(url_substance("a/b/index.htm"), "a/b");
    }

    #[test]
    fn error_pages_are_named_for_a_status() {
        for rel in [
            "404.html",
            "1.0/404.html",
            "v2/en/500.htm",
            "x/404/index.html",
            "410.html",
        ] {
            assert!(is_error_page(Path::new(rel)), "{rel}");
        }
        for rel in [
            "index.html",
            "4040.html",
            "40.html",
            "200.html",
            "404.txt",
            "a/x404.html",
            "404",
        ] {
            assert!(!is_error_page(Path::new(rel)), "{rel}");
        }
    }
}
