//! The command line as clap sees it. Each value is parsed into its type here, so a bad value
//! is refused naming its flag (or its config file key); `RULES` say how flags combine where
//! clap can check it, and `settings` checks the rest.

use std::ffi::OsString;
use std::path::PathBuf;

use clap::builder::{BoolishValueParser, PossibleValue, StringValueParser, TypedValueParser};
use clap::parser::ValueSource;
use clap::{ArgAction, ArgGroup, ArgMatches, CommandFactory, Parser, ValueHint};

use crate::decide::lastmod::LastmodMode;
use crate::decide::rules::{
    GroupRule, ValueRule, parse_changefreq_rule, parse_group_rule, parse_priority_rule,
};
use crate::outputs::Format;
use crate::scan::digest::Mode;
use crate::scan::images::parse_host;
use crate::scan::select::Selector;
use crate::state::origin::Published;
use crate::url::{BaseUrl, Given, given_url};
use crate::walk::rules::check_glob;

#[derive(Debug, Parser)]
#[command(
    name = "sitemapgen",
    version,
    // DIR and --base-url may come from the config file, so clap does not require them; the
    // usage says what a run needs, and what the two commands after the deploy need.
    override_usage = "sitemapgen [OPTIONS] --base-url <URL> <DIR>\n       \
        sitemapgen --indexnow-submit --base-url <URL> --changes <FILE> --indexnow-key-env <NAME>\n       \
        sitemapgen --google-submit --base-url <URL> --google-key-env <NAME> <DIR>",
    about = "Write sitemap.xml for a static site's build folder",
    long_about = "Write sitemap.xml for a static site's build folder.\n\n\
        Every page under DIR (by default *.html and *.htm) becomes a <url> whose <loc> is the \
        base URL plus the page's path, percent-encoded byte for byte. <lastmod> comes from the \
        file's mtime unless --lastmod says otherwise. The sitemap is written atomically: a \
        failed run leaves the previous one untouched.",
    after_help = "These are the options used most: --help shows all of them, by topic.\n\
        Exit status: 0 success, 1 runtime failure (or --check found a difference), 2 usage or \
        configuration error.",
    after_long_help = "Settings may also come from sitemapgen.toml (see --config); flags win, and a \
        flag given as --FLAG=false turns off the file's FLAG = true.\n\
        Exit status: 0 success, 1 runtime failure (or --check found a difference), 2 usage or \
        configuration error."
)]
pub struct Cli {
    /// The site's build folder (e.g. public/, _site/, site/); required, here or in the config
    #[arg(value_name = "DIR", value_hint = ValueHint::DirPath)]
    pub dir: Option<PathBuf>,

