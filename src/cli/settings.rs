//! The command line, merged with the config file, checked as a whole and made into each
//! stage's settings. Every usage error is found here, before any work.

use std::ffi::OsString;
use std::fs;
use std::path::Path;
use std::time::Duration;

use anyhow::{Context, Result, bail};

use super::args::Cli;
use super::place::{Claimed, Place, claim_outputs, path_inside};
use crate::decide::lastmod::{self, LastmodMode, StateSettings};
use crate::decide::rules::{GroupRules, PathRules, ValueRules};
use crate::explain::Asked;
use crate::outputs::key::Key;
use crate::outputs::{Destination, Format};
use crate::report::Verbosity;
use crate::run::Settings;
use crate::scan::digest::{DigestRules, Mode};
use crate::scan::images::ImageRules;
use crate::sitemap::alternates::Locale;
use crate::sitemap::foreign;
use crate::url::{BaseUrl, Mapping, normal_path};
use crate::walk::builds;
use crate::walk::rules::{RuleSpec, Rules};
use crate::walk::{ListFrom, Source};
use crate::{decide, publish, scan, sitemap, state, walk};

/// A setting the command cannot do without is missing (`--base-url`, DIR): clap's kind of
/// error, with the usage and the pointer to --help any mistake on the command line gets.
pub(super) fn missing(message: &str) -> anyhow::Error {
    let message = format!("{message} (on the command line, or in sitemapgen.toml)");
    clap::Error::raw(clap::error::ErrorKind::MissingRequiredArgument, message)
        .format(&mut super::command())
        .into()
}

/// (clap refuses --quiet with --verbose.)
pub(super) fn verbosity(cli: &Cli) -> Verbosity {
    match (cli.quiet, cli.verbose) {
        (true, _) => Verbosity::Quiet,
        (_, true) => Verbosity::Verbose,
        _ => Verbosity::Normal,
    }
}

/// The IndexNow key, from the environment or a file, if one is named.
pub(super) fn indexnow_key(cli: &Cli) -> Result<Option<Key>> {
    if let Some(name) = &cli.indexnow_key_env {
        let Ok(value) = std::env::var(name) else {
            bail!("--indexnow-key-env {name}: the environment variable {name} is not set");
        };
        let source = format!("the environment variable {name}");
        return Key::parse(&value, &source).map(Some);
    }
    let Some(path) = &cli.indexnow_key_file else {
        return Ok(None);
    };
    let source = format!("--indexnow-key-file {}", path.display());
    let text = key_file(path, 1024, &source)?;
    Key::parse(&String::from_utf8_lossy(&text), &source).map(Some)
}

/// The contents of a key file (`source` names it in messages): a regular file of at most
/// `limit` bytes, never a FIFO or a device, which could hang the run or never end.
pub(super) fn key_file(path: &Path, limit: u64, source: &str) -> Result<Vec<u8>> {
    crate::io::input::read_file(path, limit)
        .and_then(|text| text.ok_or_else(|| std::io::ErrorKind::NotFound.into()))
        .with_context(|| format!("cannot read {source}"))
}

/// The run's settings: the checks that depend on values (clap has checked how flags combine),
/// where the outputs go and who owns each path, then one builder per stage.
pub fn settings(cli: Cli) -> Result<(Settings, Option<Asked>)> {
    let indexnow_key = indexnow_key(&cli)?;
    let Some(base) = cli.base_url.clone() else {
        return Err(missing("--base-url is required"));
    };
    let Some(dir) = cli.dir.clone() else {
        return Err(missing("DIR is required"));
    };
    check_values(&cli)?;
    let source_date_epoch = source_date_epoch()?;
    match fs::metadata(&dir) {
        Ok(meta) if meta.is_dir() => {}
        Ok(_) => bail!("DIR {} is not a directory", dir.display()),
        Err(err) => bail!("DIR {}: {err}", dir.display()),
    }
    let groups = GroupRules::new(&cli.group)?;
    let mut output = Place::new(&cli, &dir, &base, &groups)?;
    let mut rules = Rules::new(&RuleSpec {
        includes: &cli.include,
        also: &cli.include_also,
        excludes: &cli.exclude,
        default_excludes: !cli.no_default_excludes,
        hidden: cli.hidden,
        own_output: output.own(),
    })?;
    let found = match cli.sub_builds() {
        true => builds::find(&dir, &builds::Choose::new(&cli.sub_build)?, &rules)?,
        false => builds::Found::default(),
    };
    rules.set_apart(found.apart());
    let claimed = claim_outputs(&cli, &dir, &rules, &mut output, indexnow_key.as_ref())?;
    let verbosity = verbosity(&cli);
    let scan = scan_settings(&cli, &base, &rules, claimed.state.is_some());
    let (state, frozen) = state_settings(&cli, &dir, &output, &claimed, &scan);
    let lastmod = lastmod_settings(&cli, &dir, frozen, source_date_epoch);
    let foreign = foreign::Settings {
        root: dir.clone(),
        base: base.clone(),
        sub_builds: found.builds,
        problems: found.problems,
        index_add: claimed.index_add,
        timeout: Duration::from_secs(cli.http_timeout),
    };
    let decide = decide_settings(&cli, &base, &dir, scan, groups, lastmod)?;
    let explain = match &cli.explain {
        Some(page) => Some(Asked::resolve(page, &dir, &base, &decide.mapping)?),
        None => None,
    };
    let settings = Settings {
        state,
        decide,
        walk: walk_settings(&cli, &dir, rules, verbosity, explain.as_ref()),
        publish: publish::Settings {
            root: dir,
            base: base.clone(),
            robots: output.dir_url.clone().filter(|_| cli.robots),
            indexnow_key,
            write_xsl: cli.write_xsl,
        },
        sitemap: sitemap_settings(&cli, &base, output, foreign),
        check: cli.check,
        summary_json: claimed.summary_json,
        verbosity,
        strict: cli.strict,
        jobs: cli.jobs.map_or_else(
            || std::thread::available_parallelism().map_or(1, |n| n.get()),
            usize::from,
        ),
    };
    Ok((settings, explain))
}

