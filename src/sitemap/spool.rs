//! The URLs of a run between its two passes. The first pass reads the site and decides every
//! URL; hreflang alternates can only be checked once every URL is known, so the entries wait
//! here, in an unnamed temp file (memory stays flat however large the site), for the second
//! pass that writes the sitemap.

use std::fs::File;
use std::io::{self, BufRead, BufReader, BufWriter, Seek, SeekFrom, Write};

use anyhow::{Context, Result};

use crate::entry::{Alternate, Entry, Group};

pub struct Spool {
    out: BufWriter<File>,
}

impl Spool {
    pub fn new() -> Result<Spool> {
        let file = tempfile::tempfile().context("cannot create a temp file")?;
        Ok(Spool {
            out: BufWriter::with_capacity(256 * 1024, file),
        })
    }

    /// Spools an entry: its group, loc, lastmod, changefreq, priority, the number of images,
    /// the images, then the alternates' hreflang and href. No field holds a tab or a newline:
    /// locs, images and hrefs are serialized URLs, dates and words are validated, hreflang
    /// values are checked on reading.
    pub fn push(&mut self, record: &Entry) -> io::Result<()> {
        match record.group {
            Group::Named(i) => write!(self.out, "{i}\t")?,
            Group::Default => self.out.write_all(b"-\t")?,
        }
        self.out.write_all(record.loc.as_bytes())?;
        for field in [&record.lastmod, &record.changefreq, &record.priority] {
            self.out.write_all(b"\t")?;
            self.out
                .write_all(field.as_deref().unwrap_or_default().as_bytes())?;
        }
        write!(self.out, "\t{}", record.images.len())?;
        for image in &record.images {
            self.out.write_all(b"\t")?;
            self.out.write_all(image.as_bytes())?;
        }
        for Alternate { lang, href } in &record.alternates {
            for field in [lang, href] {
                self.out.write_all(b"\t")?;
                self.out.write_all(field.as_bytes())?;
            }
        }
        self.out.write_all(b"\n")
    }

    /// The records in the order they were pushed (once all are pushed; as often as needed).
    pub fn replay(&mut self) -> Result<impl Iterator<Item = Result<Entry>> + '_> {
        self.out.flush()?;
        let mut file = self.out.get_ref();
        file.seek(SeekFrom::Start(0))?;
        let mut reader = BufReader::with_capacity(256 * 1024, file);
        // One line buffer for all the records: only the fields become strings of their own.
        let mut line = String::new();
        Ok(std::iter::from_fn(move || {
            line.clear();
            match reader.read_line(&mut line) {
                Ok(0) => None,
                Ok(_) => Some(parse(line.strip_suffix('\n').unwrap_or(&line))),
                Err(err) => Some(Err(err).context("cannot read back the spooled URLs")),
            }
        }))
    }
}

fn parse(line: &str) -> Result<Entry> {
    let mut fields = line.split('\t');
    let damaged = || anyhow::anyhow!("a spooled URL is damaged");
    let number = |field: Option<&str>| field.and_then(|n| n.parse::<usize>().ok());
    let group = match fields.next() {
        Some("-") => Group::Default,
        field => Group::Named(number(field).ok_or_else(damaged)?),
    };
    let (Some(loc), lastmod, changefreq, priority) =
        (fields.next(), fields.next(), fields.next(), fields.next())
    else {
        return Err(damaged());
    };
    let optional = |value: Option<&str>| value.filter(|v| !v.is_empty()).map(String::from);
    let mut record = Entry {
        loc: loc.to_string(),
        lastmod: optional(lastmod),
        changefreq: optional(changefreq),
        priority: optional(priority),
        alternates: Vec::new(),
        images: Vec::new(),
        group,
    };
    let images = number(fields.next()).ok_or_else(damaged)?;
    record.images = (0..images)
        .map(|_| fields.next().map(String::from))
        .collect::<Option<_>>()
        .ok_or_else(damaged)?;
    while let (Some(lang), Some(href)) = (fields.next(), fields.next()) {
        record.alternates.push(Alternate {
            lang: lang.to_string(),
            href: href.to_string(),
        });
    }
    Ok(record)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn records_come_back_as_they_went_in() {
        let records = [
            Entry {
                loc: "https://example.com/".into(),
                lastmod: Some("2024-05-01".into()),
                changefreq: None,
                priority: Some("0.5".into()),
                alternates: vec![Alternate {
                    lang: "de".into(),
                    href: "https://example.com/de/".into(),
                }],
                images: vec![
                    "https://example.com/a.png".into(),
                    "https://cdn.example.net/b.png".into(),
                ],
                group: Group::Named(3),
            },
            Entry {
                loc: "https://example.com/a".into(),
                ..Entry::default()
            },
        ];
        let mut spool = Spool::new().unwrap();
        for record in &records {
            spool.push(record).unwrap();
        }
        for _ in 0..2 {
            let back: Vec<Entry> = spool.replay().unwrap().map(Result::unwrap).collect();
            assert_eq!(back, records);
        }
    }
}
