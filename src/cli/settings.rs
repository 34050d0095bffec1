//! The command line, merged with the config file, checked as a whole and made into each
//! stage's settings. Every usage error is found here, before any work.

use std::ffi::OsString;
use std::fs;
use std::io::Read;
use std::os::unix::ffi::OsStrExt;
use std::path::{Path, PathBuf};
use std::time::Duration;

use anyhow::{Context, Result, bail};

use super::args::Cli;
use crate::decide::lastmod::{self, LastmodMode, StateSettings};
use crate::outputs::claim::{self, Holds, Output};
use crate::outputs::{self, Destination, Files, Format};
use crate::report::Verbosity;
use crate::run::Settings;
use crate::scan::digest::{DigestRules, Mode};
use crate::scan::images::ImageRules;
use crate::submit::{google, indexnow};
use crate::url::{BaseUrl, Mapping, encode_path};
use crate::walk::rules::{GroupRules, RuleSpec, Rules, ValueRules};
use crate::walk::{ListFrom, Source};
use crate::{decide, publish, sitemap, state, summary, walk};

const HINT: &str = "(on the command line, or in sitemapgen.toml)";

/// `--indexnow-submit`'s settings.
pub fn submit_settings(cli: Cli) -> Result<indexnow::Settings> {
    let Some(base) = cli.base_url.clone() else {
        bail!("--base-url is required {HINT}");
    };
    let Some(changes) = cli.changes.clone() else {
        bail!("--indexnow-submit submits the URLs of the --changes file: name it {HINT}");
    };
    let Some(key) = indexnow_key(&cli)? else {
        bail!("--indexnow-submit needs the key: --indexnow-key-env or --indexnow-key-file {HINT}");
    };
    let receipt = indexnow::receipt_path(&changes);
    let what = format!("the receipt {}", receipt.display());
    claim::check(&[Output::new(what, receipt, Holds::Receipt)], None, |_| {
        false
    })?;
    Ok(indexnow::Settings {
        changes,
        base,
        key,
        verbosity: verbosity(&cli),
        endpoint: cli.indexnow_endpoint,
        timeout: Duration::from_secs(cli.http_timeout),
    })
}

/// The sitemap's name in DIR when -o names none.
fn default_name(format: Format, gzip: bool) -> String {
    format!(
        "sitemap.{}{}",
        match format {
            Format::Xml => "xml",
            Format::Txt => "txt",
        },
        if gzip { ".gz" } else { "" }
    )
}

/// `--google-submit`'s settings: the sitemap is the file a run with these options writes,
/// at its URL under the base URL.
pub fn google_settings(cli: Cli) -> Result<google::Settings> {
    let Some(base) = cli.base_url.clone() else {
        bail!("--base-url is required {HINT}");
    };
    let Some(dir) = cli.dir.clone() else {
        bail!("--google-submit submits the sitemap in DIR: name DIR {HINT}");
    };
    let path = match &cli.output {
        Some(path) if path.as_os_str() == "-" => {
            bail!("--google-submit submits a sitemap file, and -o - names none")
        }
        Some(path) => path.clone(),
        None => dir.join(default_name(cli.format, cli.gzip)),
    };
    let Some(rel) = path_inside(&dir, &path) else {
        bail!(
            "the sitemap {} is outside DIR {}, so it has no public URL to submit",
            path.display(),
            dir.display()
        );
    };
    if !fs::metadata(&path).is_ok_and(|meta| meta.is_file()) {
        bail!(
            "the sitemap {} is not there: --google-submit submits the one a run wrote, after the deploy",
            path.display()
        );
    }
    let sitemap =
        url::Url::parse(&base.join(&encode_path(&rel))).context("the sitemap's URL is a URL")?;
    let property = match cli.google_property.clone() {
        Some(property) => property,
        None => google::Property::parse(&base.join(""))
            .map_err(|err| anyhow::anyhow!("the base URL as the Search Console property: {err}"))?,
    };
    if !property.holds(&sitemap) {
        bail!(
            "the sitemap {sitemap} is not in the Search Console property {property}: Search \
             Console takes a property's own sitemaps only\n\
             hint: name the property the site belongs to with --google-property"
        );
    }
    let Some(account) = google_account(&cli)? else {
        bail!(
            "--google-submit needs the service account's key: --google-key-env or \
             --google-key-file {HINT}"
        );
    };
    google::secure(&cli.google_endpoint, "--google-endpoint")?;
    Ok(google::Settings {
        account,
        property,
        sitemap,
        verbosity: verbosity(&cli),
        endpoint: cli.google_endpoint,
        timeout: Duration::from_secs(cli.http_timeout),
    })
}

