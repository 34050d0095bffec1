//! Every sitemap a test writes goes through here: our own checks of the protocol's rules
//! (the ones the XSD cannot express), then xmllint against the official XSD.

use std::collections::HashSet;
use std::fs;
use std::io::{ErrorKind, Read};
use std::path::{Path, PathBuf};
use std::process::Command;

use xml::reader::{EventReader, XmlEvent};

pub const NS: &str = "http://www.sitemaps.org/schemas/sitemap/0.9";
pub const XHTML: &str = "http://www.w3.org/1999/xhtml";
pub const IMAGE: &str = "http://www.google.com/schemas/sitemap-image/1.1";
const MAX_IMAGES: usize = 1000;
const MAX_URLS: usize = 50_000;
const MAX_BYTES: usize = 52_428_800;
const CHANGEFREQS: &[&str] = &[
    "always", "hourly", "daily", "weekly", "monthly", "yearly", "never",
];

#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct UrlRecord {
    pub loc: String,
    pub lastmod: Option<String>,
    pub changefreq: Option<String>,
    pub priority: Option<String>,
    /// `<xhtml:link rel="alternate" hreflang href>`: (hreflang, href).
    pub alternates: Vec<(String, String)>,
    /// `<image:image><image:loc>`.
    pub images: Vec<String>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Root {
    Urlset,
    Index,
}

impl Root {
    fn names(self) -> (&'static str, &'static str, &'static [&'static str]) {
        match self {
            Root::Urlset => (
                "urlset",
                "url",
                &["loc", "lastmod", "changefreq", "priority"],
            ),
            Root::Index => ("sitemapindex", "sitemap", &["loc", "lastmod"]),
        }
    }

    /// A urlset with hreflang alternates is checked against the sitemap schema combined
    /// with our schema of `xhtml:link`; one with images, combined with Google's image schema.
    fn schema(self, alternates: bool, images: bool) -> PathBuf {
        schema(match (self, alternates, images) {
            (Root::Urlset, false, false) => "sitemap.xsd",
            (Root::Urlset, true, false) => "sitemap-xhtml.xsd",
            (Root::Urlset, false, true) => "sitemap-image.xsd",
            (Root::Urlset, true, true) => "sitemap-xhtml-image.xsd",
            (Root::Index, _, _) => "siteindex.xsd",
        })
    }
}

/// Validates the sitemap at `path`, whose URLs must all lie under `base`; returns its URLs.
#[track_caller]
pub fn sitemap(path: &Path, base: &str) -> Vec<UrlRecord> {
    document(path, base, Root::Urlset)
}

/// Validates the sitemap index at `path`; its shards must lie in its directory or below.
#[track_caller]
pub fn index(path: &Path, base: &str) -> Vec<UrlRecord> {
    document(path, base, Root::Index)
}

/// A `.gz` file is decompressed first; the checks are on the document inside.
#[track_caller]
fn document(path: &Path, base: &str, root: Root) -> Vec<UrlRecord> {
    let mut bytes = fs::read(path).unwrap_or_else(|e| panic!("read {}: {e}", path.display()));
    let plain;
    let checked_path = if path.extension().is_some_and(|ext| ext == "gz") {
        bytes = gunzip(&bytes);
        plain = tempfile::NamedTempFile::new().unwrap();
        fs::write(plain.path(), &bytes).unwrap();
        plain.path()
    } else {
        path
    };
    let urls = check(&bytes, base, root).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let alternates = urls.iter().any(|url| !url.alternates.is_empty());
    let images = urls.iter().any(|url| !url.images.is_empty());
    xmllint(checked_path, &root.schema(alternates, images));
    urls
}

pub fn gunzip(bytes: &[u8]) -> Vec<u8> {
    let mut plain = Vec::new();
    flate2::read::GzDecoder::new(bytes)
        .read_to_end(&mut plain)
        .expect("a valid gzip stream");
    plain
}

/// The same for a sitemap that went to standard output.
#[track_caller]
pub fn sitemap_bytes(bytes: &[u8], base: &str) -> Vec<UrlRecord> {
    let file = tempfile::NamedTempFile::new().unwrap();
    fs::write(file.path(), bytes).unwrap();
    sitemap(file.path(), base)
}