    /// Public URL of DIR: http or https with a host, optionally a path prefix; required
    #[arg(short = 'b', long, value_name = "URL", value_hint = ValueHint::Url,
          value_parser = ours(BaseUrl::parse))]
    pub base_url: Option<BaseUrl>,

    /// Where to write the sitemap [default: DIR/sitemap.xml]; `-` writes to standard output
    /// (a preview: no state or robots.txt is written)
    #[arg(short = 'o', long, value_name = "FILE", value_hint = ValueHint::FilePath)]
    pub output: Option<PathBuf>,

    /// Compress every file written with gzip [default output: DIR/sitemap.xml.gz]
    #[arg(long)]
    pub gzip: bool,

    /// xml, or txt (one URL per line) [default output: DIR/sitemap.txt]
    #[arg(long, value_name = "FORMAT", default_value = "xml", value_parser = FORMAT,
          hide_possible_values = true)]
    pub format: Format,

    /// Compare the sitemap with the one on disk instead of writing it: exit 0 if identical,
    /// 1 if not (with a summary of the difference)
    #[arg(long)]
    pub check: bool,

    /// Show the sitemap in browsers through the XSL stylesheet at HREF (an http or https URL,
    /// or a path on the site such as /sitemap.xsl): <?xml-stylesheet?> in the sitemap, index
    /// and shards
    #[arg(long, value_name = "HREF", value_parser = ours(parse_href))]
    pub xsl: Option<String>,

    /// Write a small default stylesheet, DIR/sitemap.xsl (a table of URLs and dates, no
    /// external assets), and show the sitemap through it unless --xsl names another
    #[arg(long)]
    pub write_xsl: bool,

    /// Add `Sitemap: URL` for the output to DIR/robots.txt (created if absent)
    #[arg(long)]
    pub robots: bool,

    /// Split into a sitemap index and shards past N URLs per file (the protocol's limit is
    /// 50,000; past 50 MiB a file is split anyway)
    #[arg(long, value_name = "N", default_value_t = 50_000,
          value_parser = clap::value_parser!(u32).range(1..=50_000))]
    pub max_urls: u32,

    /// Put the pages matching GLOB into a sitemap of their own, sitemap-NAME.xml, under the
    /// index (repeatable; the last matching rule wins; the pages no group takes go to
    /// sitemap-pages.xml)
    #[arg(long, value_name = "NAME=GLOB", value_parser = ours(parse_group_rule))]
    pub group: Vec<GroupRule>,

    /// List the sitemap at URL, written by another tool, in the index (repeatable; URL must
    /// lie under the index's directory), dated by the newest lastmod in it (read from DIR
    /// when the file is there, else fetched); the pages go to sitemap-pages.xml
    #[arg(long, value_name = "URL", value_hint = ValueHint::Url,
          value_parser = ours(|text| given_url(text, "--index-add", Given::Resource)))]
    pub index_add: Vec<url::Url>,

    /// Make the sitemap an index over every sub-build below DIR (a folder that holds its own
    /// sitemap.xml, sitemap-index.xml or sitemap_index.xml, gzipped or not: a version's or a
    /// language's build), each dated by the newest lastmod in it; their pages are left to
    /// their own sitemaps, the root's own pages go to sitemap-pages.xml
    #[arg(long)]
    pub sub_builds: bool,

    /// Count only the sub-builds whose folder matches GLOB (as --exclude's globs;
    /// repeatable); implies --sub-builds
    #[arg(long, value_name = "GLOB", value_parser = glob_arg("--sub-build"))]
    pub sub_build: Vec<String>,

    /// List the URLs in FILE besides the pages (repeatable): a URL a line, optionally a W3C
    /// date after a space (blank lines and # comments skipped), or a sitemap whose <url>
    /// entries are taken with their <lastmod>; each under the base URL; a page at the same
    /// URL wins
    #[arg(long, value_name = "FILE", value_hint = ValueHint::FilePath)]
    pub add_urls: Vec<PathBuf>,

    /// Files that count as pages (repeatable) [default: *.html, *.htm]
    #[arg(long, value_name = "GLOB", value_parser = glob_arg("--include"))]
    pub include: Vec<String>,

    /// Files that count as pages besides the --include globs or the default ones
    /// (repeatable), such as *.pdf to list PDFs with the HTML pages
    #[arg(long, value_name = "GLOB", value_parser = glob_arg("--include-also"))]
    pub include_also: Vec<String>,

    /// Leave out files or directories (repeatable), in addition to the default excludes
    #[arg(long, value_name = "GLOB", value_parser = glob_arg("--exclude"))]
    pub exclude: Vec<String>,

    /// Drop the default excludes (404 pages at the root and a locale's root such as fr/,
    /// error pages elsewhere that do not name themselves canonical, app shells with no title
    /// and no text, search-engine verification pages)
    #[arg(long)]
    pub no_default_excludes: bool,

    /// Map about.html to /about (for hosts that serve clean URLs)
    #[arg(long)]
    pub clean_urls: bool,

    /// Map docs/index.html to /docs instead of /docs/
    #[arg(long)]
    pub no_trailing_slash: bool,

    /// List each page at the URL computed from its path, even where its canonical URL
    /// declares another form of it (by default the declared form is listed)
    #[arg(long)]
    pub computed_urls: bool,

    /// List URLs that DIR/robots.txt disallows (by default they are left out)
    #[arg(long)]
    pub ignore_disallow: bool,

    /// Write <changefreq> on pages matching GLOB (repeatable; the last matching rule wins)
    #[arg(long, value_name = "GLOB=FREQ", value_parser = ours(parse_changefreq_rule))]
    pub changefreq: Vec<ValueRule>,

    /// Write <priority> on pages matching GLOB (repeatable; the last matching rule wins)
    #[arg(long, value_name = "GLOB=VALUE", value_parser = ours(parse_priority_rule))]
    pub priority: Vec<ValueRule>,

    /// mtime, git (last commit's date), page (the date the page declares; page,git for
    /// another fallback than mtime), none, or a fixed W3C date (2024-05-01) or datetime with
    /// zone; with --state, the date of a new or changed page
    #[arg(long, value_name = "MODE", default_value = "mtime", value_parser = LASTMOD,
          hide_possible_values = true)]
    pub lastmod: LastmodMode,

    /// How <lastmod> is written: datetime (as the date was found, a time with its zone
    /// where there is one) or date (YYYY-MM-DD, the date as written in its own zone)
    #[arg(long, value_name = "FORMAT", default_value = "datetime", value_parser = LASTMOD_FORMAT,
          hide_possible_values = true)]
    pub lastmod_format: DateOnly,

    /// Keep each page's lastmod while its content stays the same, recorded in FILE (a symlink
    /// is followed)
    #[arg(long, value_name = "FILE", value_hint = ValueHint::FilePath)]
    pub state: Option<PathBuf>,

    /// Also write the new state to FILE, for the deploy to publish (e.g.
    /// DIR/sitemap.state.gz, with --state kept outside DIR where a cleaned output does not
    /// lose it); needs --state
    #[arg(long, value_name = "FILE", value_hint = ValueHint::FilePath)]
    pub state_copy: Option<PathBuf>,

    /// Where the last deploy published the state (e.g. https://example.com/sitemap.state.gz
    /// with --state DIR/sitemap.state.gz): read when the state file does not exist; a 404 or
    /// an HTML page is a first run, and so is a host out of reach but in CI (CI set); any
    /// other failure stops the run
    #[arg(long, value_name = "URL", value_hint = ValueHint::Url,
          value_parser = ours(|text| given_url(text, "--state-url", Given::Resource)))]
    pub state_url: Option<url::Url>,

    /// When there is no state yet (nor one published), keep the dates this sitemap gives
    /// (an http(s) URL or a file; an index is followed to its shards; gzip or not); needs
    /// --state
    #[arg(long, value_name = "SITEMAP", value_parser = ours(Published::parse))]
    pub previous_sitemap: Option<Published>,

    /// The first date of each page the state does not know yet (every page, without
    /// --state): its source's last change, a line `PAGE<TAB>DATE` each, PAGE the page's file
    /// relative to DIR or its URL, DATE a W3C date or an ISO date as git prints it (blank
    /// lines and # comments skipped)
    #[arg(long, value_name = "FILE", value_hint = ValueHint::FilePath)]
    pub source_dates: Option<PathBuf>,

    /// The same, dated by git: a line `PAGE<TAB>SOURCE` each, SOURCE the page's source file
    /// (relative to the current directory, or absolute), dated by its last commit; none for a
    /// source outside a git work tree or untracked, nor by a shallow clone's boundary commit
    #[arg(long, value_name = "FILE", value_hint = ValueHint::FilePath)]
    pub sources: Option<PathBuf>,

    /// Write the URLs added, re-dated and removed since the state to FILE, a line each:
    /// `added URL`, `redated URL`, `removed URL` (needs --state)
    #[arg(long, value_name = "FILE", value_hint = ValueHint::FilePath)]
    pub changes: Option<PathBuf>,

    /// Write the run's counts as JSON to FILE (`-` for standard output): the URLs listed (and
    /// how many of them --add-urls gave), the files left out by cause, the URLs added,
    /// re-dated and removed since the state, the files written, and the summary line;
    /// `"version": 1` (doc/outputs.md: "The summary as JSON")
    #[arg(long, value_name = "FILE", value_hint = ValueHint::FilePath)]
    pub summary_json: Option<PathBuf>,

    /// What a page's digest is made of: content (what a reader cares about: the main
    /// region, structured data) or bytes (needs --state) [default: content]
    #[arg(long, value_name = "WHAT", value_parser = DIGEST)]
    pub digest: Option<Mode>,

    /// The page's main region for its digest and its images, as a CSS selector (tag, .class,
    /// #id, [attr=value]; needs --state or --images) [default: main, [role=main]]
    #[arg(long, value_name = "SELECTOR", value_parser = ours(Selector::parse))]
    pub digest_region: Option<Selector>,

    /// Remove matches of REGEX from pages before comparing their content (repeatable; needs
    /// --state)
    #[arg(long, value_name = "REGEX", value_parser = ours(parse_regex))]
    pub digest_ignore: Vec<regex::bytes::Regex>,

    /// Write nothing (exit 1) if more than PERCENT of the known URLs would get a new lastmod
    /// (needs --state)
    #[arg(long, value_name = "PERCENT", value_parser = ours(parse_percent))]
    pub max_churn: Option<f64>,

    /// The IndexNow key is in the environment variable NAME: the run writes its key file
    /// DIR/KEY.txt, and --indexnow-submit submits with it
    #[arg(long, value_name = "NAME", conflicts_with = "indexnow_key_file")]
    pub indexnow_key_env: Option<String>,

    /// The IndexNow key is in FILE (as --indexnow-key-env)
    #[arg(long, value_name = "FILE", value_hint = ValueHint::FilePath)]
    pub indexnow_key_file: Option<PathBuf>,

    /// Submit the URLs of the --changes file to IndexNow, after the deploy, instead of
    /// writing a sitemap (needs --base-url, --changes and a key; DIR is not read)
    #[arg(long)]
    pub indexnow_submit: bool,

    /// Where --indexnow-submit posts. A user name and password in this URL (or --state-url's,
    /// --previous-sitemap's) are sent as HTTP Basic authentication, and never shown
    #[arg(long, value_name = "URL", value_hint = ValueHint::Url,
          default_value = crate::submit::indexnow::DEFAULT_ENDPOINT,
          value_parser = ours(|text| given_url(text, "--indexnow-endpoint", Given::Base)))]
    pub indexnow_endpoint: url::Url,

    /// Submit the sitemap (the index when split: the file -o names, or DIR/sitemap.xml) to
    /// Google Search Console, after the deploy, instead of writing one (needs --base-url, DIR
    /// and a service account's key)
    #[arg(long, conflicts_with = "indexnow_submit")]
    pub google_submit: bool,

    /// The JSON key of the service account --google-submit signs in as is in the environment
    /// variable NAME (never shown)
    #[arg(long, value_name = "NAME", conflicts_with = "google_key_file")]
    pub google_key_env: Option<String>,

    /// The service account's JSON key is in FILE (as --google-key-env)
    #[arg(long, value_name = "FILE", value_hint = ValueHint::FilePath)]
    pub google_key_file: Option<PathBuf>,

    /// The Search Console property to submit to: a URL prefix (https://example.com/) or a
    /// Domain property (sc-domain:example.com) [default: the base URL]
    #[arg(long, value_name = "PROPERTY",
          value_parser = ours(|text| crate::submit::google::Property::parse(text)
              .map_err(|err| anyhow::anyhow!("--google-property {err}"))))]
    pub google_property: Option<crate::submit::google::Property>,

    /// The Search Console API --google-submit calls (https, or http on the loopback address);
    /// the access token comes from the key's token_uri
    #[arg(long, value_name = "URL", value_hint = ValueHint::Url,
          default_value = crate::submit::google::DEFAULT_ENDPOINT,
          value_parser = ours(|text| given_url(text, "--google-endpoint", Given::Base)))]
    pub google_endpoint: url::Url,

    /// Give up on an HTTP request (--state-url, --previous-sitemap, --indexnow-submit,
    /// --google-submit) after SECONDS, and on reading --previous-sitemap as a whole (index
    /// and shards)
    #[arg(long, value_name = "SECONDS", default_value_t = 30,
          value_parser = clap::value_parser!(u64).range(1..=3600))]
    pub http_timeout: u64,

    /// Take the list of files from FILE (`-` for standard input) instead of walking DIR
    #[arg(long, value_name = "FILE", value_hint = ValueHint::FilePath)]
    pub files_from: Option<OsString>,

    /// The --files-from list is NUL-separated (as find -print0 writes it)
    #[arg(short = '0', long)]
    pub null: bool,

    /// Do not read pages' heads (by default noindex pages, redirect stubs and pages with
    /// another canonical URL are left out, and hreflang alternates written)
    #[arg(long)]
    pub no_html: bool,

    /// Give every hreflang cluster that has a LANG alternate and declares no x-default one:
    /// its LANG page (the tag as the pages write it, in any case)
    #[arg(long, value_name = "LANG", value_parser = ours(parse_hreflang_default))]
    pub hreflang_default: Option<String>,

    /// The pages of language LANG are those under PATH (a folder of DIR, `/` for all the
    /// rest): the pages at the same path under each locale's PATH are hreflang alternates,
    /// in each language a page's head names none in (repeatable: `--locale en=/ --locale
    /// fr=/fr/`)
    #[arg(long, value_name = "LANG=PATH", value_parser = ours(parse_locale))]
    pub locale: Vec<(String, String)>,

    /// List each page's images as <image:image> (Google's image extension): the <img> and
    /// <picture> sources in its main region (as for --digest-region), and its og:image; on
    /// the base URL's host only, unless --image-host names another. Reads every page whole
    #[arg(long)]
    pub images: bool,

    /// Also list images on HOST, such as a CDN (repeatable; needs --images)
    #[arg(long, value_name = "HOST", value_parser = ours(parse_host))]
    pub image_host: Vec<String>,

    /// Include dot-files and dot-directories
    #[arg(long)]
    pub hidden: bool,

    /// Descend into symlinked directories (loops are detected and skipped)
    #[arg(short = 'L', long)]
    pub follow: bool,

    /// Threads that read directories and pages [default: one per CPU]; the sitemap is the same with any
    #[arg(short = 'j', long, value_name = "N",
          value_parser = clap::value_parser!(u16).range(1..=256))]
    pub jobs: Option<u16>,

    /// Turn every warning into an error: exit 1 and write nothing
    #[arg(long)]
    pub strict: bool,

    /// Print no summary line
    #[arg(short = 'q', long)]
    pub quiet: bool,

    /// Print every excluded path and why
    #[arg(short = 'v', long)]
    pub verbose: bool,

    /// Read settings from FILE [default: sitemapgen.toml in the current directory, if any]
    #[arg(long, value_name = "FILE", conflicts_with = "no_config", value_hint = ValueHint::FilePath)]
    pub config: Option<PathBuf>,

    /// Ignore sitemapgen.toml
    #[arg(long)]
    pub no_config: bool,

    /// Tell why one page is or is not in the sitemap, and its URL, lastmod and alternates,
    /// with the run's other flags; PAGE is a file (in DIR or under the current directory), its
    /// URL (https://example.com/about/) or the URL's path (/about/). Reads that page alone and
    /// writes nothing
    #[arg(long, value_name = "PAGE", conflicts_with_all = ["files_from", "check"])]
    pub explain: Option<OsString>,

    /// Print a completion script for SHELL (bash, elvish, fish, powershell or zsh) and exit
    #[arg(long, value_name = "SHELL", exclusive = true)]
    pub completions: Option<clap_complete::Shell>,
}

