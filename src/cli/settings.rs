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
use crate::url::{Mapping, encode_path};
use crate::walk::rules::{GroupRules, RuleSpec, Rules, ValueRules};
use crate::walk::{ListFrom, Source};
use crate::{decide, indexnow, publish, sitemap, summary, walk};

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
        verbosity: verbosity(&cli)?,
        endpoint: cli.indexnow_endpoint,
        timeout: Duration::from_secs(cli.http_timeout),
    })
}

fn verbosity(cli: &Cli) -> Result<Verbosity> {
    Ok(match (cli.quiet, cli.verbose) {
        (true, true) => bail!("--quiet cannot be used with --verbose"),
        (true, _) => Verbosity::Quiet,
        (_, true) => Verbosity::Verbose,
        _ => Verbosity::Normal,
    })
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

pub fn settings(cli: Cli) -> Result<Settings> {
    let hint = HINT;
    let indexnow_key = indexnow_key(&cli)?;
    let verbosity = verbosity(&cli)?;
    let Some(base) = cli.base_url else {
        bail!("--base-url is required {hint}");
    };
    let Some(dir) = cli.dir.clone() else {
        bail!("DIR is required {hint}");
    };
    let lastmod = cli.lastmod;
    for (given, flag) in [
        (!cli.digest_ignore.is_empty(), "--digest-ignore"),
        (cli.digest.is_some(), "--digest"),
        (cli.max_churn.is_some(), "--max-churn"),
        (cli.state_url.is_some(), "--state-url"),
        (cli.previous_sitemap.is_some(), "--previous-sitemap"),
        (cli.changes.is_some(), "--changes"),
    ] {
        if given && cli.state.is_none() {
            bail!("{flag} needs --state {hint}");
        }
    }
    if cli.digest_region.is_some() && cli.state.is_none() && !cli.images {
        bail!("--digest-region needs --state or --images {hint}");
    }
    if !cli.image_host.is_empty() && !cli.images {
        bail!("--image-host needs --images {hint}");
    }
    if cli.images && cli.no_html {
        bail!("--images reads the pages, and --no-html reads none: drop one");
    }
    if cli.hreflang_default.is_some() && cli.no_html {
        bail!(
            "--hreflang-default adds to the alternates the pages' heads name, and --no-html reads none: drop one"
        );
    }
    if cli.hreflang_default.is_some() && cli.format == Format::Txt {
        bail!(
            "a text sitemap (--format txt) has no alternates: drop --hreflang-default, or write XML"
        );
    }
    if cli.images && cli.format == Format::Txt {
        bail!("a text sitemap (--format txt) cannot list images: drop --images, or write XML");
    }
    // With --images, the region is the images' as well as the digest's.
    if cli.digest_region.is_some() && cli.digest == Some(Mode::Bytes) && !cli.images {
        bail!(
            "--digest-region names the region of a content digest, and --digest bytes counts every byte: drop one"
        );
    }
    if cli.null && cli.files_from.is_none() {
        bail!("-0/--null needs --files-from {hint}");
    }
    if cli.follow && cli.files_from.is_some() {
        bail!("--follow walks DIR, and --files-from names the files instead: drop one");
    }
    if lastmod == LastmodMode::Omit && cli.state.is_some() {
        bail!("--state keeps dates, and --lastmod none writes none: drop one of them");
    }
    let source_date_epoch = match std::env::var("SOURCE_DATE_EPOCH") {
        Ok(text) if !text.is_empty() => Some(text.parse::<i64>().map_err(|_| {
            anyhow::anyhow!("SOURCE_DATE_EPOCH {text:?} is not a number of seconds")
        })?),
        _ => None,
    };
    match fs::metadata(&dir) {
        Ok(meta) if meta.is_dir() => {}
        Ok(_) => bail!("DIR {} is not a directory", dir.display()),
        Err(err) => bail!("DIR {}: {err}", dir.display()),
    }
    let format = cli.format;
    let groups = GroupRules::new(&cli.group)?;
    let grouped = !cli.group.is_empty() || !cli.index_add.is_empty();
    if grouped && format == Format::Txt {
        bail!(
            "a text sitemap has no index to group sitemaps under: drop --group and \
             --index-add, or --format txt"
        );
    }
    let files = |path, target| {
        let format = (format, cli.gzip);
        Files::new(path, target, format, groups.names(), grouped)
    };
    let mut destination = match &cli.output {
        Some(path) if path.as_os_str() == "-" => Destination::Stdout,
        Some(path) => {
            check_gzip_name(path, cli.gzip)?;
            Destination::File(files(path.clone(), path.clone()))
        }
        None => {
            let name = format!(
                "sitemap.{}{}",
                match format {
                    Format::Xml => "xml",
                    Format::Txt => "txt",
                },
                if cli.gzip { ".gz" } else { "" }
            );
            let path = dir.join(name);
            Destination::File(files(path.clone(), path))
        }
    };
    let own_output = match &destination {
        Destination::File(files) => path_inside(&dir, files.dir()).map(|dir| (dir, files)),
        Destination::Stdout => None,
    };
    // The public URL of the output's directory, when it lies inside DIR.
    let dir_url = own_output.as_ref().map(|(dir, _)| {
        let path = encode_path(dir);
        base.join(&if path.is_empty() { path } else { path + "/" })
    });
    let preview = destination == Destination::Stdout;
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
    if cli.summary_json.is_some() && cli.check {
        bail!("--check writes nothing, and its differences are on stderr: drop --summary-json");
    }
    if (cli.xsl.is_some() || cli.write_xsl) && format == Format::Txt {
        bail!("a text sitemap has no stylesheet: drop --xsl and --write-xsl, or --format txt");
    }
    if cli.write_xsl && preview {
        bail!("-o - is a preview and writes nothing into DIR: drop --write-xsl");
    }
    if cli.robots && dir_url.is_none() {
        bail!("--robots needs the output inside DIR, where it has a public URL");
    }
    if grouped && preview {
        bail!("-o - shows one file, and --group and --index-add make an index over several");
    }
    if grouped && dir_url.is_none() {
        bail!(
            "--group and --index-add make an index over sitemaps beside it, which need the \
             output inside DIR, where they have public URLs"
        );
    }
    let rules = Rules::new(&RuleSpec {
        includes: &cli.include,
        excludes: &cli.exclude,
        default_excludes: !cli.no_default_excludes,
        hidden: cli.hidden,
        own_output: own_output
            .as_ref()
            .map(|(dir, files)| (dir.as_path(), *files)),
    })?;
    let summary_json = cli
        .summary_json
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
    let outputs = run_outputs(
        named,
        &destination,
        &dir,
        indexnow_key.as_ref(),
        cli.write_xsl,
    );
    let targets = claim::check(
        &outputs,
        match &destination {
            Destination::File(files) => Some(files),
            Destination::Stdout => None,
        },
        |path| path_inside(&dir, path).is_some_and(|rel| rules.selects(&rel)),
    )?;
    let target = |holds| {
        outputs
            .iter()
            .zip(&targets)
            .find_map(|(output, target)| (output.holds == holds).then(|| target.clone()))
    };
    if let (Destination::File(files), Some(target)) = (&mut destination, target(Holds::Sitemap)) {
        if cli.output.is_none() && path_inside(&dir, &target).is_none() {
            bail!(
                "the output {} is a symlink to a file outside DIR; sitemapgen writes outside \
                 DIR only where -o says so\nhint: name it with -o, or remove the link",
                files.path.display()
            );
        }
        files.target = target;
    }
    let (state, changes) = (target(Holds::State), target(Holds::Changes));
    let summary_json = summary_json.map(|to| match (to, target(Holds::Summary)) {
        (summary::To::File(_), Some(target)) => summary::To::File(target),
        (to, _) => to,
    });
    let index_add = match (&destination, &dir_url) {
        (Destination::File(files), Some(dir_url)) => {
            let taken = |path: &Path| {
                claim::output_at(path, &outputs, &targets).map(|output| output.what.clone())
            };
            let is_page = |path: &Path| path_inside(&dir, path).is_some_and(|r| rules.selects(&r));
            index_add(cli.index_add, files, dir_url, (taken, is_page))?
        }
        _ => Vec::new(),
    };
    let source = match cli.files_from {
        None => Source::Walk { follow: cli.follow },
        Some(from) => Source::List {
            from: list_from(from),
            separator: if cli.null { b'\0' } else { b'\n' },
        },
    };
    let images = cli.images.then(|| {
        ImageRules::new(&base, cli.image_host, cli.digest_region.clone())
            .excluding(rules.excludes().clone())
    });
    // What --index-add lists beside the index stays, even a group's file of an earlier run.
    if let Destination::File(files) = &mut destination {
        files.keep(&index_add, dir_url.as_deref().unwrap_or_default());
    }
    Ok(Settings {
        walk: walk::Settings {
            root: dir.clone(),
            source,
            rules,
            verbose: verbosity == Verbosity::Verbose,
        },
        decide: decide::Settings {
            base: base.clone(),
            mapping: Mapping {
                clean_urls: cli.clean_urls,
                trailing_slash: !cli.no_trailing_slash,
            },
            read_html: !cli.no_html,
            computed_urls: cli.computed_urls,
            // Crawlers read robots.txt only at the root of a host.
            robots_txt: (!cli.ignore_disallow && base.is_host_root())
                .then(|| dir.join("robots.txt")),
            images,
            changefreq: ValueRules::new(&cli.changefreq, "--changefreq")?,
            priority: ValueRules::new(&cli.priority, "--priority")?,
            groups,
            lastmod: lastmod::Settings {
                mode: lastmod,
                source_date_epoch,
                root: dir.clone(),
                state: state.map(|path| StateSettings {
                    in_dir: path_inside(&dir, &path).is_some(),
                    path,
                    digest: DigestRules::new(
                        cli.digest.unwrap_or(Mode::Content),
                        cli.digest_region,
                        cli.digest_ignore,
                    ),
                    max_churn: cli.max_churn,
                    write: !cli.check && matches!(destination, Destination::File(_)),
                    url: cli.state_url,
                    previous_sitemap: cli.previous_sitemap,
                    timeout: Duration::from_secs(cli.http_timeout),
                    changes,
                }),
            },
        },
        sitemap: sitemap::Settings {
            format,
            gzip: cli.gzip,
            max_urls: cli.max_urls as usize,
            destination,
            dir_url: dir_url.clone(),
            scratch: cli.check,
            // A path on the site, so that the stylesheet comes from the same origin as the
            // sitemap wherever the site is served (browsers refuse another's).
            stylesheet: cli.xsl.or_else(|| {
                cli.write_xsl
                    .then(|| format!("{}{}", base.path(), publish::STYLESHEET))
            }),
            index_add,
            hreflang_default: cli.hreflang_default,
        },
        publish: publish::Settings {
            root: dir,
            base,
            robots: dir_url.filter(|_| cli.robots),
            indexnow_key,
            write_xsl: cli.write_xsl,
        },
        check: cli.check,
        summary_json,
        verbosity,
        strict: cli.strict,
        jobs: cli.jobs.map_or_else(
            || std::thread::available_parallelism().map_or(1, |n| n.get()),
            usize::from,
        ),
    })
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
