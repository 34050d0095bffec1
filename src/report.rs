//! Messages on stderr: warnings (errors under --strict), the -v trail, the summary line.
//!
//! Warnings come a few of each kind at most, then one line says how many more there were:
//! a site where every page has the same problem gets a screenful, not a flood. `-v` shows
//! them all.

use std::fmt::Display;
use std::io::{self, IsTerminal, Write};
use std::path::Path;
use std::sync::{Mutex, PoisonError};
use std::time::{Duration, Instant};

use anyhow::{Result, bail};
use indicatif::{ProgressBar, ProgressStyle};

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Verbosity {
    Quiet,
    Normal,
    Verbose,
}

/// An enum of unit variants with `ALL`, each variant in its order (`ALL[v as usize] == v`):
/// the tables the report counts by kind are sized and walked by it.
macro_rules! listed {
    ($(#[$meta:meta])* pub enum $name:ident { $($(#[$vmeta:meta])* $variant:ident,)* }) => {
        $(#[$meta])*
        #[derive(Debug, Clone, Copy, PartialEq, Eq)]
        pub enum $name { $($(#[$vmeta])* $variant,)* }

        impl $name {
            pub const ALL: [$name; [$($name::$variant),*].len()] = [$($name::$variant),*];
        }
    };
}

listed! {
    /// Why a file under DIR is not in the sitemap, as the summary counts it, in the order the
    /// summary names them: what the pages say, then the rules.
    pub enum Reason {
        Redirect,
        Noindex,
        /// Its canonical URL is another page of the site.
        Canonical,
        /// Its canonical URL lies outside the base URL.
        Elsewhere,
        /// robots.txt disallows its URL.
        Robots,
        /// Another file has its URL.
        Duplicate,
        TooLong,
        /// Vanished, a dangling symlink or a loop, not a regular file.
        Unusable,
        Excluded,
        DefaultExcluded,
        Hidden,
        /// Matches no `--include` glob: images, stylesheets, … (counted apart from pages).
        NotPage,
    }
}

impl Reason {
    /// The cause's key in --summary-json.
    fn key(self) -> &'static str {
        match self {
            Reason::NotPage => "not_page",
            Reason::Excluded => "excluded",
            Reason::DefaultExcluded => "default_excluded",
            Reason::Hidden => "hidden",
            Reason::Noindex => "noindex",
            Reason::Redirect => "redirect",
            Reason::Canonical => "canonical",
            Reason::Elsewhere => "elsewhere",
            Reason::Robots => "robots",
            Reason::Duplicate => "duplicate",
            Reason::TooLong => "too_long",
            Reason::Unusable => "unusable",
        }
    }

    /// The summary's words for `n` files left out for this reason.
    fn describe(self, n: u64) -> String {
        let one = n == 1;
        let pages = if one { "page" } else { "pages" };
        let n = thousands(n);
        match self {
            Reason::NotPage if one => format!("{n} file that is not a page"),
            Reason::NotPage => format!("{n} files that are not pages"),
            Reason::Excluded => format!("{n} by --exclude"),
            Reason::DefaultExcluded => format!("{n} by the default excludes"),
            Reason::Hidden => format!("{n} hidden (named with a leading dot; see --hidden)"),
            Reason::Noindex => format!("{n} noindex"),
            Reason::Redirect => format!("{n} redirect {pages}"),
            Reason::Canonical => format!("{n} naming another page as canonical"),
            Reason::Elsewhere => format!("{n} with a canonical URL outside the base URL"),
            Reason::Robots => format!("{n} disallowed by robots.txt"),
            Reason::Duplicate => format!("{n} with a URL another file has"),
            Reason::TooLong => format!("{n} with a URL too long"),
            Reason::Unusable => format!("{n} unreadable (vanished, dangling or looping)"),
        }
    }
}

listed! {
    /// The kinds of warnings, each shown a few times at most (all with -v).
    pub enum Warning {
        /// Something in a page's head could not be used (a canonical URL that is not http(s), a
        /// bad hreflang, a repeated language, conflicting canonical URLs).
        HeadIgnored,
        /// A canonical URL on another host or scheme naming the page itself.
        CanonicalHost,
        /// A canonical URL outside the base URL.
        CanonicalElsewhere,
        AlternateNotListed,
        AlternateOneWay,
        Duplicate,
        TooLong,
        /// A page that vanished, a dangling symlink.
        Unusable,
        /// A symlink that leads back to one of its directories, or to itself.
        Loop,
        /// A page's mtime outside 1970..9999.
        Mtime,
        /// A page with more images than a URL may list.
        Images,
        /// Anything said once a run.
        Run,
    }
}

impl Warning {
    /// What the "and N more" line says there were more of.
    fn more(self) -> &'static str {
        match self {
            Warning::HeadIgnored => "pages with something unusable in their head",
            Warning::CanonicalHost => "pages whose canonical URL has another host or scheme",
            Warning::CanonicalElsewhere => "pages whose canonical URL is outside the base URL",
            Warning::AlternateNotListed => "alternates that are not pages of this sitemap",
            Warning::AlternateOneWay => "one-way alternates",
            Warning::Duplicate => "files whose URL another file has",
            Warning::TooLong => "URLs too long",
            Warning::Unusable => "files that could not be read",
            Warning::Loop => "symlink loops",
            Warning::Mtime => "pages with an mtime out of range",
            Warning::Images => "pages with more images than a URL may list",
            Warning::Run => "warnings",
        }
    }
}

/// How many warnings of one kind are shown before they are only counted.
const SHOWN: u64 = 3;

#[derive(Debug)]
pub struct Report {
    verbosity: Verbosity,
    strict: bool,
    /// By `Reason`, in its order.
    left_out: [u64; Reason::ALL.len()],
    /// By `Warning`, in its order.
    warned: [u64; Warning::ALL.len()],
    /// The URLs of --add-urls listed.
    added: u64,
    /// Whether the warnings shown only in part have been counted out.
    warnings_finished: bool,
    progress: Progress,
    /// --explain: every line -v prints, and those only --explain gives (`why`), kept for the
    /// explanation instead of printed.
    trail: Option<Mutex<Vec<String>>>,
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
            left_out: [0; Reason::ALL.len()],
            warned: [0; Warning::ALL.len()],
            added: 0,
            warnings_finished: false,
            progress: Progress::new(verbosity),
            trail: None,
        }
    }

    /// For --explain: each line kept (`take_trail`), none printed, the -v lines among them.
    pub fn explaining(strict: bool) -> Self {
        Report {
            trail: Some(Mutex::new(Vec::new())),
            progress: Progress::Off,
            ..Report::new(Verbosity::Verbose, strict)
        }
    }

    /// Whether the run explains a page (--explain): then `why` keeps its lines.
    pub fn explains(&self) -> bool {
        self.trail.is_some()
    }

    /// A line only --explain shows (made only then): where a page's date came from.
    pub fn why(&self, line: impl FnOnce() -> String) {
        if self.trail.is_some() {
            self.print(line());
        }
    }

    /// The lines kept for --explain, without the program's name.
    pub fn take_trail(&mut self) -> Vec<String> {
        let trail = self.trail.take().map(Mutex::into_inner);
        let lines = trail.map(|lines| lines.unwrap_or_else(PoisonError::into_inner));
        lines
            .unwrap_or_default()
            .into_iter()
            .map(|line| match line.strip_prefix("sitemapgen: ") {
                Some(rest) => rest.to_string(),
                None => line,
            })
            .collect()
    }

    /// A problem that costs the sitemap a URL or a date; fatal under --strict.
    /// `consequence` says what the run does about it when it goes on.
    pub fn warn(&mut self, kind: Warning, problem: impl Display, consequence: &str) -> Result<()> {
        if self.strict {
            bail!("{problem} (--strict)");
        }
        let count = &mut self.warned[kind as usize];
        *count += 1;
        if *count <= SHOWN || self.verbosity == Verbosity::Verbose {
            self.print(format_args!(
                "sitemapgen: warning: {problem}; {consequence}"
            ));
        }
        Ok(())
    }

    /// A file that is not in the sitemap, and why (`detail`, which -v prints).
    pub fn left_out(&mut self, rel: &Path, reason: Reason, detail: impl Display) {
        self.left_out[reason as usize] += 1;
        self.skipped(rel, detail);
    }

    /// The same, when -v is off and so neither the file nor the detail is printed.
    pub fn left_out_unnamed(&mut self, reason: Reason) {
        self.left_out[reason as usize] += 1;
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
                count(self.left_out.iter().sum(), "file")
            ));
        }
    }

    /// Prints a line on stderr, above the spinner if one is shown (or keeps it for
    /// --explain).
    fn print(&self, line: impl Display) {
        if let Some(trail) = &self.trail {
            let mut trail = trail.lock().unwrap_or_else(PoisonError::into_inner);
            trail.push(redact(&line.to_string()));
            return;
        }
        match &self.progress {
            Progress::Shown(bar) => bar.suspend(|| to_stderr(line)),
            _ => to_stderr(line),
        }
    }

    /// A file or directory passed over; only -v shows it.
    pub fn skipped(&self, rel: &Path, why: impl Display) {
        self.detail(format_args!("skip {}: {why}", shown_path(rel)));
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

    /// How many pages were left out as noindex.
    pub fn noindex_count(&self) -> u64 {
        self.left_out[Reason::Noindex as usize]
    }

    /// Whether the pages left out for what their heads say all asked to be (noindex, or a
    /// redirect): none for a canonical URL elsewhere or another page's, which a wrong base URL
    /// causes, nor unreadable or too long.
    pub fn only_noindex(&self) -> bool {
        self.noindex_count() > 0
            && [
                Reason::Canonical,
                Reason::Elsewhere,
                Reason::Duplicate,
                Reason::TooLong,
                Reason::Unusable,
            ]
            .iter()
            .all(|reason| self.left_out[*reason as usize] == 0)
    }

    /// How many files were left out, for a run that found no page.
    pub fn left_out_count(&self) -> u64 {
        self.left_out.iter().sum()
    }

    /// A problem that is no warning, but an error under --strict.
    pub fn strict(&self, problem: impl Display) -> Result<()> {
        if self.strict {
            bail!("{problem} (--strict)");
        }
        Ok(())
    }

    /// The warnings counted but not shown, one line for each kind (once).
    pub fn finish_warnings(&mut self) {
        if std::mem::replace(&mut self.warnings_finished, true)
            || self.verbosity == Verbosity::Verbose
        {
            return;
        }
        for (i, kind) in Warning::ALL.iter().enumerate() {
            let hidden = self.warned[i].saturating_sub(SHOWN);
            if hidden > 0 {
                self.print(format_args!(
                    "sitemapgen: warning: and {} more {} (-v lists all)",
                    thousands(hidden),
                    kind.more()
                ));
            }
        }
    }

    /// `wrote 1,234 URLs to public/sitemap.xml (left out: 7 noindex, 1 redirect page;
    /// 56 files that are not pages)`: `place` says where the URLs went.
    pub fn summary(&mut self, written: u64, place: &str, churn: Option<impl Display>) {
        self.finish_warnings();
        if let Progress::Shown(bar) = &self.progress {
            bar.finish_and_clear();
        }
        if self.verbosity == Verbosity::Quiet {
            return;
        }
        to_stderr(self.summary_line(written, place, churn));
    }

    /// One more URL of --add-urls listed.
    pub fn added_url(&mut self) {
        self.added += 1;
    }

    /// The URLs of --add-urls listed.
    pub fn added_urls(&self) -> u64 {
        self.added
    }

    /// The summary line, which -q does not print (--summary-json holds it all the same).
    pub fn summary_line(&self, written: u64, place: &str, churn: Option<impl Display>) -> String {
        let changes = churn.map_or(String::new(), |c| format!("; since the state: {c}"));
        let added = match self.added {
            0 => String::new(),
            n => format!(" ({} from --add-urls)", thousands(n)),
        };
        redact(&format!(
            "wrote {}{added} {place}{}{changes}",
            count(written, "URL"),
            self.left_out_summary()
        ))
    }

    /// Each cause's key in --summary-json and how many files it left out, in the summary
    /// line's order.
    pub fn left_out_by_cause(&self) -> Vec<(&'static str, u64)> {
        Reason::ALL
            .iter()
            .map(|&reason| (reason.key(), self.left_out[reason as usize]))
            .collect()
    }

    /// ` (left out: 7 noindex, 3 by --exclude; 56 files that are not pages)`, or nothing when
    /// every file is in the sitemap.
    pub fn left_out_summary(&self) -> String {
        let pages: Vec<String> = Reason::ALL
            .iter()
            .filter(|reason| **reason != Reason::NotPage)
            .filter(|reason| self.left_out[**reason as usize] > 0)
            .map(|reason| reason.describe(self.left_out[*reason as usize]))
            .collect();
        let others = self.left_out[Reason::NotPage as usize];
        let others = (others > 0).then(|| Reason::NotPage.describe(others));
        match (pages.is_empty(), others) {
            (true, None) => String::new(),
            (true, Some(others)) => format!(" ({others})"),
            (false, None) => format!(" (left out: {})", pages.join(", ")),
            (false, Some(others)) => format!(" (left out: {}; {others})", pages.join(", ")),
        }
    }
}