/// The options a user reaches for first, in this order: the only ones `-h` shows (so that it
/// fits a screen), and the first of `--help`, under "Options".
const FIRST: &[&str] = &[
    "base-url",
    "output",
    "include",
    "exclude",
    "lastmod",
    "state",
    "state-url",
    "changes",
    "check",
    "explain",
    "verbose",
    "quiet",
    "config",
];

/// --help by topic, after the options a user reaches for first (`FIRST`).
const TOPICS: &[(&str, &[&str])] = &[
    (
        "Output",
        &[
            "gzip",
            "format",
            "xsl",
            "write-xsl",
            "robots",
            "max-urls",
            "group",
            "index-add",
            "add-urls",
            "summary-json",
        ],
    ),
    (
        "Pages and URLs",
        &[
            "include-also",
            "no-default-excludes",
            "clean-urls",
            "no-trailing-slash",
            "computed-urls",
            "ignore-disallow",
            "changefreq",
            "priority",
            "no-html",
            "hreflang-default",
            "images",
            "image-host",
            "hidden",
        ],
    ),
    (
        "Dates and state",
        &[
            "lastmod-format",
            "previous-sitemap",
            "state-copy",
            "source-dates",
            "sources",
            "digest",
            "digest-region",
            "digest-ignore",
            "max-churn",
        ],
    ),
    (
        "Telling search engines (after the deploy)",
        &[
            "indexnow-key-env",
            "indexnow-key-file",
            "indexnow-submit",
            "indexnow-endpoint",
            "google-submit",
            "google-key-env",
            "google-key-file",
            "google-property",
            "google-endpoint",
            "http-timeout",
        ],
    ),
    (
        "Reading the site",
        &[
            "files-from",
            "null",
            "follow",
            "jobs",
            "sub-builds",
            "sub-build",
        ],
    ),
    (
        "Messages and settings",
        &["strict", "no-config", "completions"],
    ),
];

