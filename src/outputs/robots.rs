//! DIR/robots.txt: what it disallows (a URL it blocks is an error in Search Console, so it is
//! left out of the sitemap), and reading it safely, for that and for `--robots`.

use std::io::Read;
use std::path::Path;

use anyhow::{Context, Result, bail};
use robotxt::Robots;

use crate::io::native::{self, Opened};

/// RFC 9309 asks crawlers to read at least 500 KiB of a robots.txt, and no more need be.
pub const MAX_BYTES: u64 = 500 * 1024;

/// How robots.txt may be read.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Use {
    /// For its rules: through a symlink to a regular file, and only its first 500 KiB, as
    /// crawlers read it.
    Rules,
    /// For `--robots`, which publishes what it reads: only a regular file in DIR, never
    /// through a symlink (its target would be published as the site's robots.txt), and one
    /// larger than 500 KiB is refused.
    Rewrite,
}

/// DIR/robots.txt as it is (None if absent). A FIFO or a device is refused, never read (it
/// could hang the run or never end).
pub fn read(path: &Path, usage: Use) -> Result<Option<Vec<u8>>> {
    let refuse = |why: &str| -> Result<Option<Vec<u8>>> {
        match usage {
            Use::Rewrite => bail!(
                "{} {why}; --robots reads and rewrites only a regular robots.txt inside DIR\n\
                 hint: replace it with a regular file, or drop --robots",
                path.display()
            ),
            Use::Rules => bail!(
                "{} {why}: its rules cannot be read\n\
                 hint: replace it with a regular file, or use --ignore-disallow",
                path.display()
            ),
        }
    };
    let opened = native::open_regular(path, usage == Use::Rules)
        .with_context(|| format!("cannot read {}", path.display()))?;
    let file = match opened {
        Opened::File(file) => file,
        Opened::Missing => return Ok(None),
        Opened::Symlink => return refuse("is a symlink"),
        Opened::NotRegular => return refuse("is not a regular file"),
    };
    let mut bytes = Vec::new();
    file.take(MAX_BYTES + 1)
        .read_to_end(&mut bytes)
        .with_context(|| format!("cannot read {}", path.display()))?;
    if bytes.len() as u64 > MAX_BYTES {
        if usage == Use::Rewrite {
            bail!(
                "{} is larger than 500 KiB, more than crawlers read of it (RFC 9309)\n\
                 hint: shorten it, or drop --robots",
                path.display()
            );
        }
        bytes.truncate(MAX_BYTES as usize);
    }
    Ok(Some(bytes))
}

/// The rules of robots.txt's `*` group, which every crawler without a group of its own
/// follows.
pub struct Disallow {
    rules: Robots,
    /// The file as read, for `rule`.
    text: Vec<u8>,
}

impl Disallow {
    /// The rules of the robots.txt at `path`; None when there is none or it allows all.
    pub fn read(path: &Path) -> Result<Option<Disallow>> {
        let Some(bytes) = read(path, Use::Rules)? else {
            return Ok(None);
        };
        // No group names this tool, so the `*` group is the one that applies.
        let rules = Robots::parse(&bytes, "sitemapgen");
        Ok((rules.always() != Some(true)).then_some(Disallow { rules, text: bytes }))
    }

    /// Whether the rules disallow the URL path (from the host's root, `/docs/a.html`).
    pub fn blocks(&self, path: &str) -> bool {
        !self.rules.is_allowed(path)
    }

    /// The line of robots.txt that disallows the URL path `path`, for --explain: the line
    /// without which the file would allow it, as the parser reads the file (so the matching
    /// rules are the parser's, not a second reading of them); `line N: Disallow: …`.
    pub fn rule(&self, path: &str) -> Option<String> {
        let lines: Vec<&[u8]> = self.text.split(|&byte| byte == b'\n').collect();
        (0..lines.len()).find_map(|at| {
            let line = String::from_utf8_lossy(lines[at]);
            if !line
                .trim_start()
                .get(..9)?
                .eq_ignore_ascii_case("disallow:")
            {
                return None;
            }
            let mut without = Vec::with_capacity(self.text.len());
            for (other, text) in lines.iter().enumerate().filter(|(other, _)| *other != at) {
                if other > 0 {
                    without.push(b'\n');
                }
                without.extend_from_slice(text);
            }
            let allowed = Robots::parse(&without, "sitemapgen").is_allowed(path);
            allowed.then(|| format!("line {}: {}", at + 1, line.trim()))
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn disallow(text: &str) -> Option<Disallow> {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("robots.txt");
        std::fs::write(&path, text).unwrap();
        Disallow::read(&path).unwrap()
    }

    #[test]
    fn the_star_group_decides_by_the_longest_match() {
        let rules = disallow(
            "User-agent: Googlebot\nDisallow: /g/\n\n\
             User-agent: *\nDisallow: /book/first-edition/\nDisallow: /*.pdf$\n\
             Allow: /book/first-edition/index.html\n",
        )
        .unwrap();
        assert!(rules.blocks("/book/first-edition/print.html"));
        assert!(!rules.blocks("/book/first-edition/index.html"));
        assert!(rules.blocks("/files/a.pdf"));
        assert!(!rules.blocks("/files/a.pdf.html"));
        assert!(
            !rules.blocks("/g/page.html"),
            "the Googlebot group is not ours"
        );
        assert_eq!(
            rules.rule("/book/first-edition/print.html").as_deref(),
            Some("line 5: Disallow: /book/first-edition/")
        );
        assert_eq!(
            rules.rule("/files/a.pdf").as_deref(),
            Some("line 6: Disallow: /*.pdf$")
        );
        assert!(disallow("User-agent: *\nAllow: /\n").is_none());
        assert!(disallow("# nothing\n").is_none());
    }
}
