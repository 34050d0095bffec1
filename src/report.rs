//! Messages on stderr: warnings (errors under --strict), the -v trail, the summary line.

use std::fmt::Display;
use std::path::Path;

use std::io::{self, IsTerminal, Write};
use std::time::{Duration, Instant};

use anyhow::{Result, bail};
use indicatif::{ProgressBar, ProgressStyle};

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Verbosity {
    Quiet,
    Normal,
    Verbose,
}

/// Pages left out for what their head says.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LeftOut {
    Noindex,
    Redirect,
    Canonical,
}

#[derive(Debug)]
pub struct Report {
    verbosity: Verbosity,
    strict: bool,
    excluded: u64,
    /// By `LeftOut`, in its order.
    left_out: [u64; 3],
    progress: Progress,
}

/// A spinner with counts on stderr, for a person watching a long run: only when stderr is a
/// terminal, not in CI, not with -q, and only once the run has taken a second.
#[derive(Debug)]
enum Progress {
    Off,
    Waiting(Instant),
    Shown(ProgressBar),
}

impl Progress {
    fn new(verbosity: Verbosity) -> Progress {
        let wanted = verbosity != Verbosity::Quiet
            && io::stderr().is_terminal()
            && std::env::var_os("CI").is_none();
        if wanted {
            Progress::Waiting(Instant::now())
        } else {
            Progress::Off
        }
    }
}

impl Report {
    pub fn new(verbosity: Verbosity, strict: bool) -> Self {
        Report {
            verbosity,
            strict,
            excluded: 0,
            left_out: [0; 3],
            progress: Progress::new(verbosity),
        }
    }

    /// A problem that costs the sitemap a URL or a date; fatal under --strict.
    /// `consequence` says what the run does about it when it goes on.
    pub fn warn(&mut self, problem: impl Display, consequence: &str) -> Result<()> {
        if self.strict {
            bail!("{problem} (--strict)");
        }
        self.print(format_args!(
            "sitemapgen: warning: {problem}; {consequence}"
        ));
        Ok(())
    }

    /// A file that is not a page of the sitemap, and why.
    pub fn excluded(&mut self, rel: &Path, why: impl Display) {
        self.excluded += 1;
        self.skipped(rel, why);
    }

    /// The same, when -v is off and so neither the file nor the reason is printed.
    pub fn excluded_unnamed(&mut self) {
        self.excluded += 1;
    }

    /// Counts shown by the progress spinner, if it is shown (or due).
    pub fn progress(&mut self, urls: u64) {
        if !urls.is_multiple_of(512) {
            return;
        }
        if let Progress::Waiting(start) = self.progress {
            if start.elapsed() < Duration::from_secs(1) {
                return;
            }
            // No colours in the template: NO_COLOR is honoured by having none.
            let bar = ProgressBar::new_spinner().with_style(
                ProgressStyle::with_template("{spinner} {msg}").expect("a valid template"),
            );
            bar.enable_steady_tick(Duration::from_millis(200));
            self.progress = Progress::Shown(bar);
        }
        if let Progress::Shown(bar) = &self.progress {
            bar.set_message(format!(
                "{}, {} left out",
                count(urls, "URL"),
                count(self.excluded, "file")
            ));
        }
    }

    /// Prints a line on stderr, above the spinner if one is shown.
    fn print(&self, line: impl Display) {
        match &self.progress {
            Progress::Shown(bar) => bar.suspend(|| to_stderr(line)),
            _ => to_stderr(line),
        }
    }

    /// A page left out for what its head says.
    pub fn left_out(&mut self, rel: &Path, why: LeftOut, detail: impl Display) {
        self.left_out[why as usize] += 1;
        self.excluded(rel, detail);
    }

    /// A file or directory passed over; only -v shows it, and only files are counted.
    pub fn skipped(&self, rel: &Path, why: impl Display) {
        self.detail(format_args!("skip {}: {why}", rel.display()));
    }

    /// A line only -v shows.
    pub fn detail(&self, message: impl Display) {
        if self.verbosity == Verbosity::Verbose {
            self.print(format_args!("sitemapgen: {message}"));
        }
    }

    /// Worth knowing, not a problem; -q hides it.
    pub fn note(&self, message: impl Display) {
        if self.verbosity != Verbosity::Quiet {
            self.print(format_args!("sitemapgen: note: {message}"));
        }
    }

    pub fn excluded_count(&self) -> u64 {
        self.excluded
    }

    /// `wrote 1,234 URLs to public/sitemap.xml (56 files excluded)`, or for a split
    /// `wrote 120,001 URLs in 3 sitemaps indexed by public/sitemap.xml (…)`: `place` says
    /// where.
    pub fn summary(&self, written: u64, place: &str, churn: Option<impl Display>) {
        if let Progress::Shown(bar) = &self.progress {
            bar.finish_and_clear();
        }
        if self.verbosity != Verbosity::Quiet {
            let changes = churn.map_or(String::new(), |c| format!("; since the state: {c}"));
            let [noindex, redirect, canonical] = self.left_out;
            let reasons: Vec<String> = [
                (noindex, "noindex"),
                (redirect, "redirect stubs"),
                (canonical, "with another canonical URL"),
            ]
            .iter()
            .filter(|(count, _)| *count > 0)
            .map(|(count, what)| format!("{} {what}", thousands(*count)))
            .collect();
            let reasons = if reasons.is_empty() {
                String::new()
            } else {
                format!(", of which {}", reasons.join(", "))
            };
            to_stderr(format_args!(
                "wrote {} {place} ({} excluded{reasons}){changes}",
                count(written, "URL"),
                count(self.excluded, "file")
            ));
        }
    }
}

/// Writes a line on stderr. A closed stderr (`2>&1 | head -1`) loses the message but not the
/// run: what the run writes is published all the same.
pub fn to_stderr(line: impl Display) {
    let _ = writeln!(io::stderr().lock(), "{line}");
}

/// `1 file`, `2 files`, `1,234 files`.
pub fn count(n: u64, thing: &str) -> String {
    let s = if n == 1 { "" } else { "s" };
    format!("{} {thing}{s}", thousands(n))
}

/// `1234567` → `1,234,567`.
pub fn thousands(n: u64) -> String {
    let digits = n.to_string();
    let mut out = String::with_capacity(digits.len() + digits.len() / 3);
    for (i, digit) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(digit);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::thousands;

    #[test]
    fn groups_thousands() {
        assert_eq!(thousands(0), "0");
        assert_eq!(thousands(999), "999");
        assert_eq!(thousands(1_000), "1,000");
        assert_eq!(thousands(1_234_567), "1,234,567");
    }
}