impl Cli {
    /// Whether the sitemap is an index over groups' sitemaps (`--group`, `--index-add`,
    /// `--sub-builds`).
    pub fn grouped(&self) -> bool {
        !self.group.is_empty() || !self.index_add.is_empty() || self.sub_builds()
    }

    /// Whether the sitemap is an index over the sub-builds (`--sub-build` implies it).
    pub fn sub_builds(&self) -> bool {
        self.sub_builds || !self.sub_build.is_empty()
    }
}

/// The command, --help by topic. Its flags take no value: `flag_values` reads `--robots=false`
/// before clap does.
pub fn command() -> clap::Command {
    Cli::command().mut_args(|arg| {
        let topic = TOPICS
            .iter()
            .find(|(_, longs)| arg.get_long().is_some_and(|long| longs.contains(&long)));
        let first = FIRST
            .iter()
            .position(|first| arg.get_long() == Some(*first));
        match (first, topic) {
            (Some(order), _) => arg.display_order(order),
            (None, Some((heading, _))) => arg.help_heading(*heading).hide_short_help(true),
            (None, None) => arg,
        }
    })
}

/// The command line (program name first) with each `--FLAG=VALUE` of a flag read, so that the
/// command line can turn off what a config file turns on (`--robots=false`): a true VALUE
/// (`true`, `yes`, `on`, `1`, …, as clap reads them) becomes `--FLAG`, a false one goes, its
/// flag among those turned off. Read here rather than by clap, whose help would show every
/// flag as `--robots[=<BOOL>]`. Nothing after `--` is read; --no-config takes no value.
pub fn flag_values(args: Vec<OsString>) -> Result<(Vec<OsString>, Vec<clap::Id>), clap::Error> {
    let mut command = command();
    // Built, as clap builds it before parsing, for the parser's error to render the flag.
    command.build();
    let mut kept = Vec::with_capacity(args.len());
    let mut off = Vec::new();
    let mut args = args.into_iter();
    kept.extend(args.next());
    while let Some(given) = args.next() {
        let flag = given
            .to_str()
            .and_then(|text| text.strip_prefix("--")?.split_once('='))
            .and_then(|(long, value)| {
                let arg = command.get_arguments().find(|arg| {
                    arg.get_long() == Some(long)
                        && matches!(arg.get_action(), ArgAction::SetTrue)
                        && arg.get_id() != "no_config"
                })?;
                Some((arg, value))
            });
        match flag {
            Some((arg, value)) => {
                let on =
                    BoolishValueParser::new().parse_ref(&command, Some(arg), value.as_ref())?;
                match on {
                    true => kept.push(format!("--{}", arg.get_long().unwrap_or_default()).into()),
                    false => off.push(arg.get_id().clone()),
                }
            }
            None if given == "--" => {
                kept.push(given);
                kept.extend(args.by_ref());
            }
            None => kept.push(given),
        }
    }
    Ok((kept, off))
}

