//! How this run's dates compare with the state's, and `--max-churn`'s stop.

use std::fmt;

use anyhow::{Result, bail};

/// How this run's dates compare with the state's.
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub struct Churn {
    pub added: u64,
    pub removed: u64,
    pub redated: u64,
    pub kept: u64,
    /// The first `SHOWN_REDATED` URLs re-dated, in the sitemap's order: what --max-churn's
    /// stop names, for a text sitemap or a fixed --lastmod does not show them re-dated.
    pub redated_urls: Vec<String>,
}

/// How many re-dated URLs the churn stop names.
pub(super) const SHOWN_REDATED: usize = 5;

impl fmt::Display for Churn {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        use crate::report::thousands;
        write!(
            f,
            "{} added, {} removed, {} re-dated, {} kept",
            thousands(self.added),
            thousands(self.removed),
            thousands(self.redated),
            thousands(self.kept)
        )
    }
}

impl Churn {
    /// Refuses a run that would re-date more than `limit` percent of the URLs the state
    /// knows.
    pub fn check(&self, limit: f64) -> Result<()> {
        let known = self.kept + self.redated;
        if known == 0 {
            return Ok(());
        }
        let percent = self.redated as f64 * 100.0 / known as f64;
        if percent > limit {
            let mut urls: String = self
                .redated_urls
                .iter()
                .map(|url| format!("\n  ~ {url}"))
                .collect();
            let unnamed = self.redated - self.redated_urls.len() as u64;
            if unnamed > 0 {
                urls.push_str(&format!(
                    "\n  ~ … and {} more",
                    crate::report::thousands(unnamed)
                ));
            }
            bail!(
                "{} of {known} known URLs ({percent:.1}%) would get a new lastmod, more than \
                 --max-churn {limit}%; nothing written{urls}\n\
                 hint: if every page really changed, run once with a higher --max-churn",
                self.redated
            );
        }
        Ok(())
    }
}