/// The validated sitemap's URLs relative to `base` (the site root is `""`).
#[track_caller]
pub fn listed(path: &Path, base: &str) -> Vec<String> {
    sitemap(path, base)
        .into_iter()
        .map(|url| url.loc.strip_prefix(base).unwrap().to_string())
        .collect()
}

/// The URLs of a sitemap some other tool wrote, read leniently (locs, lastmods, alternates):
/// generators' sitemaps are compared with ours, not validated.
pub fn parse_urls(bytes: &[u8]) -> Vec<UrlRecord> {
    let mut urls = Vec::new();
    let mut url = UrlRecord::default();
    let mut in_element = String::new();
    for event in EventReader::new(bytes) {
        match event.expect("well-formed XML") {
            XmlEvent::StartElement {
                name, attributes, ..
            } => {
                in_element = match name.namespace.as_deref() {
                    Some(NS) | None => name.local_name.clone(),
                    _ => String::new(),
                };
                if name.local_name == "link" {
                    let attr = |key: &str| {
                        attributes
                            .iter()
                            .find(|a| a.name.local_name == key)
                            .map(|a| a.value.clone())
                    };
                    if let (Some(lang), Some(href)) = (attr("hreflang"), attr("href")) {
                        url.alternates.push((lang, href));
                    }
                }
            }
            XmlEvent::Characters(text) => match in_element.as_str() {
                "loc" => url.loc = text.trim().to_string(),
                "lastmod" => url.lastmod = Some(text.trim().to_string()),
                _ => {}
            },
            XmlEvent::EndElement { name } => {
                in_element.clear();
                if name.local_name == "url" {
                    urls.push(std::mem::take(&mut url));
                }
            }
            _ => {}
        }
    }
    urls
}

pub fn locs(urls: &[UrlRecord]) -> Vec<&str> {
    urls.iter().map(|u| u.loc.as_str()).collect()
}

pub fn schema(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/schemas")
        .join(name)
}

/// xmllint's verdict against `xsd`. A missing xmllint fails the test: the XSD is the outside
/// oracle, never skipped.
#[track_caller]
pub fn xmllint(path: &Path, xsd: &Path) {
    let out = Command::new("xmllint")
        .arg("--noout")
        .arg("--schema")
        .arg(xsd)
        .arg(path)
        .output();
    match out {
        Ok(out) => assert!(
            out.status.success(),
            "xmllint rejects {}:\n{}\n{}",
            path.display(),
            String::from_utf8_lossy(&out.stderr),
            String::from_utf8_lossy(&fs::read(path).unwrap_or_default())
        ),
        Err(e) if e.kind() == ErrorKind::NotFound => {
            panic!("xmllint is not on PATH: install libxml2-utils (apt-get install libxml2-utils)")
        }
        Err(e) => panic!("cannot run xmllint: {e}"),
    }
}