/// `command` with the rules of how flags combine, for the command line and the config file
/// together (a rule may be met by either); `--indexnow-submit` writes no sitemap, and needs
/// none of what a run needs.
pub fn command_with_rules(run: bool) -> clap::Command {
    let mut command = command();
    for (id, args) in GROUPS {
        command = command.group(ArgGroup::new(*id).args(*args).multiple(true));
    }
    for rule in RULES {
        command = match *rule {
            Rule::Needs(flag, need, _) if run => command.mut_arg(flag, |arg| arg.requires(need)),
            Rule::Needs(..) => command,
            Rule::Conflict(flag, other, _) => {
                command.mut_arg(flag, |arg| arg.conflicts_with(other))
            }
        };
    }
    command
}

/// How two flags combine, where clap can say it (the rest, which depend on values such as
/// `--format txt`, are checked as the settings are built), with the message that says why.
enum Rule {
    /// The first flag needs the second (an argument or one of `GROUPS`).
    Needs(&'static str, &'static str, &'static str),
    /// The two flags exclude each other.
    Conflict(&'static str, &'static str, &'static str),
}

/// Needed alternatives: any one of the arguments will do.
const GROUPS: &[(&str, &[&str])] = &[("state_or_images", &["state", "images"])];

/// In the order they are reported when several are broken.
const RULES: &[Rule] = &[
    Rule::Conflict("quiet", "verbose", "--quiet cannot be used with --verbose"),
    Rule::Needs("digest_ignore", "state", "--digest-ignore needs --state"),
    Rule::Needs("digest", "state", "--digest needs --state"),
    Rule::Needs("max_churn", "state", "--max-churn needs --state"),
    Rule::Needs("state_url", "state", "--state-url needs --state"),
    Rule::Needs("state_copy", "state", "--state-copy needs --state"),
    Rule::Needs(
        "previous_sitemap",
        "state",
        "--previous-sitemap needs --state",
    ),
    Rule::Needs("changes", "state", "--changes needs --state"),
    Rule::Needs(
        "digest_region",
        "state_or_images",
        "--digest-region needs --state or --images",
    ),
    Rule::Needs("image_host", "images", "--image-host needs --images"),
    Rule::Conflict(
        "images",
        "no_html",
        "--images reads the pages, and --no-html reads none: drop one",
    ),
    Rule::Needs("null", "files_from", "-0/--null needs --files-from"),
    Rule::Conflict(
        "follow",
        "files_from",
        "--follow walks DIR, and --files-from names the files instead: drop one",
    ),
    Rule::Conflict(
        "summary_json",
        "check",
        "--check writes nothing, and its differences are on stderr: drop --summary-json",
    ),
];

/// A rule that `matches` (parsed by `command`, which states none) breaks.
pub struct Broken {
    /// The flags at fault, by id: the one that needs another, or both of a conflict.
    pub flags: Vec<&'static str>,
    /// What would meet a rule of need, by id: the argument needed, or each of its group.
    pub needs: Vec<&'static str>,
    pub message: String,
}

/// The first of the rules that `matches` breaks, if any. `matches` is of arguments as
/// `config_file` writes them, where a flag given as false is left out.
pub fn broken_rule(matches: &ArgMatches, run: bool) -> Option<Broken> {
    let given = |id: &str| {
        let present = |id: &str| matches.value_source(id) == Some(ValueSource::CommandLine);
        match GROUPS.iter().find(|(group, _)| *group == id) {
            Some((_, args)) => args.iter().any(|id| present(id)),
            None => present(id),
        }
    };
    RULES.iter().find_map(|rule| match *rule {
        Rule::Needs(flag, need, message) if run && given(flag) && !given(need) => Some(Broken {
            flags: vec![flag],
            needs: match GROUPS.iter().find(|(group, _)| *group == need) {
                Some((_, args)) => args.to_vec(),
                None => vec![need],
            },
            message: format!("{message} (on the command line, or in sitemapgen.toml)"),
        }),
        Rule::Conflict(flag, other, message) if given(flag) && given(other) => Some(Broken {
            flags: vec![flag, other],
            needs: Vec::new(),
            message: message.to_string(),
        }),
        _ => None,
    })
}

/// A value one of our parsers refused; its message names the flag and the value, so it is
/// shown as it is (clap's own errors are rendered by clap).
#[derive(Debug)]
pub struct ValueError(String);

impl std::fmt::Display for ValueError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for ValueError {}

/// The message of a value one of our parsers refused, if that is what `err` is.
pub fn value_error(err: &clap::Error) -> Option<&ValueError> {
    std::error::Error::source(err)?.downcast_ref::<ValueError>()
}

/// A parser of ours, its errors made `ValueError`s.
fn ours<T: Clone + Send + Sync + 'static>(
    parse: fn(&str) -> anyhow::Result<T>,
) -> impl TypedValueParser<Value = T> {
    StringValueParser::new()
        .try_map(move |text| parse(&text).map_err(|e| ValueError(format!("{e:#}"))))
}

/// A flag whose words are offered for completion (`--format`, `--lastmod`).
#[derive(Debug, Clone, Copy)]
struct Words<T> {
    words: &'static [&'static str],
    parse: fn(&str) -> anyhow::Result<T>,
}