/// How values combine where clap cannot say it: what a format or a mode leaves no room for.
fn check_values(cli: &Cli) -> Result<()> {
    let txt = cli.format == Format::Txt;
    if cli.hreflang_default.is_some() && txt {
        bail!(
            "a text sitemap (--format txt) has no alternates: drop --hreflang-default, or write XML"
        );
    }
    if !cli.locale.is_empty() && txt {
        bail!("a text sitemap (--format txt) has no alternates: drop --locale, or write XML");
    }
    if cli.hreflang_default.is_some() && cli.no_html && cli.locale.is_empty() {
        bail!(
            "--hreflang-default adds to the alternates the pages' heads name, and --no-html \
             reads none: drop one, or give --locale"
        );
    }
    for (at, (lang, folder)) in cli.locale.iter().enumerate() {
        for (other, other_folder) in &cli.locale[..at] {
            if other.eq_ignore_ascii_case(lang) {
                bail!("--locale names the language {lang:?} twice: give each language once");
            }
            if other_folder == folder {
                bail!(
                    "--locale gives {other} and {lang} the same folder /{folder}: give each \
                     language its own"
                );
            }
        }
    }
    if cli.images && txt {
        bail!("a text sitemap (--format txt) cannot list images: drop --images, or write XML");
    }
    // With --images, the region is the images' as well as the digest's.
    if cli.digest_region.is_some() && cli.digest == Some(Mode::Bytes) && !cli.images {
        bail!(
            "--digest-region names the region of a content digest, and --digest bytes counts every byte: drop one"
        );
    }
    if cli.lastmod == LastmodMode::Omit && cli.state.is_some() {
        bail!("--state keeps dates, and --lastmod none writes none: drop one of them");
    }
    if cli.lastmod == LastmodMode::Omit && cli.source_dates.is_some() {
        bail!("--source-dates gives dates, and --lastmod none writes none: drop one of them");
    }
    if cli.lastmod == LastmodMode::Omit && cli.sources.is_some() {
        bail!("--sources gives dates, and --lastmod none writes none: drop one of them");
    }
    if cli.grouped() && txt {
        bail!(
            "a text sitemap has no index to group sitemaps under: drop --group, \
             --index-add and --sub-builds, or --format txt"
        );
    }
    if (cli.xsl.is_some() || cli.write_xsl) && txt {
        bail!("a text sitemap has no stylesheet: drop --xsl and --write-xsl, or --format txt");
    }
    Ok(())
}

/// Whether the pages are split into groups under an index.
fn source_date_epoch() -> Result<Option<i64>> {
    match std::env::var("SOURCE_DATE_EPOCH") {
        Ok(text) if !text.is_empty() => match text.parse::<i64>() {
            Ok(seconds) => Ok(Some(seconds)),
            Err(_) => bail!("SOURCE_DATE_EPOCH {text:?} is not a number of seconds"),
        },
        _ => Ok(None),
    }
}

/// With --explain, the walk is of its page alone, as a list of one file, each step named.
fn walk_settings(
    cli: &Cli,
    dir: &Path,
    rules: Rules,
    verbosity: Verbosity,
    explain: Option<&Asked>,
) -> walk::Settings {
    let list = match (explain, cli.files_from.clone()) {
        (Some(asked), _) => Some(ListFrom::Page(asked.rel.clone())),
        (None, from) => from.map(list_from),
    };
    walk::Settings {
        root: dir.to_path_buf(),
        source: match list {
            None => Source::Walk { follow: cli.follow },
            Some(from) => Source::List {
                from,
                separator: if cli.null { b'\0' } else { b'\n' },
            },
        },
        rules,
        verbose: verbosity == Verbosity::Verbose || explain.is_some(),
    }
}

