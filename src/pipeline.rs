//! One run: pages → URLs → lastmod → serializer → atomic output.

use anyhow::{Context, Result, bail};

use crate::config::Config;
use crate::entries::{self, Page};
use crate::lastmod::{self, LastmodMode};
use crate::output::Sink;
use crate::report::Report;
use crate::serialize::{UrlEntry, UrlsetWriter};
use crate::url::{Dedup, MAX_LOC_LEN};

pub fn run(config: &Config) -> Result<()> {
    let mut report = Report::new(config.verbosity, config.strict);
    let destination = config.destination.describe();
    let write_context = || format!("cannot write {destination}");
    let mut urlset =
        UrlsetWriter::new(Sink::open(&config.destination)?).with_context(write_context)?;
    let mut dedup = Dedup::default();
    let mut written: u64 = 0;

    entries::visit(config, &mut report, |page: &Page, report: &mut Report| {
        let page_path = config.mapping.page_path(page.rel);
        let loc = config.base.join(&page_path.path);
        if loc.len() >= MAX_LOC_LEN {
            report.excluded(page.rel, "URL too long");
            return report.warn(
                format!(
                    "{}: its URL has {} characters, the limit is {}",
                    page.rel.display(),
                    loc.len(),
                    MAX_LOC_LEN - 1
                ),
                "not listed",
            );
        }
        if let Some(first) = dedup.claim(page.rel, &page_path) {
            report.excluded(page.rel, "duplicate URL");
            return report.warn(
                format!(
                    "{} and {} both map to {loc}",
                    first.display(),
                    page.rel.display()
                ),
                "listing only the first",
            );
        }
        let mtime;
        let lastmod = match &config.lastmod {
            LastmodMode::Omit => None,
            LastmodMode::Fixed(date) => Some(date.as_str()),
            LastmodMode::Mtime => {
                mtime = lastmod::format_mtime(page.mtime);
                if mtime.is_none() {
                    report.warn(
                        format!(
                            "{}: mtime {} is before 1970 or after 9999",
                            page.rel.display(),
                            page.mtime
                        ),
                        "written without lastmod",
                    )?;
                }
                mtime.as_deref()
            }
        };
        urlset
            .write(&UrlEntry {
                loc: &loc,
                lastmod,
                changefreq: config.rules.changefreq(page.candidate),
                priority: config.rules.priority(page.candidate),
            })
            .with_context(write_context)?;
        written += 1;
        Ok(())
    })?;

    if written == 0 {
        bail!(
            "no pages in {} ({} files excluded); an empty sitemap is not valid\n\
             hint: check DIR and --include, or run with -v to see what was left out",
            config.root.display(),
            report.excluded_count()
        );
    }
    let sink = urlset.finish().with_context(write_context)?;
    sink.commit()?;
    report.summary(written, &destination);
    Ok(())
}