impl<T: Clone + Send + Sync + 'static> TypedValueParser for Words<T> {
    type Value = T;

    fn parse_ref(
        &self,
        cmd: &clap::Command,
        arg: Option<&clap::Arg>,
        value: &std::ffi::OsStr,
    ) -> Result<T, clap::Error> {
        ours(self.parse).parse_ref(cmd, arg, value)
    }

    fn possible_values(&self) -> Option<Box<dyn Iterator<Item = PossibleValue> + '_>> {
        Some(Box::new(
            self.words.iter().map(|word| PossibleValue::new(*word)),
        ))
    }
}

/// `--format`.
const FORMAT: Words<Format> = Words {
    words: &["xml", "txt"],
    parse: |text| match text {
        "xml" => Ok(Format::Xml),
        "txt" => Ok(Format::Txt),
        _ => anyhow::bail!("--format {text:?} is not xml or txt"),
    },
};

/// `--lastmod`: a date is taken too.
const LASTMOD: Words<LastmodMode> = Words {
    words: &["mtime", "git", "none", "page", "page,git", "page,none"],
    parse: LastmodMode::parse,
};

/// `--lastmod-format date`: whether only the date of each lastmod is written.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct DateOnly(pub bool);

/// `--lastmod-format`.
const LASTMOD_FORMAT: Words<DateOnly> = Words {
    words: &["datetime", "date"],
    parse: |text| match text {
        "datetime" => Ok(DateOnly(false)),
        "date" => Ok(DateOnly(true)),
        _ => anyhow::bail!("--lastmod-format {text:?} is not datetime or date"),
    },
};

