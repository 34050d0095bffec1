//! The command line as clap sees it. Values stay strings here; `config` validates them.

use std::ffi::OsString;
use std::path::PathBuf;

use clap::Parser;

#[derive(Debug, Parser)]
#[command(
    name = "sitemapgen",
    version,
    about = "Write sitemap.xml for a static site's build folder",
    long_about = "Write sitemap.xml for a static site's build folder.\n\n\
        Every page under DIR (by default *.html and *.htm) becomes a <url> whose <loc> is the \
        base URL plus the page's path, percent-encoded byte for byte. <lastmod> comes from the \
        file's mtime unless --lastmod says otherwise. The sitemap is written atomically: a \
        failed run leaves the previous one untouched.",
    after_help = "Settings may also come from sitemapgen.toml (see --config); flags win.\n\
        Exit status: 0 success, 1 runtime failure (or --check found a difference), 2 usage or \
        configuration error."
)]
pub struct Cli {
    /// The site's build folder (e.g. public/, _site/, site/); required, here or in the config
    #[arg(value_name = "DIR")]
    pub dir: Option<PathBuf>,

    /// Public URL of DIR: http or https with a host, optionally a path prefix; required
    #[arg(short = 'b', long, value_name = "URL")]
    pub base_url: Option<String>,

    /// Where to write the sitemap [default: DIR/sitemap.xml]; `-` writes to standard output
    #[arg(short = 'o', long, value_name = "FILE")]
    pub output: Option<PathBuf>,

    /// Compress every file written with gzip [default output: DIR/sitemap.xml.gz]
    #[arg(long)]
    pub gzip: bool,

    /// xml, or txt (one URL per line) [default output: DIR/sitemap.txt]
    #[arg(long, value_name = "FORMAT", default_value = "xml")]
    pub format: String,

    /// Compare the sitemap with the one on disk instead of writing it: exit 0 if identical,
    /// 1 if not (with a summary of the difference)
    #[arg(long)]
    pub check: bool,

    /// Add `Sitemap: URL` for the output to DIR/robots.txt (created if absent)
    #[arg(long)]
    pub robots: bool,

    /// Split into a sitemap index and shards past N URLs per file (the protocol's limit is
    /// 50,000; past 50 MiB a file is split anyway)
    #[arg(long, value_name = "N", default_value_t = 50_000,
          value_parser = clap::value_parser!(u32).range(1..=50_000))]
    pub max_urls: u32,

    /// Files that count as pages (repeatable) [default: *.html, *.htm]
    #[arg(long, value_name = "GLOB")]
    pub include: Vec<String>,

    /// Leave out files or directories (repeatable), in addition to the default excludes
    #[arg(long, value_name = "GLOB")]
    pub exclude: Vec<String>,

    /// Drop the default excludes (404 pages, search-engine verification pages)
    #[arg(long)]
    pub no_default_excludes: bool,

    /// Map about.html to /about (for hosts that serve clean URLs)
    #[arg(long)]
    pub clean_urls: bool,

    /// Map docs/index.html to /docs instead of /docs/
    #[arg(long)]
    pub no_trailing_slash: bool,

    /// Write <changefreq> on pages matching GLOB (repeatable; the last matching rule wins)
    #[arg(long, value_name = "GLOB=FREQ")]
    pub changefreq: Vec<String>,

    /// Write <priority> on pages matching GLOB (repeatable; the last matching rule wins)
    #[arg(long, value_name = "GLOB=VALUE")]
    pub priority: Vec<String>,

    /// mtime, git (last commit's date), none, or a fixed W3C date (2024-05-01) or datetime
    /// with zone; with --state, the date of a new or changed page
    #[arg(long, value_name = "MODE", default_value = "mtime")]
    pub lastmod: String,

    /// Keep each page's lastmod while its content stays the same, recorded in FILE
    #[arg(long, value_name = "FILE")]
    pub state: Option<PathBuf>,

    /// Remove matches of REGEX from pages before comparing their content (repeatable)
    #[arg(long, value_name = "REGEX", requires = "state")]
    pub digest_ignore: Vec<String>,

    /// Write nothing (exit 1) if more than PERCENT of the known URLs would get a new lastmod
    #[arg(long, value_name = "PERCENT", requires = "state")]
    pub max_churn: Option<f64>,

    /// Take the list of files from FILE (`-` for standard input) instead of walking DIR
    #[arg(long, value_name = "FILE", conflicts_with = "follow")]
    pub files_from: Option<OsString>,

    /// The --files-from list is NUL-separated (as find -print0 writes it)
    #[arg(short = '0', long, requires = "files_from")]
    pub null: bool,

    /// Do not read pages' heads (by default noindex pages, redirect stubs and pages with
    /// another canonical URL are left out, and hreflang alternates written)
    #[arg(long)]
    pub no_html: bool,

    /// Include dot-files and dot-directories
    #[arg(long)]
    pub hidden: bool,

    /// Descend into symlinked directories (loops are detected and skipped)
    #[arg(short = 'L', long)]
    pub follow: bool,

    /// Turn every warning into an error: exit 1 and write nothing
    #[arg(long)]
    pub strict: bool,

    /// Print no summary line
    #[arg(short = 'q', long, conflicts_with = "verbose")]
    pub quiet: bool,

    /// Print every excluded path and why
    #[arg(short = 'v', long)]
    pub verbose: bool,

    /// Read settings from FILE [default: sitemapgen.toml in the current directory, if any]
    #[arg(long, value_name = "FILE", conflicts_with = "no_config")]
    pub config: Option<PathBuf>,

    /// Ignore sitemapgen.toml
    #[arg(long)]
    pub no_config: bool,

    /// Print a completion script for SHELL (bash, zsh or fish) and exit
    #[arg(long, value_name = "SHELL", exclusive = true)]
    pub completions: Option<clap_complete::Shell>,
}