/// How the pages are read, the same for every page: `--digest-region`, the region of the
/// digest and of the images; with `--state`, the digest's rules; with `--images`, which
/// images are listed.
fn scan_settings(cli: &Cli, base: &BaseUrl, rules: &Rules, state: bool) -> scan::Settings {
    scan::Settings {
        region: cli.digest_region.clone(),
        digest: state.then(|| {
            DigestRules::new(
                cli.digest.unwrap_or(Mode::Content),
                cli.digest_ignore.clone(),
            )
        }),
        images: cli.images.then(|| {
            ImageRules::new(base, cli.image_host.clone()).excluding({
                let excludes = rules.excludes().clone();
                move |path| excludes.leave_out(path)
            })
        }),
    }
}

fn decide_settings(
    cli: &Cli,
    base: &BaseUrl,
    dir: &Path,
    scan: scan::Settings,
    groups: GroupRules,
    lastmod: lastmod::Settings,
) -> Result<decide::Settings> {
    Ok(decide::Settings {
        base: base.clone(),
        mapping: Mapping {
            clean_urls: cli.clean_urls,
            trailing_slash: !cli.no_trailing_slash,
        },
        read_html: !cli.no_html,
        error_pages: !cli.no_default_excludes,
        computed_urls: cli.computed_urls,
        // Crawlers read robots.txt only at the root of a host.
        robots_txt: (!cli.ignore_disallow && base.is_host_root()).then(|| dir.join("robots.txt")),
        scan,
        add_urls: cli.add_urls.clone(),
        source_dates: cli.source_dates.clone(),
        sources: cli.sources.clone(),
        rules: PathRules {
            changefreq: ValueRules::new(&cli.changefreq, "--changefreq")?,
            priority: ValueRules::new(&cli.priority, "--priority")?,
            groups,
        },
        lastmod,
    })
}

fn lastmod_settings(
    cli: &Cli,
    dir: &Path,
    state: Option<StateSettings>,
    source_date_epoch: Option<i64>,
) -> lastmod::Settings {
    lastmod::Settings {
        mode: cli.lastmod.clone(),
        source_date_epoch,
        root: dir.to_path_buf(),
        state,
    }
}

/// The state stage's settings (read before the walk, written by publish), and what deciding
/// the pages needs of it: whether it records the new state. The digest's rules, `scan`'s,
/// are named in the state.
fn state_settings(
    cli: &Cli,
    dir: &Path,
    output: &Place,
    claimed: &Claimed,
    scan: &scan::Settings,
) -> (Option<state::Settings>, Option<StateSettings>) {
    let write =
        !cli.check && cli.explain.is_none() && matches!(output.destination, Destination::File(_));
    claimed
        .state
        .clone()
        .zip(scan.describe_digest())
        .map(|(path, rules)| {
            let copy = claimed.state_copy.clone();
            let in_dir = std::iter::once(&path)
                .chain(&copy)
                .any(|path| path_inside(dir, path).is_some());
            let settings = state::Settings {
                in_dir,
                path,
                copy,
                ci: in_ci(),
                rules,
                max_churn: cli.max_churn,
                write,
                url: cli.state_url.clone(),
                previous_sitemap: cli.previous_sitemap.clone(),
                timeout: Duration::from_secs(cli.http_timeout),
                changes: claimed.changes.clone(),
            };
            let frozen = StateSettings { record: write };
            (settings, frozen)
        })
        .unzip()
}

/// Whether the run is in CI: `CI` set to anything but empty, `0` or `false`, as GitHub,
/// GitLab, CircleCI, Travis, Buildkite, Netlify and Vercel set it.
fn in_ci() -> bool {
    std::env::var_os("CI").is_some_and(|value| !matches!(value.to_str(), Some("" | "0" | "false")))
}

fn sitemap_settings(
    cli: &Cli,
    base: &BaseUrl,
    output: Place,
    foreign: foreign::Settings,
) -> sitemap::Settings {
    sitemap::Settings {
        format: cli.format,
        gzip: cli.gzip,
        max_urls: cli.max_urls as usize,
        destination: output.destination,
        dir_url: output.dir_url,
        scratch: cli.check,
        // A path on the site, so that the stylesheet comes from the same origin as the
        // sitemap wherever the site is served (browsers refuse another's).
        stylesheet: cli.xsl.clone().or_else(|| {
            cli.write_xsl
                .then(|| format!("{}{}", base.path(), publish::STYLESHEET))
        }),
        foreign,
        hreflang_default: cli.hreflang_default.clone(),
        date_only: cli.lastmod_format.0,
        locales: cli
            .locale
            .iter()
            .map(|(lang, folder)| Locale {
                lang: lang.clone(),
                folder: normal_path(&format!("{}{folder}", base.path()))
                    .trim_end_matches('/')
                    .to_string(),
            })
            .collect(),
        base_path: base.path().to_string(),
    }
}

fn list_from(arg: OsString) -> ListFrom {
    if arg == "-" {
        ListFrom::Stdin
    } else {
        ListFrom::File(arg.into())
    }
}