/// `--digest`.
const DIGEST: Words<Mode> = Words {
    words: &["content", "bytes"],
    parse: |text| match text {
        "content" => Ok(Mode::Content),
        "bytes" => Ok(Mode::Bytes),
        _ => anyhow::bail!("--digest {text:?} is not content or bytes"),
    },
};

fn glob_arg(flag: &'static str) -> impl TypedValueParser<Value = String> {
    StringValueParser::new().try_map(move |text| {
        check_glob(&text, flag)
            .map(|()| text)
            .map_err(|e| ValueError(format!("{e:#}")))
    })
}

fn parse_regex(text: &str) -> anyhow::Result<regex::bytes::Regex> {
    regex::bytes::Regex::new(text)
        .map_err(|err| anyhow::anyhow!("--digest-ignore {text:?} is not a valid regex: {err}"))
}

/// `--xsl`: a URL reference, as an href takes it: relative, or absolute with http or https
/// (a `javascript:` or `data:` href is no stylesheet a browser loads from a sitemap).
fn parse_href(text: &str) -> anyhow::Result<String> {
    // Not the URL gate's delimiters: `"`, `<` and `>` are escaped in the instruction.
    if text.is_empty()
        || text.len() >= 2048
        || text.chars().any(|c| c.is_whitespace() || c.is_control())
    {
        anyhow::bail!(
            "--xsl \"{}\" is not a URL (no whitespace or control character, under 2,048 \
             characters)",
            crate::report::shown(text)
        );
    }
    if let Ok(url) = url::Url::parse(text)
        && !matches!(url.scheme(), "http" | "https")
    {
        anyhow::bail!(
            "--xsl {text:?} is not an http or https URL nor a path on the site (such as \
             /sitemap.xsl)"
        );
    }
    Ok(text.to_string())
}