/// The service account of `--google-key-env` or `--google-key-file`, if one is named.
fn google_account(cli: &Cli) -> Result<Option<google::Account>> {
    if let Some(name) = &cli.google_key_env {
        let Some(value) = std::env::var_os(name) else {
            bail!("--google-key-env {name}: the environment variable {name} is not set");
        };
        let source = format!("the environment variable {name}");
        return google::Account::parse(value.as_bytes(), &source).map(Some);
    }
    let Some(path) = &cli.google_key_file else {
        return Ok(None);
    };
    let source = format!("--google-key-file {}", path.display());
    let text = crate::io::input::read_file(path, google::MAX_JSON)
        .and_then(|text| text.ok_or_else(|| std::io::ErrorKind::NotFound.into()))
        .with_context(|| format!("cannot read {source}"))?;
    google::Account::parse(&text, &source).map(Some)
}

/// (clap refuses --quiet with --verbose.)
fn verbosity(cli: &Cli) -> Verbosity {
    match (cli.quiet, cli.verbose) {
        (true, _) => Verbosity::Quiet,
        (_, true) => Verbosity::Verbose,
        _ => Verbosity::Normal,
    }
}

/// The IndexNow key, from the environment or a file, if one is named.
fn indexnow_key(cli: &Cli) -> Result<Option<indexnow::Key>> {
    if let Some(name) = &cli.indexnow_key_env {
        let Ok(value) = std::env::var(name) else {
            bail!("--indexnow-key-env {name}: the environment variable {name} is not set");
        };
        let source = format!("the environment variable {name}");
        return indexnow::Key::parse(&value, &source).map(Some);
    }
    let Some(path) = &cli.indexnow_key_file else {
        return Ok(None);
    };
    let source = format!("--indexnow-key-file {}", path.display());
    let mut text = Vec::new();
    fs::File::open(path)
        .and_then(|file| file.take(1024).read_to_end(&mut text))
        .with_context(|| format!("cannot read {source}"))?;
    indexnow::Key::parse(&String::from_utf8_lossy(&text), &source).map(Some)
}