/// The protocol's rules for a `urlset` or a `sitemapindex`.
pub fn check(bytes: &[u8], base: &str, root: Root) -> Result<Vec<UrlRecord>, String> {
    let (root_name, entry_name, children) = root.names();
    if bytes.len() > MAX_BYTES {
        return Err(format!("{} bytes, more than {MAX_BYTES}", bytes.len()));
    }
    let text = std::str::from_utf8(bytes).map_err(|e| format!("not UTF-8: {e}"))?;
    if !text.starts_with("<?xml version=\"1.0\" encoding=\"UTF-8\"?>") {
        return Err("no XML declaration with encoding UTF-8".into());
    }
    let mut urls: Vec<UrlRecord> = Vec::new();
    let mut path: Vec<String> = Vec::new();
    let mut text_buf = String::new();
    // Index into `children` of the last child seen.
    let mut last_child: Option<usize> = None;
    let mut declares_xhtml = false;
    let mut declares_image = false;
    let mut image_locs = 0;
    for event in EventReader::new(bytes) {
        match event.map_err(|e| format!("not well-formed: {e}"))? {
            XmlEvent::StartElement {
                name,
                attributes,
                namespace,
            } => {
                if path.is_empty() {
                    declares_xhtml = namespace.get("xhtml") == Some(XHTML);
                    declares_image = namespace.get("image") == Some(IMAGE);
                }
                // <image:image><image:loc>URL</image:loc></image:image>, after the protocol's
                // children, and nothing else of the extension.
                if root == Root::Urlset && name.namespace.as_deref() == Some(IMAGE) {
                    match (path.len(), name.local_name.as_str()) {
                        (2, "image") if last_child.is_some() => {
                            last_child = Some(children.len());
                            image_locs = 0;
                            path.push("image:image".into());
                        }
                        (3, "loc") if path[2] == "image:image" => {
                            path.push("image:loc".into());
                            text_buf.clear();
                        }
                        (depth, other) => {
                            return Err(format!("unexpected <image:{other}> at depth {depth}"));
                        }
                    }
                    continue;
                }
                if root == Root::Urlset
                    && path.len() == 2
                    && name.namespace.as_deref() == Some(XHTML)
                    && name.local_name == "link"
                {
                    let attr = |n: &str| {
                        attributes
                            .iter()
                            .find(|a| a.name.local_name == n && a.name.namespace.is_none())
                            .map(|a| a.value.clone())
                    };
                    if attr("rel").as_deref() != Some("alternate") {
                        return Err("an xhtml:link without rel=\"alternate\"".into());
                    }
                    let (Some(lang), Some(href)) = (attr("hreflang"), attr("href")) else {
                        return Err("an xhtml:link without hreflang and href".into());
                    };
                    check_loc(&href, base)?;
                    urls.last_mut().unwrap().alternates.push((lang, href));
                    last_child = Some(children.len());
                    path.push("xhtml:link".into());
                    continue;
                }
                if name.namespace.as_deref() != Some(NS) {
                    return Err(format!("element {} outside the sitemap namespace", name));
                }
                let local = name.local_name;
                match (path.len(), local.as_str()) {
                    (0, name) if name == root_name => {}
                    (1, name) if name == entry_name => {
                        urls.push(UrlRecord::default());
                        last_child = None;
                    }
                    (2, child) => {
                        let Some(index) = children.iter().position(|c| *c == child) else {
                            return Err(format!("unknown element <{child}> in <{entry_name}>"));
                        };
                        if last_child.is_some_and(|last| last >= index) {
                            // Also: a protocol child after an xhtml:link.
                            return Err(format!("<{child}> out of order or repeated"));
                        }
                        if index > 0 && last_child.is_none() {
                            return Err(format!("<{child}> before <loc>"));
                        }
                        last_child = Some(index);
                    }
                    (depth, other) => {
                        return Err(format!("unexpected <{other}> at depth {depth}"));
                    }
                }
                path.push(local);
                text_buf.clear();
            }
            XmlEvent::Characters(chars) => text_buf.push_str(&chars),
            XmlEvent::EndElement { .. } => {
                let local = path.pop().unwrap();
                if local == "xhtml:link" {
                    continue;
                }
                if local == "image:loc" {
                    let image = std::mem::take(&mut text_buf);
                    check_image_loc(&image)?;
                    image_locs += 1;
                    urls.last_mut().unwrap().images.push(image);
                    continue;
                }
                if local == "image:image" {
                    if image_locs != 1 {
                        return Err(format!("an image:image with {image_locs} image:loc"));
                    }
                    continue;
                }
                if path.len() == 2 {
                    let url = urls.last_mut().unwrap();
                    let value = std::mem::take(&mut text_buf);
                    match local.as_str() {
                        "loc" => url.loc = value,
                        "lastmod" => url.lastmod = Some(value),
                        "changefreq" => url.changefreq = Some(value),
                        _ => url.priority = Some(value),
                    }
                } else if path.len() == 1 && last_child.is_none() {
                    return Err(format!("a <{entry_name}> without <loc>"));
                }
            }
            _ => {}
        }
    }
    if urls.is_empty() {
        return Err(format!("no <{entry_name}> (the XSD requires one)"));
    }
    // Declared on the root, not element by element. (A shard may declare it unused: the
    // namespace is declared on every shard of a sitemap that has alternates anywhere.)
    if urls.iter().any(|url| !url.alternates.is_empty()) && !declares_xhtml {
        return Err("xhtml:link without the xhtml namespace declared on the root".into());
    }
    if urls.iter().any(|url| !url.images.is_empty()) && !declares_image {
        return Err("image:image without the image namespace declared on the root".into());
    }
    if urls.len() > MAX_URLS {
        return Err(format!("{} URLs, more than {MAX_URLS}", urls.len()));
    }
    let mut seen = HashSet::new();
    for url in &urls {
        check_loc(&url.loc, base)?;
        if url.images.len() > MAX_IMAGES {
            return Err(format!("{} has {} images", url.loc, url.images.len()));
        }
        let distinct: HashSet<&String> = url.images.iter().collect();
        if distinct.len() < url.images.len() {
            return Err(format!("{} lists an image twice", url.loc));
        }
        if !seen.insert(url.loc.as_str()) {
            return Err(format!("duplicate loc {}", url.loc));
        }
        if let Some(lastmod) = &url.lastmod
            && !is_w3c_datetime(lastmod)
        {
            return Err(format!(
                "lastmod {lastmod:?} is not a W3C date or datetime with zone"
            ));
        }
        if let Some(freq) = &url.changefreq
            && !CHANGEFREQS.contains(&freq.as_str())
        {
            return Err(format!("changefreq {freq:?}"));
        }
        if let Some(priority) = &url.priority
            && !priority
                .parse::<f64>()
                .is_ok_and(|p| (0.0..=1.0).contains(&p))
        {
            return Err(format!("priority {priority:?}"));
        }
    }
    Ok(urls)
}