/// An http or https URL with a host.
fn parse_hreflang_default(text: &str) -> anyhow::Result<String> {
    if !crate::decide::verdict::is_hreflang(text) || text.eq_ignore_ascii_case("x-default") {
        anyhow::bail!(
            "--hreflang-default {text:?} is not a language tag (such as en or pt-BR) \
             other than x-default"
        );
    }
    Ok(text.to_string())
}

/// `LANG=PATH`: a language tag and a folder of DIR as a URL path (`/fr/`, `fr`, `/`), given
/// back as the path relative to the base URL with no slash at either end.
fn parse_locale(text: &str) -> anyhow::Result<(String, String)> {
    let Some((lang, path)) = text.split_once('=') else {
        anyhow::bail!("--locale {text:?} is not LANG=PATH (such as fr=/fr/, or en=/)");
    };
    if !crate::decide::verdict::is_hreflang(lang) || lang.eq_ignore_ascii_case("x-default") {
        anyhow::bail!(
            "--locale {text:?}: {lang:?} is not a language tag (such as en or pt-BR) other \
             than x-default"
        );
    }
    let folder = path.trim_matches('/');
    let bad = |segment: &str| matches!(segment, "" | "." | "..");
    if path.contains(['?', '#', '\\']) || (!folder.is_empty() && folder.split('/').any(bad)) {
        anyhow::bail!(
            "--locale {text:?}: {path:?} is not a folder of DIR as a URL path (such as /fr/, \
             or / for the base URL)"
        );
    }
    Ok((lang.to_string(), folder.to_string()))
}

fn parse_percent(text: &str) -> anyhow::Result<f64> {
    match text.parse::<f64>() {
        Ok(percent) if (0.0..=100.0).contains(&percent) => Ok(percent),
        Ok(percent) => anyhow::bail!("--max-churn {percent} is not a percentage from 0 to 100"),
        Err(_) => anyhow::bail!("--max-churn {text:?} is not a number"),
    }
}
