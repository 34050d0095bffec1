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
}