/// Absolute, under `base` (one host and scheme), shorter than 2,048 characters, and RFC 3986
/// path characters only: no raw space, non-ASCII, control, `"`, `<`, `>`, `?` or `#`.
fn check_loc(loc: &str, base: &str) -> Result<(), String> {
    if !(base.starts_with("https://") || base.starts_with("http://")) || !loc.starts_with(base) {
        return Err(format!("loc {loc:?} is not under {base}"));
    }
    if loc.chars().count() >= 2048 {
        return Err(format!("loc of {} characters", loc.chars().count()));
    }
    let path = &loc.as_bytes()[base.len()..];
    for (i, &byte) in path.iter().enumerate() {
        let allowed = byte.is_ascii_alphanumeric() || b"-._~!$&'()*+,;=:@/%".contains(&byte);
        if !allowed {
            return Err(format!("loc {loc:?} has a raw {:?}", byte as char));
        }
        if byte == b'%'
            && !(path.len() > i + 2
                && path[i + 1].is_ascii_hexdigit()
                && path[i + 2].is_ascii_hexdigit())
        {
            return Err(format!("loc {loc:?} has a bare %"));
        }
    }
    Ok(())
}

/// An image's URL: absolute http(s) on any host, shorter than 2,048 characters, RFC 3986
/// characters only (a query may hold `?` and `/`), no fragment.
fn check_image_loc(loc: &str) -> Result<(), String> {
    let rest = ["https://", "http://"]
        .iter()
        .find_map(|scheme| loc.strip_prefix(scheme))
        .ok_or_else(|| format!("image {loc:?} is not an absolute http(s) URL"))?;
    let host_len = rest
        .find('/')
        .ok_or_else(|| format!("image {loc:?} has no path"))?;
    if host_len == 0 {
        return Err(format!("image {loc:?} has no host"));
    }
    if loc.len() >= 2048 {
        return Err(format!("image URL of {} characters", loc.len()));
    }
    let bytes = rest.as_bytes();
    for (i, &byte) in bytes.iter().enumerate() {
        let allowed = byte.is_ascii_alphanumeric() || b"-._~!$&'()*+,;=:@/%?".contains(&byte);
        if !allowed {
            return Err(format!("image {loc:?} has a raw {:?}", byte as char));
        }
        if byte == b'%'
            && !(bytes.len() > i + 2
                && bytes[i + 1].is_ascii_hexdigit()
                && bytes[i + 2].is_ascii_hexdigit())
        {
            return Err(format!("image {loc:?} has a bare %"));
        }
    }
    Ok(())
}

