//! One URL of a sitemap, as decided and as written: the one record the pipe hands on.

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
    /// The group whose sitemap lists it (`--group`), by index; 0 when there are none.
    pub group: usize,
}