/// The run's settings: the checks that depend on values (clap has checked how flags combine),
/// where the outputs go and who owns each path, then one builder per stage.
pub fn settings(cli: Cli) -> Result<Settings> {
    let indexnow_key = indexnow_key(&cli)?;
    let Some(base) = cli.base_url.clone() else {
        bail!("--base-url is required {HINT}");
    };
    let Some(dir) = cli.dir.clone() else {
        bail!("DIR is required {HINT}");
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
    let rules = Rules::new(&RuleSpec {
        includes: &cli.include,
        excludes: &cli.exclude,
        default_excludes: !cli.no_default_excludes,
        hidden: cli.hidden,
        own_output: output.own(),
    })?;
    let claimed = claim_outputs(&cli, &dir, &rules, &mut output, indexnow_key.as_ref())?;
    let verbosity = verbosity(&cli);
    let (state, frozen) = state_settings(&cli, &dir, &output, (claimed.state, claimed.changes));
    let lastmod = lastmod_settings(&cli, &dir, frozen, source_date_epoch);
    Ok(Settings {
        state,
        decide: decide_settings(&cli, &base, &dir, &rules, groups, lastmod)?,
        walk: walk_settings(&cli, &dir, rules, verbosity),
        publish: publish::Settings {
            root: dir,
            base: base.clone(),
            robots: output.dir_url.clone().filter(|_| cli.robots),
            indexnow_key,
            write_xsl: cli.write_xsl,
        },
        sitemap: sitemap_settings(&cli, &base, output, claimed.index_add),
        check: cli.check,
        summary_json: claimed.summary_json,
        verbosity,
        strict: cli.strict,
        jobs: cli.jobs.map_or_else(
            || std::thread::available_parallelism().map_or(1, |n| n.get()),
            usize::from,
        ),
    })
}

/// How values combine where clap cannot say it: what a format or a mode leaves no room for.
fn check_values(cli: &Cli) -> Result<()> {
    let txt = cli.format == Format::Txt;
    if cli.hreflang_default.is_some() && txt {
        bail!(
            "a text sitemap (--format txt) has no alternates: drop --hreflang-default, or write XML"
        );
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
    if grouped(cli) && txt {
        bail!(
            "a text sitemap has no index to group sitemaps under: drop --group and \
             --index-add, or --format txt"
        );
    }
    if (cli.xsl.is_some() || cli.write_xsl) && txt {
        bail!("a text sitemap has no stylesheet: drop --xsl and --write-xsl, or --format txt");
    }
    Ok(())
}

/// Whether the pages are split into groups under an index.
fn grouped(cli: &Cli) -> bool {
    !cli.group.is_empty() || !cli.index_add.is_empty()
}

fn source_date_epoch() -> Result<Option<i64>> {
    match std::env::var("SOURCE_DATE_EPOCH") {
        Ok(text) if !text.is_empty() => match text.parse::<i64>() {
            Ok(seconds) => Ok(Some(seconds)),
            Err(_) => bail!("SOURCE_DATE_EPOCH {text:?} is not a number of seconds"),
        },
        _ => Ok(None),
    }
}

/// Where the sitemap goes, and what that allows.
struct Place {
    destination: Destination,
    /// The output's directory relative to DIR, when it lies inside it.
    own_dir: Option<PathBuf>,
    /// The public URL of the output's directory, when it lies inside DIR.
    dir_url: Option<String>,
}

impl Place {
    fn new(cli: &Cli, dir: &Path, base: &BaseUrl, groups: &GroupRules) -> Result<Place> {
        let (format, grouped) = (cli.format, grouped(cli));
        let files =
            |path, target| Files::new(path, target, (format, cli.gzip), groups.names(), grouped);
        let destination = match &cli.output {
            Some(path) if path.as_os_str() == "-" => Destination::Stdout,
            Some(path) => {
                check_gzip_name(path, cli.gzip)?;
                Destination::File(files(path.clone(), path.clone()))
            }
            None => {
                let path = dir.join(default_name(format, cli.gzip));
                Destination::File(files(path.clone(), path))
            }
        };
        let own_dir = match &destination {
            Destination::File(files) => path_inside(dir, files.dir()),
            Destination::Stdout => None,
        };
        let dir_url = own_dir.as_ref().map(|dir| {
            let path = encode_path(dir);
            base.join(&if path.is_empty() { path } else { path + "/" })
        });
        let output = Place {
            destination,
            own_dir,
            dir_url,
        };
        output.check(cli)?;
        Ok(output)
    }

    /// What a preview on standard output, or an output outside DIR, cannot do.
    fn check(&self, cli: &Cli) -> Result<()> {
        let preview = self.destination == Destination::Stdout;
        if cli.check && preview {
            bail!("--check compares with the files on disk, and -o - names none");
        }
        if cli.robots && preview {
            bail!("-o - is a preview and writes no robots.txt: drop --robots");
        }
        if cli.changes.is_some() && preview {
            bail!("-o - is a preview and writes no changes file: drop --changes");
        }
        if cli.summary_json.is_some() && preview {
            bail!("-o - is a preview and writes no summary: drop --summary-json");
        }
        if cli.write_xsl && preview {
            bail!("-o - is a preview and writes nothing into DIR: drop --write-xsl");
        }
        if cli.robots && self.dir_url.is_none() {
            bail!("--robots needs the output inside DIR, where it has a public URL");
        }
        if grouped(cli) && preview {
            bail!("-o - shows one file, and --group and --index-add make an index over several");
        }
        if grouped(cli) && self.dir_url.is_none() {
            bail!(
                "--group and --index-add make an index over sitemaps beside it, which need the \
                 output inside DIR, where they have public URLs"
            );
        }
        Ok(())
    }

    /// The output's directory inside DIR and its files, which the walk leaves out.
    fn own(&self) -> Option<(&Path, &Files)> {
        match (&self.destination, &self.own_dir) {
            (Destination::File(files), Some(dir)) => Some((dir.as_path(), files)),
            _ => None,
        }
    }
}

/// The paths of the outputs the user named, as the one rule for every output settled them.
struct Claimed {
    state: Option<PathBuf>,
    changes: Option<PathBuf>,
    summary_json: Option<summary::To>,
    index_add: Vec<String>,
}

/// Checks every file the run writes against each other and the site (`outputs::claim`),
/// and points each at the file it writes through a symlink.
fn claim_outputs(
    cli: &Cli,
    dir: &Path,
    rules: &Rules,
    output: &mut Place,
    indexnow_key: Option<&indexnow::Key>,
) -> Result<Claimed> {
    let summary_json = cli
        .summary_json
        .clone()
        .map(|path| match path.as_os_str().as_bytes() {
            b"-" => summary::To::Stdout,
            _ => summary::To::File(path),
        });
    let summary_path = match &summary_json {
        Some(summary::To::File(path)) => Some(path.as_path()),
        _ => None,
    };
    let named = [
        (cli.output.as_deref(), "-o"),
        (cli.state.as_deref(), "--state"),
        (cli.changes.as_deref(), "--changes"),
        (summary_path, "--summary-json"),
    ];
    let outputs = run_outputs(named, &output.destination, dir, indexnow_key, cli.write_xsl);
    let targets = claim::check(
        &outputs,
        match &output.destination {
            Destination::File(files) => Some(files),
            Destination::Stdout => None,
        },
        |path| path_inside(dir, path).is_some_and(|rel| rules.selects(&rel)),
    )?;
    let target = |holds| {
        outputs
            .iter()
            .zip(&targets)
            .find_map(|(output, target)| (output.holds == holds).then(|| target.clone()))
    };
    if let (Destination::File(files), Some(target)) =
        (&mut output.destination, target(Holds::Sitemap))
    {
        if cli.output.is_none() && path_inside(dir, &target).is_none() {
            bail!(
                "the output {} is a symlink to a file outside DIR; sitemapgen writes outside \
                 DIR only where -o says so\nhint: name it with -o, or remove the link",
                files.path.display()
            );
        }
        files.target = target;
    }
    let summary_json = summary_json.map(|to| match (to, target(Holds::Summary)) {
        (summary::To::File(_), Some(target)) => summary::To::File(target),
        (to, _) => to,
    });
    let index_add = match (&output.destination, &output.dir_url) {
        (Destination::File(files), Some(dir_url)) => {
            let taken = |path: &Path| {
                claim::output_at(path, &outputs, &targets).map(|output| output.what.clone())
            };
            let is_page = |path: &Path| path_inside(dir, path).is_some_and(|r| rules.selects(&r));
            index_add(cli.index_add.clone(), files, dir_url, (taken, is_page))?
        }
        _ => Vec::new(),
    };
    // What --index-add lists beside the index stays, even a group's file of an earlier run.
    if let Destination::File(files) = &mut output.destination {
        files.keep(&index_add, output.dir_url.as_deref().unwrap_or_default());
    }
    Ok(Claimed {
        state: target(Holds::State),
        changes: target(Holds::Changes),
        summary_json,
        index_add,
    })
}

fn walk_settings(cli: &Cli, dir: &Path, rules: Rules, verbosity: Verbosity) -> walk::Settings {
    walk::Settings {
        root: dir.to_path_buf(),
        source: match cli.files_from.clone() {
            None => Source::Walk { follow: cli.follow },
            Some(from) => Source::List {
                from: list_from(from),
                separator: if cli.null { b'\0' } else { b'\n' },
            },
        },
        rules,
        verbose: verbosity == Verbosity::Verbose,
    }
}

fn decide_settings(
    cli: &Cli,
    base: &BaseUrl,
    dir: &Path,
    rules: &Rules,
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
        computed_urls: cli.computed_urls,
        // Crawlers read robots.txt only at the root of a host.
        robots_txt: (!cli.ignore_disallow && base.is_host_root()).then(|| dir.join("robots.txt")),
        images: cli.images.then(|| {
            ImageRules::new(base, cli.image_host.clone(), cli.digest_region.clone())
                .excluding(rules.excludes().clone())
        }),
        add_urls: cli.add_urls.clone(),
        changefreq: ValueRules::new(&cli.changefreq, "--changefreq")?,
        priority: ValueRules::new(&cli.priority, "--priority")?,
        groups,
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
/// the pages needs of it: the digest's rules, and whether it records the new state.
fn state_settings(
    cli: &Cli,
    dir: &Path,
    output: &Place,
    (state, changes): (Option<PathBuf>, Option<PathBuf>),
) -> (Option<state::Settings>, Option<StateSettings>) {
    let write = !cli.check && matches!(output.destination, Destination::File(_));
    state
        .map(|path| {
            let digest = DigestRules::new(
                cli.digest.unwrap_or(Mode::Content),
                cli.digest_region.clone(),
                cli.digest_ignore.clone(),
            );
            let settings = state::Settings {
                in_dir: path_inside(dir, &path).is_some(),
                path,
                rules: digest.describe(),
                max_churn: cli.max_churn,
                write,
                url: cli.state_url.clone(),
                previous_sitemap: cli.previous_sitemap.clone(),
                timeout: Duration::from_secs(cli.http_timeout),
                changes,
            };
            let frozen = StateSettings {
                digest,
                record: write,
            };
            (settings, frozen)
        })
        .unzip()
}

fn sitemap_settings(
    cli: &Cli,
    base: &BaseUrl,
    output: Place,
    index_add: Vec<String>,
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
        index_add,
        hreflang_default: cli.hreflang_default.clone(),
    }
}

/// `--index-add`'s URLs, each under the index's directory `dir_url` (the protocol lets an
/// index list only those), none twice; none a file this run writes (`taken` names the
/// output at a path), nor a page (`is_page`), nor a file there that is not a sitemap.
fn index_add(
    urls: Vec<url::Url>,
    files: &Files,
    dir_url: &str,
    (taken, is_page): (impl Fn(&Path) -> Option<String>, impl Fn(&Path) -> bool),
) -> Result<Vec<String>> {
    let mut added: Vec<String> = Vec::with_capacity(urls.len());
    for url in urls {
        let url = String::from(url);
        let flag = format!("--index-add {url}");
        if url.strip_prefix(dir_url).is_none_or(str::is_empty) {
            bail!(
                "{flag} does not lie under {dir_url}, the index's directory: an index may \
                 list only the sitemaps under its own directory"
            );
        }
        if url.contains('#') || url.len() >= crate::url::MAX_LOC_LEN {
            bail!("{flag}: a sitemap's URL has no fragment and is under 2,048 characters");
        }
        if let Some(name) = outputs::name_beside(&url, dir_url) {
            let path = files.dir().join(&name);
            if files.is_ours(&name) {
                bail!("{flag} names a file this run writes");
            }
            if let Some(output) = taken(&path) {
                bail!("{flag} names {output}, which is no sitemap");
            }
            if is_page(&path) {
                bail!("{flag} names a page of the site, which is no sitemap");
            }
            if !Holds::Sitemap.may_take(&path)? {
                bail!("{flag} names {}, which is not a sitemap", path.display());
            }
        }
        if added.contains(&url) {
            bail!("{flag} is given twice");
        }
        added.push(url);
    }
    Ok(added)
}

fn list_from(arg: OsString) -> ListFrom {
    if arg == "-" {
        ListFrom::Stdin
    } else {
        ListFrom::File(arg.into())
    }
}

/// A name that says gzip and content that is not, or the other way round, would be served
/// with the wrong encoding.
fn check_gzip_name(path: &Path, gzip: bool) -> Result<()> {
    let gz_name = path.as_os_str().as_bytes().ends_with(b".gz");
    match (gzip, gz_name) {
        (true, false) => bail!(
            "--gzip writes gzip data, and -o {} does not end in .gz\n\
             hint: name the output {}.gz",
            path.display(),
            path.display()
        ),
        (false, true) => bail!(
            "-o {} ends in .gz, and without --gzip the sitemap is plain XML or text\n\
             hint: add --gzip",
            path.display()
        ),
        _ => Ok(()),
    }
}

/// Every file the run writes, for the one rule they all go through (`outputs::claim`):
/// the sitemap, the state, the changes, robots.txt (edited under --robots, and never to be
/// taken by another output), the IndexNow key file and the stylesheet.
/// `named` holds the paths of -o, --state, --changes and --summary-json with their flags.
fn run_outputs(
    named: [(Option<&Path>, &str); 4],
    destination: &Destination,
    dir: &Path,
    key: Option<&indexnow::Key>,
    write_xsl: bool,
) -> Vec<Output> {
    let [output, state, changes, summary] = named;
    // DIR's files of fixed names first: a clash is named after the output the user named.
    let robots = dir.join("robots.txt");
    let mut outputs = vec![Output::new(
        format!("the site's robots.txt {}", robots.display()),
        robots,
        Holds::Robots,
    )];
    if let Some(key) = key {
        outputs.push(publish::key_file(dir, key));
    }
    if write_xsl {
        outputs.push(publish::stylesheet(dir));
    }
    if let Destination::File(files) = destination {
        let what = match output {
            (Some(path), flag) => format!("{flag} {}", path.display()),
            (None, _) => format!("the output {}", files.path.display()),
        };
        outputs.push(Output::new(what, files.path.clone(), Holds::Sitemap));
    }
    for ((path, flag), holds) in [
        (state, Holds::State),
        (changes, Holds::Changes),
        (summary, Holds::Summary),
    ] {
        if let Some(path) = path {
            let what = format!("{flag} {}", path.display());
            outputs.push(Output::new(what, path.to_path_buf(), holds));
        }
    }
    outputs
}

/// `path`'s location relative to `dir` when it lies inside it (or is it).
fn path_inside(dir: &Path, path: &Path) -> Option<PathBuf> {
    let dir = dir.canonicalize().ok()?;
    let path = match path.canonicalize() {
        Ok(path) => path,
        // Not there yet: its directory must be.
        Err(_) => path.parent()?.canonicalize().ok()?.join(path.file_name()?),
    };
    Some(path.strip_prefix(&dir).ok()?.to_path_buf())
}