/// `YYYY-MM-DD` or `YYYY-MM-DDThh:mm:ss[.s+](Z|±hh:mm)`.
pub fn is_w3c_datetime(text: &str) -> bool {
    let b = text.as_bytes();
    let digits = |range: std::ops::Range<usize>| {
        b.get(range.clone())
            .is_some_and(|d| d.iter().all(u8::is_ascii_digit))
            .then(|| text[range].parse::<u32>().unwrap())
    };
    let date = b.len() >= 10
        && digits(0..4).is_some()
        && b[4] == b'-'
        && digits(5..7).is_some_and(|m| (1..=12).contains(&m))
        && b[7] == b'-'
        && digits(8..10).is_some_and(|d| (1..=31).contains(&d));
    if !date || b.len() == 10 {
        return date;
    }
    let time = b.len() >= 20
        && b[10] == b'T'
        && digits(11..13).is_some_and(|h| h < 24)
        && b[13] == b':'
        && digits(14..16).is_some_and(|m| m < 60)
        && b[16] == b':'
        && digits(17..19).is_some_and(|s| s < 60);
    if !time {
        return false;
    }
    let mut rest = &text[19..];
    if let Some(fraction) = rest.strip_prefix('.') {
        let len = fraction.bytes().take_while(u8::is_ascii_digit).count();
        if len == 0 {
            return false;
        }
        rest = &fraction[len..];
    }
    let zone = rest.as_bytes();
    rest == "Z"
        || (zone.len() == 6
            && (zone[0] == b'+' || zone[0] == b'-')
            && zone[1..3].iter().all(u8::is_ascii_digit)
            && zone[3] == b':'
            && zone[4..6].iter().all(u8::is_ascii_digit))
}

#[test]
fn the_validator_rejects_what_the_protocol_forbids() {
    let doc = |url: &str| {
        format!(
            "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<urlset xmlns=\"{NS}\" \
             xmlns:image=\"{IMAGE}\">{url}</urlset>"
        )
    };
    let ok = doc("<url><loc>https://example.com/a%20b</loc><lastmod>2024-05-01</lastmod></url>");
    assert!(check(ok.as_bytes(), "https://example.com/", Root::Urlset).is_ok());
    let ok = doc(
        "<url><loc>https://example.com/</loc><image:image><image:loc>https://cdn.example.net/a.png?w=1</image:loc></image:image></url>",
    );
    let urls = check(ok.as_bytes(), "https://example.com/", Root::Urlset).unwrap();
    assert_eq!(urls[0].images, ["https://cdn.example.net/a.png?w=1"]);
    for bad in [
        "<url><loc>https://example.com/a b</loc></url>",
        "<url><loc>https://example.com/caf\u{e9}</loc></url>",
        "<url><loc>https://example.com/q?x</loc></url>",
        "<url><loc>https://other.com/</loc></url>",
        "<url><loc>/relative</loc></url>",
        "<url><loc>https://example.com/100%</loc></url>",
        "<url><loc>https://example.com/</loc><lastmod>2024-05-01T10:00:00</lastmod></url>",
        "<url><lastmod>2024-05-01</lastmod><loc>https://example.com/</loc></url>",
        "<url><loc>https://example.com/</loc><changefreq>Daily</changefreq></url>",
        "<url><loc>https://example.com/</loc><priority>1.5</priority></url>",
        "<url><loc>https://example.com/</loc></url><url><loc>https://example.com/</loc></url>",
        "",
        "<url><loc>https://example.com/</loc><image:image><image:loc>https://example.com/a b.png</image:loc></image:image></url>",
        "<url><loc>https://example.com/</loc><image:image><image:loc>/a.png</image:loc></image:image></url>",
        "<url><loc>https://example.com/</loc><image:image><image:loc>https://example.com/a.png#x</image:loc></image:image></url>",
        "<url><loc>https://example.com/</loc><image:image></image:image></url>",
        "<url><loc>https://example.com/</loc><image:image><image:title>x</image:title></image:image></url>",
        "<url><image:image><image:loc>https://example.com/a.png</image:loc></image:image><loc>https://example.com/</loc></url>",
        "<url><loc>https://example.com/</loc><image:image><image:loc>https://example.com/a.png</image:loc></image:image>\
         <image:image><image:loc>https://example.com/a.png</image:loc></image:image></url>",
    ] {
        assert!(
            check(doc(bad).as_bytes(), "https://example.com/", Root::Urlset).is_err(),
            "accepted {bad}"
        );
    }
}
