//! The URLs of a run between its two passes. The first pass reads the site and decides every
//! URL; hreflang alternates can only be checked once every URL is known, so the entries wait
//! here, in an unnamed temp file (memory stays flat however large the site), for the second
//! pass that writes the sitemap.

use std::fs::File;
use std::io::{self, BufRead, BufReader, BufWriter, Seek, SeekFrom, Write};

use anyhow::{Context, Result, bail};

/// One URL as it will be written. No field holds a tab or a newline: locs and hrefs are
/// serialized URLs, dates and words are validated, hreflang values are checked on reading.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Record {
    pub loc: String,
    pub lastmod: Option<String>,
    pub changefreq: Option<String>,
    pub priority: Option<String>,
    /// (hreflang, absolute href)
    pub alternates: Vec<(String, String)>,
}

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

    pub fn push(&mut self, record: &Record) -> io::Result<()> {
        self.out.write_all(record.loc.as_bytes())?;
        for field in [&record.lastmod, &record.changefreq, &record.priority] {
            self.out.write_all(b"\t")?;
            self.out
                .write_all(field.as_deref().unwrap_or_default().as_bytes())?;
        }
        for (lang, href) in &record.alternates {
            for field in [lang, href] {
                self.out.write_all(b"\t")?;
                self.out.write_all(field.as_bytes())?;
            }
        }
        self.out.write_all(b"\n")
    }

    /// The records in the order they were pushed (once all are pushed; as often as needed).
    pub fn replay(&mut self) -> Result<impl Iterator<Item = Result<Record>> + '_> {
        self.out.flush()?;
        let mut file = self.out.get_ref();
        file.seek(SeekFrom::Start(0))?;
        Ok(BufReader::with_capacity(256 * 1024, file)
            .lines()
            .map(|line| parse(&line.context("cannot read back the spooled URLs")?)))
    }
}

fn parse(line: &str) -> Result<Record> {
    let mut fields = line.split('\t');
    let mut next = || fields.next().map(str::to_string);
    let optional = |value: Option<String>| value.filter(|v| !v.is_empty());
    let (Some(loc), lastmod, changefreq, priority) = (next(), next(), next(), next()) else {
        bail!("a spooled URL is damaged");
    };
    let mut record = Record {
        loc,
        lastmod: optional(lastmod),
        changefreq: optional(changefreq),
        priority: optional(priority),
        alternates: Vec::new(),
    };
    while let (Some(lang), Some(href)) = (next(), next()) {
        record.alternates.push((lang, href));
    }
    Ok(record)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn records_come_back_as_they_went_in() {
        let records = [
            Record {
                loc: "https://example.com/".into(),
                lastmod: Some("2024-05-01".into()),
                changefreq: None,
                priority: Some("0.5".into()),
                alternates: vec![("de".into(), "https://example.com/de/".into())],
            },
            Record {
                loc: "https://example.com/a".into(),
                ..Record::default()
            },
        ];
        let mut spool = Spool::new().unwrap();
        for record in &records {
            spool.push(record).unwrap();
        }
        let back: Vec<Record> = spool.replay().unwrap().map(Result::unwrap).collect();
        assert_eq!(back, records);
    }
}