/// Writes a line on stderr, without a secret (see `redact`) and with every control
/// character but the line breaks of a message's own lines (a `hint:`, clap's usage) escaped:
/// whatever a caller put in it, a message cannot drive the terminal that shows the log (a
/// text from outside comes through `shown` or `shown_path`, its line breaks escaped too). A
/// closed stderr (`2>&1 | head -1`) loses the message but not the run: what the run writes
/// is published all the same.
pub fn to_stderr(line: impl Display) {
    let line = redact(&line.to_string());
    let line: Vec<String> = line.split('\n').map(escaped).collect();
    let _ = writeln!(io::stderr().lock(), "{}", line.join("\n"));
}

/// How many characters of a text from outside a message shows.
const EXCERPT: usize = 200;

/// A text that came from outside the run (a line of an input file, a server's answer, a
/// value read from a file), as a message shows it: its secrets hidden (on the whole text,
/// before it is cut: a secret cut in two would show its first part), its control characters
/// escaped, and cut to a short excerpt that says how much was left out. Every such text
/// reaches a message through here.
pub fn shown(text: &str) -> String {
    let text = escaped(&redact(text));
    match text.char_indices().nth(EXCERPT) {
        None => text,
        Some((cut, _)) => {
            let more = text[cut..].chars().count() as u64;
            format!("{}… ({} more)", &text[..cut], count(more, "character"))
        }
    }
}

