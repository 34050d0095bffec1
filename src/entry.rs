//! One URL of a sitemap, as decided and as written: the one record the pipe hands on.

use std::path::PathBuf;

/// A sub-build (`--sub-builds`): its folder relative to DIR and the name of its sitemap
/// there, which the index lists as one of its entries. Found by the walk's `builds`, read by
/// the sitemap's `foreign`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SubBuild {
    pub rel: PathBuf,
    pub sitemap: &'static str,
}

/// The group whose sitemap lists a URL (`--group`), as `GroupRules::group` issues it: a
/// named group, by its place among the groups' names, or the default group (`pages`: what no
/// group takes, and every URL without `--group`), whose sitemap the index lists last.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum Group {
    Named(usize),
    #[default]
    Default,
}

impl Group {
    /// Its place among `count` groups' sitemaps (the named groups', then the default
    /// group's, as `Files::groups` lists them); none past them.
    pub fn place(self, count: usize) -> Option<usize> {
        match self {
            Group::Named(i) => (i + 1 < count).then_some(i),
            Group::Default => count.checked_sub(1),
        }
    }
}

/// An hreflang alternate: `<xhtml:link rel="alternate" hreflang href>`.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Alternate {
    pub lang: String,
    pub href: String,
}

/// One `<url>` (or, in an index, one `<sitemap>`): `loc` is an encoded absolute URL, the
/// rest already validated. An index entry has no changefreq, priority, alternates or images.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Entry {
    pub loc: String,
    pub lastmod: Option<String>,
    pub changefreq: Option<String>,
    pub priority: Option<String>,
    pub alternates: Vec<Alternate>,
    /// `<image:image><image:loc>`: encoded absolute URLs, at most 1,000.
    pub images: Vec<String>,
    /// The group whose sitemap lists it (`--group`).
    pub group: Group,
}

#[cfg(test)]
mod tests {
    use super::Group;

    #[test]
    fn the_default_group_is_the_last_of_the_sitemaps_and_a_named_one_its_own() {
        // No --group: one sitemap, the default group's.
        assert_eq!(Group::Default.place(1), Some(0));
        assert_eq!(Group::Named(0).place(1), None);
        // blog, news, then the default group's sitemap.
        assert_eq!(Group::Named(1).place(3), Some(1));
        assert_eq!(Group::Default.place(3), Some(2));
        assert_eq!(Group::Named(2).place(3), None);
        assert_eq!(Group::Default.place(0), None);
    }
}
