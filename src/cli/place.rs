//! Where the run's files go: the sitemap's place (a file inside DIR or not, or standard
//! output) and what that allows, and every file the run writes claimed by the one rule for
//! outputs (`outputs::claim`), declared here once.

use std::path::{Path, PathBuf};

use anyhow::{Result, bail};

use super::args::Cli;
use crate::decide::rules::GroupRules;
use crate::io::atomic::dir_of;
use crate::io::native;
use crate::outputs::claim::{self, Holds, Output};
use crate::outputs::key::Key;
use crate::outputs::{self, Destination, Files, Format};
use crate::url::{BaseUrl, encode_path};
use crate::walk::rules::{OwnOutput, Rules};
use crate::{publish, summary};

/// The sitemap's name in DIR when -o names none.
pub(super) fn default_name(format: Format, gzip: bool) -> String {
    format!(
        "sitemap.{}{}",
        match format {
            Format::Xml => "xml",
            Format::Txt => "txt",
        },
        if gzip { ".gz" } else { "" }
    )
}

/// Where the sitemap goes, and what that allows.
pub(super) struct Place {
    pub(super) destination: Destination,
    /// The output's directory relative to DIR, when it lies inside it.
    pub(super) own_dir: Option<PathBuf>,
    /// The public URL of the output's directory, when it lies inside DIR.
    pub(super) dir_url: Option<String>,
    /// With -o -, the files a run without -o writes (DIR/sitemap.xml): the walk leaves them
    /// out as it would then, so that a preview counts the same files (a generator's own
    /// sitemap.xml is the file either run replaces).
    previewed: Option<Files>,
}

impl Place {
    pub(super) fn new(cli: &Cli, dir: &Path, base: &BaseUrl, groups: &GroupRules) -> Result<Place> {
        let (format, grouped) = (cli.format, cli.grouped());
        let files =
            |path, target| Files::new(path, target, (format, cli.gzip), groups.names(), grouped);
        let default = || {
            let path = dir.join(default_name(format, cli.gzip));
            files(path.clone(), path)
        };
        let destination = match &cli.output {
            Some(path) if path.as_os_str() == "-" => Destination::Stdout,
            Some(path) => {
                check_gzip_name(path, cli.gzip)?;
                Destination::File(files(path.clone(), path.clone()))
            }
            None => Destination::File(default()),
        };
        let named = [
            (&cli.output, "-o", default_name(format, cli.gzip)),
            (&cli.state, "--state", "sitemap.state".into()),
            (&cli.state_copy, "--state-copy", "sitemap.state.gz".into()),
            (&cli.changes, "--changes", "sitemap.changes".into()),
            (
                &cli.summary_json,
                "--summary-json",
                "sitemap-summary.json".into(),
            ),
        ];
        for (path, flag, example) in named {
            // `-` is standard output for -o and --summary-json, and a file in the current
            // folder for the others: in a folder that exists either way.
            if let Some(path) = path.as_deref().filter(|path| path.as_os_str() != "-") {
                check_folder(path, flag, &example)?;
            }
        }
        let previewed = (destination == Destination::Stdout).then(default);
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
            previewed,
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
        if cli.grouped() && preview {
            bail!(
                "-o - shows one file, and --group, --index-add and --sub-builds make an index \
                 over several"
            );
        }
        if cli.grouped() && self.dir_url.is_none() {
            bail!(
                "--group, --index-add and --sub-builds make an index over sitemaps beside or \
                 below it, which need the output inside DIR, where they have public URLs"
            );
        }
        Ok(())
    }

    /// The output's files in their directory inside DIR, which the walk leaves out (for a
    /// preview, those a run without -o writes).
    pub(super) fn own(&self) -> Option<OwnOutput> {
        let (dir, files) = match (&self.destination, &self.own_dir, &self.previewed) {
            (Destination::File(files), Some(dir), _) => (dir.clone(), files.clone()),
            (Destination::Stdout, _, Some(files)) => (PathBuf::new(), files.clone()),
            _ => return None,
        };
        // Compared as the file system compares names (`Files::is_ours`).
        let dir = native::case_key(dir.as_os_str().as_encoded_bytes()).into_owned();
        Some(OwnOutput::new(move |at, name| {
            native::case_key(at) == dir.as_slice() && files.is_ours(native::os_str(name))
        }))
    }
}