/// A file's path, as a message shows it: whole (to be found; the system bounds its length),
/// its secrets hidden, its control characters escaped. A file name is the site's text, not
/// ours: `\u{1b}]0;title\u{7}` or a line break in one must not reach the terminal or start a
/// line of its own in the log.
pub fn shown_path(path: &Path) -> String {
    escaped(&redact(&path.to_string_lossy()))
}

/// `text` with each control character (line breaks included, and the Unicode line and
/// paragraph separators), and each character that reorders text on screen (bidirectional
/// marks, overrides and isolates), as a Rust escape
/// (`\u{1b}`, `\n`).
fn escaped(text: &str) -> String {
    let hostile = |c: char| {
        c.is_control()
            || matches!(
                c,
                '\u{200e}' | '\u{200f}' | '\u{061c}' | '\u{2028}' | '\u{2029}'
                    | '\u{202a}'..='\u{202e}' | '\u{2066}'..='\u{2069}'
            )
    };
    if !text.contains(hostile) {
        return text.to_string();
    }
    let mut out = String::with_capacity(text.len() + 8);
    for c in text.chars() {
        if hostile(c) {
            out.extend(c.escape_default());
        } else {
            out.push(c);
        }
    }
    out
}

/// What no message may show, whatever put it there (a file name, an answer that echoes the
/// request): the IndexNow keys read by this run.
static SECRETS: Mutex<Vec<String>> = Mutex::new(Vec::new());

/// Keeps `secret` out of every message from now on: it is shown as `KEY`.
pub fn keep_secret(secret: &str) {
    let mut secrets = SECRETS.lock().unwrap_or_else(PoisonError::into_inner);
    if !secret.is_empty() && !secrets.iter().any(|known| known == secret) {
        secrets.push(secret.to_string());
    }
}

/// `line` with each secret shown as `KEY`, and the user name and password of each URL in it
/// as `…` (`https://…@example.com/`): every message goes through here, so none shows them.
pub fn redact(line: &str) -> String {
    let mut line = hide_user_info(line);
    for secret in SECRETS
        .lock()
        .unwrap_or_else(PoisonError::into_inner)
        .iter()
    {
        if line.contains(secret.as_str()) {
            line = line.replace(secret.as_str(), "KEY");
        }
    }
    line
}

/// `text` with the user information of each `scheme://user:password@host` in it as `…`.
fn hide_user_info(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(at) = rest.find("://") {
        let (before, authority) = rest.split_at(at + 3);
        out.push_str(before);
        // The authority ends where the path, query or fragment begins, or the URL itself.
        let end = authority
            .find(|c: char| "/?#\\\"'<>`".contains(c) || c.is_whitespace() || c.is_control())
            .unwrap_or(authority.len());
        match authority[..end].rfind('@') {
            Some(user_end) => {
                out.push('…');
                rest = &authority[user_end..];
            }
            None => rest = authority,
        }
    }
    out.push_str(rest);
    out
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
    use super::*;

    #[test]
    fn groups_thousands() {
        assert_eq!(thousands(0), "0");
        assert_eq!(thousands(999), "999");
        assert_eq!(thousands(1_000), "1,000");
        assert_eq!(thousands(1_234_567), "1,234,567");
    }

    #[test]
    fn no_message_shows_a_key_or_the_user_information_of_a_url() {
        keep_secret("report-test-key-0451");
        for (line, shown) in [
            (
                "skip report-test-key-0451.txt: matches no --include glob",
                "skip KEY.txt: matches no --include glob",
            ),
            (
                "answered 422: {\"key\":\"report-test-key-0451\"}",
                "answered 422: {\"key\":\"KEY\"}",
            ),
            (
                "cannot fetch https://user:pa55@example.com/s.gz: refused",
                "cannot fetch https://…@example.com/s.gz: refused",
            ),
            (
                "--base-url \"http://tok@h:8/\", or http://u:p:q@@x?y@z",
                "--base-url \"http://…@h:8/\", or http://…@x?y@z",
            ),
            (
                "mailto:me@example.com and https://example.com/@a",
                "mailto:me@example.com and https://example.com/@a",
            ),
            ("ends in https://", "ends in https://"),
            ("https://ключ:пароль@пример.рф/", "https://…@пример.рф/"),
        ] {
            assert_eq!(redact(line), shown);
        }
    }

    #[test]
    fn the_summary_says_why_pages_were_left_out() {
        let mut report = Report::new(Verbosity::Quiet, false);
        assert_eq!(report.left_out_summary(), "");
        report.left_out_unnamed(Reason::NotPage);
        assert_eq!(report.left_out_summary(), " (1 file that is not a page)");
        for _ in 0..160 {
            report.left_out_unnamed(Reason::Redirect);
        }
        report.left_out_unnamed(Reason::Noindex);
        report.left_out_unnamed(Reason::NotPage);
        assert_eq!(
            report.left_out_summary(),
            " (left out: 160 redirect pages, 1 noindex; 2 files that are not pages)"
        );
    }
}