/// The folder of an output the user names (`flag`'s `path`) must exist, as DIR must: a run
/// makes no folder. A name that ends in a separator (`-o out/`) is a folder's, where the file
/// (such as `example`) is still to be named.
fn check_folder(path: &Path, flag: &str, example: &str) -> Result<()> {
    let given = format!("{flag} {}", path.display());
    let bytes = path.as_os_str().as_encoded_bytes();
    let names_folder = bytes
        .last()
        .is_some_and(|&last| std::path::is_separator(char::from(last)));
    let folder = if names_folder { path } else { dir_of(path) };
    let in_it = || format!("{flag} {}", folder.join(example).display());
    match std::fs::metadata(folder) {
        Ok(meta) if meta.is_dir() && names_folder => {
            bail!(
                "{given} names a folder, not a file\nhint: name the file in it: {}",
                in_it()
            )
        }
        Ok(meta) if meta.is_dir() => Ok(()),
        Ok(_) => bail!("{given}: {} is not a folder", folder.display()),
        Err(err) if err.kind() == std::io::ErrorKind::NotFound && names_folder => bail!(
            "{given}: the folder {} does not exist\nhint: create it first (a run makes no \
             folder), and name the file in it: {}",
            folder.display(),
            in_it()
        ),
        Err(err) if err.kind() == std::io::ErrorKind::NotFound => bail!(
            "{given}: the folder {} does not exist\nhint: create it first (a run makes no \
             folder), or name a file in a folder that exists",
            folder.display()
        ),
        // Any other fault is told when the file is written.
        Err(_) => Ok(()),
    }
}

/// The paths of the outputs the user named, as the one rule for every output settled them.
pub(super) struct Claimed {
    pub(super) state: Option<PathBuf>,
    pub(super) state_copy: Option<PathBuf>,
    pub(super) changes: Option<PathBuf>,
    pub(super) summary_json: Option<summary::To>,
    pub(super) index_add: Vec<String>,
}

/// Checks every file the run writes against each other and the site (`outputs::claim`),
/// and points each at the file it writes through a symlink.
pub(super) fn claim_outputs(
    cli: &Cli,
    dir: &Path,
    rules: &Rules,
    output: &mut Place,
    indexnow_key: Option<&Key>,
) -> Result<Claimed> {
    let summary_json =
        cli.summary_json
            .clone()
            .map(|path| match path.as_os_str().as_encoded_bytes() {
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
        (cli.state_copy.as_deref(), "--state-copy"),
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
        state_copy: target(Holds::StateCopy),
        changes: target(Holds::Changes),
        summary_json,
        index_add,
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
        // The file a static server would serve for it, whatever the query, `;` or `//`.
        let served = format!(
            "{}{}",
            &url[..url::Position::BeforePath],
            crate::url::served_path(&url)
        );
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
        if let Some(name) = outputs::name_beside(&served, dir_url) {
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

/// A name that says gzip and content that is not, or the other way round, would be served
/// with the wrong encoding.
fn check_gzip_name(path: &Path, gzip: bool) -> Result<()> {
    let gz_name = path.as_os_str().as_encoded_bytes().ends_with(b".gz");
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
/// `named` holds the paths of -o, --state, --state-copy, --changes and --summary-json with
/// their flags.
fn run_outputs(
    named: [(Option<&Path>, &str); 5],
    destination: &Destination,
    dir: &Path,
    key: Option<&Key>,
    write_xsl: bool,
) -> Vec<Output> {
    let [output, state, state_copy, changes, summary] = named;
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
        (state_copy, Holds::StateCopy),
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
pub(super) fn path_inside(dir: &Path, path: &Path) -> Option<PathBuf> {
    let dir = dir.canonicalize().ok()?;
    let path = match path.canonicalize() {
        Ok(path) => path,
        // Not there yet: its directory must be.
        Err(_) => path.parent()?.canonicalize().ok()?.join(path.file_name()?),
    };
    Some(path.strip_prefix(&dir).ok()?.to_path_buf())
}
