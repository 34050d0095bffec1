//! The MkDocs plugin and the Sphinx extension of the wheel, run by the real generators
//! (pinned by .ci/run in a venv of their own): a small site built twice as CI builds it, on
//! a fresh machine each time, its state read back from the deployed site (a server on the
//! loopback address).

use std::collections::BTreeMap;
use std::fs;
use std::io::Read;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::sync::OnceLock;

use crate::built::{Installed, installed, installed_without_binary, run, tool};
use crate::harness::{Site, copy_tree};
use crate::serve::Server;
use crate::switch;
use crate::validate::{self, locs};

/// A venv with the wheel installed (`--no-index`), which also sees the generators' venv
/// (a `.pth` file): no network at test time. None where a tool is missing outside CI.
fn generators() -> Option<&'static Path> {
    static VENV: OnceLock<Option<PathBuf>> = OnceLock::new();
    VENV.get_or_init(|| generators_venv(installed()?))
        .as_deref()
}

/// The same with the wheel for any platform, as pip installs it where no wheel has a binary.
fn generators_without_binary() -> Option<&'static Path> {
    static VENV: OnceLock<Option<PathBuf>> = OnceLock::new();
    VENV.get_or_init(|| generators_venv(installed_without_binary()?))
        .as_deref()
}

fn generators_venv(installed: &Installed) -> Option<PathBuf> {
    // The generators' venv: its python, beside the mkdocs script.
    let theirs = tool("mkdocs")?.parent().unwrap().join("python");
    let purelib = |python: &Path| {
        let out = run(Command::new(python).args([
            "-c",
            "import sysconfig; print(sysconfig.get_path('purelib'))",
        ]));
        PathBuf::from(String::from_utf8(out.stdout).unwrap().trim())
    };
    let venv = installed.venv.with_extension("generators");
    if venv.exists() {
        fs::remove_dir_all(&venv).unwrap();
    }
    run(Command::new(&theirs).args(["-m", "venv"]).arg(&venv));
    let python = venv.join("bin").join("python");
    let path = purelib(&theirs);
    fs::write(
        purelib(&python).join("generators.pth"),
        format!("{}\n", path.display()),
    )
    .unwrap();
    run(Command::new(&python)
        .args(["-m", "pip", "install", "--no-index", "--no-deps"])
        .arg("--disable-pip-version-check")
        .arg(&installed.wheel));
    Some(venv)
}

/// `python -m MODULE ARGS` in the generators' venv, in `dir`.
fn python(venv: &Path, dir: &Path, args: &[&str]) -> Output {
    Command::new(venv.join("bin").join("python"))
        .args(args)
        .current_dir(dir)
        .env("NO_MKDOCS_2_WARNING", "1")
        .output()
        .unwrap()
}

#[track_caller]
pub fn succeeded(output: &Output) -> String {
    let log = format!(
        "{}{}",
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    );
    assert!(output.status.success(), "{log}");
    log
}

/// Publishes the built site as a deploy would: the live site is now this build.
pub fn deploy(site: &Site, live: &Path) {
    if live.exists() {
        fs::remove_dir_all(live).unwrap();
    }
    fs::create_dir(live).unwrap();
    copy_tree(&site.root, live);
}

/// What the CLI writes for the built site with FLAGS, the state read from `state_url` as the
/// plugin's first build read it (nothing published yet): the plugin's own sitemap must be it.
pub fn cli_sitemap(site: &Site, base: &str, flags: &[&str]) -> Vec<u8> {
    let state = site.root.join("sitemap.state.gz");
    fs::remove_file(&state).unwrap();
    site.command(&["-b", base, "--state"])
        .arg(&state)
        .args(["--state-url", &format!("{base}sitemap.state.gz")])
        .args(flags)
        .run()
        .success();
    fs::read(site.sitemap_path()).unwrap()
}

/// MkDocs's build of PROJECT with CONFIG, the plugin given OPTION, which fails: its stderr.
fn mkdocs_fails(venv: &Path, project: &Path, config: &str, option: &str) -> String {
    fs::write(
        project.join("mkdocs.yml"),
        config.replace(
            "  - sitemapgen\n",
            &format!("  - sitemapgen:\n      {option}\n"),
        ),
    )
    .unwrap();
    let failed = python(venv, project, &["-m", "mkdocs", "build"]);
    assert!(!failed.status.success());
    String::from_utf8_lossy(&failed.stderr).into_owned()
}

#[test]
fn mkdocs_plugin_writes_the_cli_sitemap_and_a_rebuild_redates_nothing() {
    let Some(venv) = generators() else { return };
    let site = Site::empty();
    let live = site.outside().join("live");
    fs::create_dir(&live).unwrap();
    let server = Server::files(live.clone());
    let base = server.url("/");
    let project = site.outside().join("project");
    for (page, text) in [
        ("index.md", "# Home\n\nWelcome.\n"),
        ("about.md", "# About\n\nWho we are.\n"),
        ("guide/index.md", "# Guide\n\nStart here.\n"),
        ("guide/install.md", "# Install\n\nThe steps.\n"),
    ] {
        let path = project.join("docs").join(page);
        fs::create_dir_all(path.parent().unwrap()).unwrap();
        fs::write(path, text).unwrap();
    }
    // The plugin with no options: the state is on, read back from site_url.
    let config = format!(
        "site_name: Demo\nsite_url: {base}\nsite_dir: {}\ntheme:\n  name: material\n\
         plugins:\n  - search\n  - sitemapgen\n",
        site.root.display()
    );
    fs::write(project.join("mkdocs.yml"), &config).unwrap();

    let log = succeeded(&python(venv, &project, &["-m", "mkdocs", "build"]));
    assert!(
        log.contains("since the state: 4 added, 0 removed, 0 re-dated"),
        "{log}"
    );
    // MkDocs's own sitemap.xml.gz URL keeps answering, with ours.
    let mut gz = Vec::new();
    flate2::read::GzDecoder::new(fs::File::open(site.root.join("sitemap.xml.gz")).unwrap())
        .read_to_end(&mut gz)
        .unwrap();
    assert_eq!(
        gz,
        fs::read(site.sitemap_path()).unwrap(),
        "sitemap.xml.gz is ours"
    );
    let urls = validate::sitemap(&site.sitemap_path(), &base);
    let expected: Vec<String> = ["", "about/", "guide/", "guide/install/"]
        .iter()
        .map(|path| format!("{base}{path}"))
        .collect();
    assert_eq!(locs(&urls), expected);
    let built = fs::read(site.sitemap_path()).unwrap();
    assert!(
        built == cli_sitemap(&site, &base, &[]),
        "the CLI writes another"
    );

    // The next CI job: MkDocs cleans site_dir, every file is new, and there is no state
    // beside the project; the state comes from the live site.
    deploy(&site, &live);
    fs::remove_dir_all(project.join(".cache")).unwrap();
    let log = succeeded(&python(venv, &project, &["-m", "mkdocs", "build"]));
    assert!(
        log.contains("since the state: 0 added, 0 removed, 0 re-dated, 4 kept"),
        "{log}"
    );
    assert!(fs::read(site.sitemap_path()).unwrap() == built);

    // Pages as files: the URLs MkDocs links and declares, with no flag either.
    fs::write(
        project.join("mkdocs.yml"),
        config.replace(
            "  - sitemapgen\n",
            "  - sitemapgen:\n      state: false\nuse_directory_urls: false\n",
        ),
    )
    .unwrap();
    succeeded(&python(venv, &project, &["-m", "mkdocs", "build"]));
    let urls = validate::sitemap(&site.sitemap_path(), &base);
    let expected: Vec<String> = [
        "index.html",
        "about.html",
        "guide/index.html",
        "guide/install.html",
    ]
    .iter()
    .map(|path| format!("{base}{path}"))
    .collect();
    assert_eq!(locs(&urls), expected);

    // No site_url: the build fails, naming the key to set.
    fs::write(
        project.join("mkdocs.yml"),
        config.replace(&format!("site_url: {base}\n"), ""),
    )
    .unwrap();
    let failed = python(venv, &project, &["-m", "mkdocs", "build"]);
    assert!(!failed.status.success());
    let stderr = String::from_utf8_lossy(&failed.stderr);
    assert!(
        stderr.contains("sitemapgen: error: site_url is not set in mkdocs.yml"),
        "{stderr}"
    );

    // sitemapgen's own failure fails the build with its message.
    let stderr = mkdocs_fails(venv, &project, &config, "args: [--max-urls, '0']");
    assert!(stderr.contains("sitemapgen: error: "), "{stderr}");
    assert!(stderr.contains("--max-urls"), "{stderr}");
}

#[test]
fn sphinx_extension_writes_the_cli_sitemap_and_a_rebuild_redates_nothing() {
    let Some(venv) = generators() else { return };
    let site = Site::empty();
    let live = site.outside().join("live");
    fs::create_dir(&live).unwrap();
    let server = Server::files(live.clone());
    let base = server.url("/");
    let source = site.outside().join("source");
    fs::create_dir_all(source.join("b")).unwrap();
    for (page, text) in [
        (
            "index.rst",
            "Demo\n====\n\n.. toctree::\n\n   a\n   b/index\n",
        ),
        ("a.rst", "A\n=\n\nText a.\n"),
        ("b/index.rst", "B\n=\n\nText b.\n"),
    ] {
        fs::write(source.join(page), text).unwrap();
    }
    let config = format!(
        "project = 'Demo'\nextensions = ['sitemapgen_cli.sphinx']\nhtml_baseurl = '{base}'\n"
    );
    fs::write(source.join("conf.py"), &config).unwrap();
    let out = site.root.to_str().unwrap();
    let build = |builder: &str| {
        // A fresh machine: no output, no doctrees of an earlier build.
        fs::remove_dir_all(&site.root).unwrap();
        python(
            venv,
            site.outside(),
            &["-m", "sphinx", "-b", builder, "source", out],
        )
    };

    let log = succeeded(&build("html"));
    assert!(
        log.contains("since the state: 4 added, 0 removed, 0 re-dated"),
        "{log}"
    );
    // Named in Sphinx's log as in MkDocs's, and what "hidden" means said (.buildinfo).
    assert!(log.contains("sitemapgen: wrote 4 URLs to "), "{log}");
    assert!(
        log.contains("hidden (named with a leading dot; see --hidden)"),
        "{log}"
    );
    let urls = validate::sitemap(&site.sitemap_path(), &base);
    // The html builder declares each page's canonical URL, index.html included; the search
    // page is noindex.
    let expected: Vec<String> = ["index.html", "a.html", "b/index.html", "genindex.html"]
        .iter()
        .map(|path| format!("{base}{path}"))
        .collect();
    let mut listed: Vec<&str> = locs(&urls);
    listed.sort_unstable();
    let mut expected: Vec<&str> = expected.iter().map(String::as_str).collect();
    expected.sort_unstable();
    assert_eq!(listed, expected);
    let built = fs::read(site.sitemap_path()).unwrap();
    assert!(
        built == cli_sitemap(&site, &base, &[]),
        "the CLI writes another"
    );

    // The next CI job: no state beside the project; the state comes from the live site.
    deploy(&site, &live);
    fs::remove_dir_all(source.join(".cache")).unwrap();
    let log = succeeded(&build("html"));
    assert!(log.contains("read the state published at"), "{log}");
    assert!(
        log.contains("since the state: 0 added, 0 removed, 0 re-dated, 4 kept"),
        "{log}"
    );
    assert!(fs::read(site.sitemap_path()).unwrap() == built);

    // dirhtml: each page a directory.
    fs::remove_dir_all(&live).unwrap();
    fs::create_dir(&live).unwrap();
    succeeded(&build("dirhtml"));
    let urls = validate::sitemap(&site.sitemap_path(), &base);
    let mut listed = locs(&urls);
    listed.sort_unstable();
    let dirs = [
        base.clone(),
        format!("{base}a/"),
        format!("{base}b/"),
        format!("{base}genindex/"),
    ];
    assert_eq!(listed, dirs.iter().map(String::as_str).collect::<Vec<_>>());

    // Another builder gets no sitemap.
    fs::remove_dir_all(&site.root).unwrap();
    succeeded(&python(
        venv,
        site.outside(),
        &["-m", "sphinx", "-b", "text", "source", out],
    ));
    assert!(!site.sitemap_path().exists());

    // No html_baseurl: the build fails, naming it.
    fs::write(
        source.join("conf.py"),
        config.replace(&format!("html_baseurl = '{base}'\n"), ""),
    )
    .unwrap();
    let failed = build("html");
    assert_eq!(failed.status.code(), Some(1));
    let stderr = String::from_utf8_lossy(&failed.stderr);
    assert!(
        stderr.contains("sitemapgen: error: html_baseurl is not set in conf.py"),
        "{stderr}"
    );
    // The sitemap's failure is the build's error, not counted among its warnings.
    let log = format!("{}{stderr}", String::from_utf8_lossy(&failed.stdout));
    assert!(log.contains("build finished with problems."), "{log}");
    assert!(!log.contains("1 warning"), "{log}");
}

/// Where this platform has no binary (the wheel for any platform, as pip installs it on
/// Windows), MkDocs and Sphinx finish the build after one warning, with no sitemap; with
/// `require_binary` (`sitemapgen_require_binary`) the build fails, saying why.
#[test]
fn mkdocs_and_sphinx_finish_the_build_without_a_binary_after_one_warning() {
    let Some(venv) = generators_without_binary() else {
        return;
    };
    let warning = format!(
        "sitemapgen has no binary for {}: no sitemap written; CI on Linux, macOS or Windows \
         writes it",
        crate::wheel::platform(venv)
    );
    let error = format!(
        "sitemapgen: error: sitemapgen has no binary for {}",
        crate::wheel::platform(venv)
    );
    let site = Site::empty();
    let project = site.outside().join("project");
    fs::create_dir_all(project.join("docs")).unwrap();
    fs::write(project.join("docs/index.md"), "# Home\n\nWelcome.\n").unwrap();
    let config = format!(
        "site_name: Demo\nsite_url: https://example.com/\nsite_dir: {}\n\
         plugins:\n  - sitemapgen\n",
        site.root.display()
    );
    fs::write(project.join("mkdocs.yml"), &config).unwrap();
    let log = succeeded(&python(venv, &project, &["-m", "mkdocs", "build"]));
    assert_eq!(log.matches(&warning).count(), 1, "{log}");
    assert!(log.contains("WARNING"), "{log}");
    assert!(site.root.join("index.html").is_file());
    // Nor MkDocs's own, with its build dates.
    for name in ["sitemap.xml", "sitemap.xml.gz", "sitemap.state.gz"] {
        assert!(!site.root.join(name).exists(), "{name}");
    }
    let stderr = mkdocs_fails(venv, &project, &config, "require_binary: true");
    assert!(stderr.contains(&error), "{stderr}");

    let source = site.outside().join("source");
    fs::create_dir_all(&source).unwrap();
    fs::write(source.join("index.rst"), "Demo\n====\n\nText.\n").unwrap();
    let config = "project = 'Demo'\nextensions = ['sitemapgen_cli.sphinx']\n\
                  html_baseurl = 'https://example.com/'\n";
    fs::write(source.join("conf.py"), config).unwrap();
    let out = site.outside().join("html");
    let sphinx = || {
        python(
            venv,
            site.outside(),
            &[
                "-m",
                "sphinx",
                "-E",
                "-b",
                "html",
                "source",
                out.to_str().unwrap(),
            ],
        )
    };
    let log = succeeded(&sphinx());
    assert_eq!(log.matches(&warning).count(), 1, "{log}");
    assert!(out.join("index.html").is_file());
    assert!(!out.join("sitemap.xml").exists());
    fs::write(
        source.join("conf.py"),
        format!("{config}sitemapgen_require_binary = True\n"),
    )
    .unwrap();
    let failed = sphinx();
    assert_eq!(failed.status.code(), Some(1));
    let stderr = String::from_utf8_lossy(&failed.stderr);
    assert!(stderr.contains(&error), "{stderr}");
}

/// Issue 44: `sitemapgen_url_scheme = "{lang.__class__}"` gave `https://e.com/<class 'str'>/`:
/// str.format follows attributes; the scheme takes its three plain fields only.
#[test]
fn sphinx_url_scheme_takes_plain_fields_only() {
    let Some(venv) = generators() else {
        return;
    };
    let check = "from types import SimpleNamespace as N\n\
        from sitemapgen_cli import sphinx\n\
        from sitemapgen_cli._run import Failed\n\
        for scheme in ['{lang}{version}{link}', '{lang.__class__}', '{lang[0]}', '{lang!r}', \
        '{version:>9}', '{x}', '{']:\n\
        \x20   c = N(html_baseurl='https://e.com/', language='fr', version='2', \
        sitemapgen_url_scheme=scheme)\n\
        \x20   try:\n\
        \x20       print(sphinx.base_url(c))\n\
        \x20   except Failed as failed:\n\
        \x20       print(failed)\n";
    let out = python(venv, venv, &["-c", check]);
    let log = succeeded(&out);
    let lines: Vec<&str> = log.lines().collect();
    assert_eq!(lines[0], "https://e.com/fr/2/");
    for line in &lines[1..6] {
        assert!(
            line.starts_with("sitemapgen: error: sitemapgen_url_scheme ")
                && line.ends_with(
                    "holds a field other than {lang}, {version} and {link}, the only ones it takes"
                ),
            "{log}"
        );
    }
    assert!(lines[6].contains("Single '{' encountered"), "{log}");
    assert_eq!(lines.len(), 7, "{log}");
}

/// `python -m ARGS` in `dir`, with `CI` as given (empty: not CI).
fn python_ci(venv: &Path, dir: &Path, args: &[&str], ci: &str) -> Output {
    Command::new(venv.join("bin").join("python"))
        .args(args)
        .current_dir(dir)
        .env("NO_MKDOCS_2_WARNING", "1")
        .env("CI", ci)
        .output()
        .unwrap()
}

#[test]
fn mkdocs_switch_builds_offline_keeps_dates_locally_and_takes_the_old_sitemaps_dates() {
    let Some(venv) = generators() else { return };
    let site = Site::empty();
    let project = site.outside().join("project");
    let pages = [
        (
            "docs/index.md",
            "# Home\n\nWelcome.\n",
            "2021-02-03T04:05:06+01:00",
        ),
        (
            "docs/about.md",
            "# About\n\nWho we are.\n",
            "2022-05-06T07:08:09+02:00",
        ),
    ];
    for (page, text, _) in pages {
        let path = project.join(page);
        fs::create_dir_all(path.parent().unwrap()).unwrap();
        fs::write(path, text).unwrap();
    }
    // A new user's one line, with the site not deployed yet (nothing answers at site_url).
    let offline = switch::nowhere();
    let config = |base: &str| {
        format!(
            "site_name: Demo\nsite_url: {base}\nsite_dir: {}\ntheme:\n  name: material\n\
             plugins:\n  - search\n  - sitemapgen\n",
            site.root.display()
        )
    };
    fs::write(project.join("mkdocs.yml"), config(&offline)).unwrap();
    let committed: Vec<(&str, &str)> = pages.iter().map(|(p, _, d)| (*p, *d)).collect();
    switch::commit_each(&project, &committed);
    let build = |ci: &str| python_ci(venv, &project, &["-m", "mkdocs", "build"], ci);

    // Offline in CI: stopped, with the option that turns the reading off.
    let failed = build("true");
    assert!(!failed.status.success());
    switch::assert_failed_in_ci(&String::from_utf8_lossy(&failed.stderr), "state: false");

    // Offline on a laptop: built, one note; each page dated by its source's last commit.
    let log = succeeded(&build(""));
    let state_url = format!("{offline}sitemap.state.gz");
    switch::assert_one_offline_note(&log, &state_url, "state: false");
    let first = switch::dates(&site.sitemap_path(), &offline);
    assert_eq!(
        first.values().collect::<Vec<_>>(),
        [pages[0].2, pages[1].2],
        "each page dated by its source's commit"
    );
    // A local rebuild: MkDocs cleans site_dir; the state beside the project keeps every date.
    let log = succeeded(&build(""));
    assert!(
        log.contains("0 added, 0 removed, 0 re-dated, 2 kept"),
        "{log}"
    );
    assert_eq!(switch::dates(&site.sitemap_path(), &offline), first);
    assert!(
        site.root.join("sitemap.state.gz").is_file(),
        "its copy, to deploy"
    );

    // The first deploy over the site MkDocs's own sitemap served: a fresh CI checkout (no
    // .cache, no git history) keeps the dates that sitemap gave.
    let live = site.outside().join("live");
    let server = Server::files(live.clone());
    let base = server.url("/");
    let old = switch::old_dates(&[&base, &format!("{base}about/")]);
    switch::serve_native_sitemap(&live, &old);
    fs::remove_dir_all(project.join(".cache")).unwrap();
    fs::remove_dir_all(project.join(".git")).unwrap();
    fs::write(project.join("mkdocs.yml"), config(&base)).unwrap();
    let log = succeeded(&build("true"));
    assert!(
        log.contains(&format!(
            "no state at {base}sitemap.state.gz (404): the 2 URLs listed in {base}sitemap.xml \
             keep the dates it gives them"
        )),
        "{log}"
    );
    assert_eq!(switch::dates(&site.sitemap_path(), &base), old);
}

/// mkdocs-static-i18n builds each language as a build of its own inside MkDocs's, every
/// plugin's hooks run again for each: with the sitemapgen plugin before it or after it, one
/// sitemap of both languages, from one run over the whole site; the pages marked out in
/// either language left out; each page dated by its own source's commit (a page with no
/// translation, built for `fr` from the English source, by that one); `--strict` passes;
/// a rebuild re-dates nothing.
#[test]
fn mkdocs_static_i18n_gives_one_sitemap_of_every_language_in_either_plugin_order() {
    let Some(venv) = generators() else { return };
    let pages = [
        (
            "docs/index.md",
            "# Home\n\nWelcome.\n",
            "2021-01-01T10:00:00+01:00",
        ),
        (
            "docs/index.fr.md",
            "# Accueil\n\nBienvenue.\n",
            "2021-02-01T10:00:00+01:00",
        ),
        (
            "docs/about.md",
            "# About\n\nWho we are.\n",
            "2021-03-01T10:00:00+01:00",
        ),
        (
            "docs/about.fr.md",
            "# Qui\n\nNous.\n",
            "2021-04-01T10:00:00+01:00",
        ),
        // No translation: fr/guide/ is built from this source.
        (
            "docs/guide.md",
            "# Guide\n\nSteps.\n",
            "2021-05-01T10:00:00+01:00",
        ),
        (
            "docs/draft.md",
            "---\nsitemap: false\n---\n# Draft\n\nSoon.\n",
            "2021-06-01T10:00:00+01:00",
        ),
        (
            "docs/private.fr.md",
            "---\nrobots: noindex\n---\n# Privé\n\nNon.\n",
            "2021-07-01T10:00:00+01:00",
        ),
        (
            "docs/private.md",
            "---\nrobots: noindex\n---\n# Private\n\nNo.\n",
            "2021-07-02T10:00:00+01:00",
        ),
    ];
    let i18n = "  - i18n:\n      docs_structure: suffix\n      languages:\n\
                \x20       - locale: en\n          default: true\n          name: English\n\
                \x20         build: true\n        - locale: fr\n          name: Français\n\
                \x20         build: true\n";
    for sitemapgen_first in [true, false] {
        let site = Site::empty();
        let project = site.outside().join("project");
        for (page, text, _) in pages {
            let path = project.join(page);
            fs::create_dir_all(path.parent().unwrap()).unwrap();
            fs::write(path, text).unwrap();
        }
        let offline = switch::nowhere();
        let plugins = if sitemapgen_first {
            format!("  - search\n  - sitemapgen\n{i18n}")
        } else {
            format!("  - search\n{i18n}  - sitemapgen\n")
        };
        fs::write(
            project.join("mkdocs.yml"),
            format!(
                "site_name: Demo\nsite_url: {offline}\nsite_dir: {}\ntheme:\n  name: material\n\
                 plugins:\n{plugins}",
                site.root.display()
            ),
        )
        .unwrap();
        let committed: Vec<(&str, &str)> = pages.iter().map(|(p, _, d)| (*p, *d)).collect();
        switch::commit_each(&project, &committed);
        let build = || python_ci(venv, &project, &["-m", "mkdocs", "build", "--strict"], "");
        let log = succeeded(&build());
        assert!(!log.contains("WARNING"), "{log}");
        let expected: BTreeMap<String, String> = [
            ("", pages[0].2),
            ("fr/", pages[1].2),
            ("about/", pages[2].2),
            ("fr/about/", pages[3].2),
            ("guide/", pages[4].2),
            ("fr/guide/", pages[4].2),
        ]
        .into_iter()
        .map(|(path, date)| (format!("{offline}{path}"), date.to_string()))
        .collect();
        let first = switch::dates(&site.sitemap_path(), &offline);
        assert_eq!(
            first, expected,
            "sitemapgen first: {sitemapgen_first}\n{log}"
        );
        // Material reads it as the list of pages.
        let listed = material_reads(&fs::read(site.sitemap_path()).unwrap());
        assert_eq!(listed.len(), expected.len());
        let summaries: Vec<&str> = log.lines().filter(|l| l.contains("wrote ")).collect();
        assert_eq!(summaries.len(), 1, "one run over the whole site:\n{log}");

        let log = succeeded(&build());
        assert!(
            log.contains("0 added, 0 removed, 0 re-dated, 6 kept"),
            "{log}"
        );
        assert_eq!(switch::dates(&site.sitemap_path(), &offline), first);
    }
}

#[test]
fn sphinx_switch_builds_offline_keeps_dates_locally_and_takes_the_old_sitemaps_dates() {
    let Some(venv) = generators() else { return };
    let site = Site::empty();
    let source = site.outside().join("source");
    fs::create_dir_all(&source).unwrap();
    let pages = [
        (
            "index.rst",
            "Demo\n====\n\n.. toctree::\n\n   a\n",
            "2021-02-03T04:05:06+01:00",
        ),
        ("a.rst", "A\n=\n\nText a.\n", "2022-05-06T07:08:09+02:00"),
    ];
    for (page, text, _) in pages {
        fs::write(source.join(page), text).unwrap();
    }
    let config = |base: &str| {
        format!(
            "project = 'Demo'\nextensions = ['sitemapgen_cli.sphinx']\nhtml_baseurl = '{base}'\n"
        )
    };
    let offline = switch::nowhere();
    fs::write(source.join("conf.py"), config(&offline)).unwrap();
    let committed: Vec<(&str, &str)> = pages.iter().map(|(p, _, d)| (*p, *d)).collect();
    switch::commit_each(&source, &committed);
    let out = site.root.to_str().unwrap();
    // `-E`, the output emptied first: nothing of an earlier build is left in it.
    let build = |ci: &str| {
        fs::remove_dir_all(&site.root).unwrap();
        python_ci(
            venv,
            site.outside(),
            &["-m", "sphinx", "-E", "-b", "html", "source", out],
            ci,
        )
    };

    let failed = build("true");
    assert_eq!(failed.status.code(), Some(1));
    let stderr = String::from_utf8_lossy(&failed.stderr);
    switch::assert_failed_in_ci(&stderr, "sitemapgen_state = False");

    let log = succeeded(&build(""));
    let state_url = format!("{offline}sitemap.state.gz");
    switch::assert_one_offline_note(&log, &state_url, "sitemapgen_state = False");
    let first = switch::dates(&site.sitemap_path(), &offline);
    assert_eq!(first[&format!("{offline}index.html")], pages[0].2);
    assert_eq!(first[&format!("{offline}a.html")], pages[1].2);
    let log = succeeded(&build(""));
    assert!(
        log.contains("0 added, 0 removed, 0 re-dated, 3 kept"),
        "{log}"
    );
    assert_eq!(switch::dates(&site.sitemap_path(), &offline), first);

    // The first deploy over the site sphinx-sitemap's sitemap served, from a fresh checkout.
    let live = site.outside().join("live");
    let server = Server::files(live.clone());
    let base = server.url("/");
    let locs = ["index.html", "a.html", "genindex.html"].map(|page| format!("{base}{page}"));
    let old = switch::old_dates(&locs.each_ref().map(String::as_str));
    switch::serve_native_sitemap(&live, &old);
    fs::remove_dir_all(source.join(".cache")).unwrap();
    fs::remove_dir_all(source.join(".git")).unwrap();
    fs::write(source.join("conf.py"), config(&base)).unwrap();
    let log = succeeded(&build("true"));
    assert!(log.contains("the 3 URLs listed in"), "{log}");
    assert_eq!(switch::dates(&site.sitemap_path(), &base), old);
}

/// The `<loc>` of each `<url>` of a sitemap, read as Material for MkDocs reads `sitemap.xml`
/// (its integrations/sitemap: the document's `url` elements, each one's `loc`): none when it
/// is an index.
fn material_reads(sitemap: &[u8]) -> Vec<String> {
    let text = String::from_utf8_lossy(sitemap);
    text.split("<url>")
        .skip(1)
        .filter_map(|url| {
            let loc = url.split_once("<loc>")?.1.split_once("</loc>")?.0;
            Some(loc.to_string())
        })
        .collect()
}

#[test]
fn mkdocs_plugin_keeps_materials_sitemap_a_list_of_pages_and_serves_the_gzip_url() {
    let Some(venv) = generators() else { return };
    let site = Site::empty();
    let base = "https://example.com/";
    let project = site.outside().join("project");
    for (page, text) in [
        ("index.md", "# Home\n\nWelcome.\n"),
        ("about.md", "# About\n\nWho we are.\n"),
        // A glob's characters in its name: excluded as the file it is.
        (
            "draft[1]*.md",
            "---\nsitemap: false\n---\n# Draft\n\nNot yet.\n",
        ),
        (
            "draft1x.md",
            "# Draft 1x\n\nA page the glob draft[1]* would match.\n",
        ),
        (
            "old.md",
            "---\nrobots: noindex, follow\n---\n# Old\n\nGone soon.\n",
        ),
    ] {
        let path = project.join("docs").join(page);
        fs::create_dir_all(path.parent().unwrap()).unwrap();
        fs::write(path, text).unwrap();
    }
    let config = format!(
        "site_name: Demo\nsite_url: {base}\nsite_dir: {}\ntheme:\n  name: material\n\
         plugins:\n  - search\n  - sitemapgen:\n      state: false\n",
        site.root.display()
    );
    fs::write(project.join("mkdocs.yml"), &config).unwrap();
    succeeded(&python(venv, &project, &["-m", "mkdocs", "build"]));
    let sitemap = fs::read(site.sitemap_path()).unwrap();
    // The pages whose meta says so are left out; Material finds a list of pages.
    let expected: Vec<String> = ["", "about/", "draft1x/"]
        .iter()
        .map(|path| format!("{base}{path}"))
        .collect();
    let mut read = material_reads(&sitemap);
    read.sort();
    assert_eq!(read, expected);
    assert_eq!(
        locs(&validate::sitemap(&site.sitemap_path(), base)).len(),
        3
    );
    // MkDocs's sitemap.xml.gz URL still answers, with ours.
    let gz = fs::read(site.root.join("sitemap.xml.gz")).unwrap();
    assert!(validate::gunzip(&gz) == sitemap);

    // What would make sitemap.xml an index (or leave none) is refused, saying why.
    for options in [
        "      groups: [blog=blog/**]\n",
        "      args: [--gzip]\n",
        "      args: ['--index-add=https://example.com/other.xml']\n",
        "      args: [--max-urls, '1']\n",
    ] {
        fs::write(project.join("mkdocs.yml"), format!("{config}{options}")).unwrap();
        let failed = python(venv, &project, &["-m", "mkdocs", "build"]);
        assert!(!failed.status.success(), "{options}");
        let stderr = String::from_utf8_lossy(&failed.stderr);
        assert!(
            stderr.contains("Material for MkDocs reads sitemap.xml as a list of pages"),
            "{stderr}"
        );
    }
    // Another theme may have its index.
    fs::write(
        project.join("mkdocs.yml"),
        format!("{config}      groups: [about=about/**]\n")
            .replace("name: material", "name: mkdocs"),
    )
    .unwrap();
    succeeded(&python(venv, &project, &["-m", "mkdocs", "build"]));
    assert!(material_reads(&fs::read(site.sitemap_path()).unwrap()).is_empty());
    assert_eq!(validate::index(&site.sitemap_path(), base).len(), 2);
}

#[test]
fn mkdocs_strict_build_passes_with_materials_language_switcher() {
    let Some(venv) = generators() else { return };
    let site = Site::empty();
    let base = "https://example.com/";
    let project = site.outside().join("project");
    for (page, text) in [
        ("index.md", "# Home\n"),
        ("guide.md", "# Guide\n"),
        ("fr/index.md", "# Accueil\n"),
        ("fr/guide.md", "# Guide\n"),
    ] {
        let path = project.join("docs").join(page);
        fs::create_dir_all(path.parent().unwrap()).unwrap();
        fs::write(path, text).unwrap();
    }
    // Material's language selector: the same links to each language's home in every head.
    let config = format!(
        "site_name: Demo\nsite_url: {base}\nsite_dir: {}\ntheme:\n  name: material\n\
         extra:\n  alternate:\n    - name: English\n      link: /\n      lang: en\n\
         \x20   - name: Français\n      link: /fr/\n      lang: fr\n\
         plugins:\n  - sitemapgen:\n      state: false\n",
        site.root.display()
    );
    fs::write(project.join("mkdocs.yml"), config).unwrap();
    let log = succeeded(&python(
        venv,
        &project,
        &["-m", "mkdocs", "build", "--strict"],
    ));
    assert!(!log.contains("WARNING"), "{log}");
    let alternates: BTreeMap<String, Vec<(String, String)>> =
        validate::sitemap(&site.sitemap_path(), base)
            .into_iter()
            .map(|url| (url.loc, url.alternates))
            .collect();
    let homes = vec![
        ("en".to_string(), base.to_string()),
        ("fr".to_string(), format!("{base}fr/")),
    ];
    let expected: BTreeMap<String, Vec<(String, String)>> = [
        ("", homes.clone()),
        ("fr/", homes),
        ("fr/guide/", vec![]),
        ("guide/", vec![]),
    ]
    .into_iter()
    .map(|(path, alternates)| (format!("{base}{path}"), alternates))
    .collect();
    assert_eq!(alternates, expected);
}

#[test]
fn sphinx_extension_leaves_out_documents_marked_nositemap() {
    let Some(venv) = generators() else { return };
    let site = Site::empty();
    let source = site.outside().join("source");
    fs::create_dir_all(&source).unwrap();
    for (page, text) in [
        (
            "index.rst",
            "Demo\n====\n\n.. toctree::\n\n   a\n   hidden\n",
        ),
        ("a.rst", "A\n=\n\nText a.\n"),
        (
            "hidden.rst",
            ":nositemap:\n\nHidden\n======\n\nNot listed.\n",
        ),
    ] {
        fs::write(source.join(page), text).unwrap();
    }
    fs::write(
        source.join("conf.py"),
        "project = 'Demo'\nextensions = ['sitemapgen_cli.sphinx']\n\
         html_baseurl = 'https://example.com/'\nsitemapgen_state = False\n\
         sitemapgen_excludes = ['/genindex.html']\nsitemapgen_lastmod_format = 'date'\n",
    )
    .unwrap();
    let out = site.root.to_str().unwrap();
    succeeded(&python(
        venv,
        site.outside(),
        &["-m", "sphinx", "-b", "html", "source", out],
    ));
    let urls = validate::sitemap(&site.sitemap_path(), "https://example.com/");
    let mut listed = locs(&urls);
    listed.sort_unstable();
    assert_eq!(
        listed,
        [
            "https://example.com/a.html",
            "https://example.com/index.html"
        ]
    );
    assert!(
        urls.iter()
            .all(|url| url.lastmod.as_ref().unwrap().len() == 10)
    );
}

/// Per URL, its alternates sorted, as (hreflang, URL), but `x-default` (which sphinx-sitemap
/// never writes).
fn alternates_of(urls: &[validate::UrlRecord]) -> BTreeMap<String, Vec<(String, String)>> {
    urls.iter()
        .map(|url| {
            let mut alternates: Vec<(String, String)> = url
                .alternates
                .iter()
                .filter(|(lang, _)| lang != "x-default")
                .cloned()
                .collect();
            alternates.sort();
            (url.loc.clone(), alternates)
        })
        .collect()
}

/// Two languages, each built by its own `sphinx-build -D language=…` into its folder of one
/// output at its URL: one sitemap over both, each page with its alternates, those
/// sphinx-sitemap 2.9 writes (`sitemap_locales`, `{lang}{link}`, run in the same builds).
#[test]
fn sphinx_locales_give_the_alternates_sphinx_sitemap_writes() {
    let Some(venv) = generators() else { return };
    let site = Site::empty();
    let base = "https://example.com/";
    let source = site.outside().join("source");
    fs::create_dir_all(&source).unwrap();
    for (page, text) in [
        ("index.rst", "Demo\n====\n\n.. toctree::\n\n   a\n"),
        ("a.rst", "A\n=\n\nText a.\n"),
    ] {
        fs::write(source.join(page), text).unwrap();
    }
    let config = format!(
        "project = 'Demo'\nextensions = ['sitemapgen_cli.sphinx', 'sphinx_sitemap']\n\
         sitemapgen_locales = ['en', 'fr']\nsitemapgen_state = False\n\
         sitemapgen_args = ['--hreflang-default', 'en']\n\
         site_url = '{base}'\nsitemap_url_scheme = '{{lang}}{{link}}'\n\
         sitemap_locales = ['en', 'fr']\nsitemap_filename = 'sitemap-sphinx.xml'\n"
    );
    fs::write(source.join("conf.py"), &config).unwrap();
    let build = |lang: &str, out: &Path| {
        python(
            venv,
            site.outside(),
            &[
                "-m",
                "sphinx",
                "-b",
                "html",
                "-D",
                &format!("language={lang}"),
                "-D",
                &format!("html_baseurl={base}{lang}/"),
                "source",
                out.to_str().unwrap(),
            ],
        )
    };
    for lang in ["en", "fr"] {
        let log = succeeded(&build(lang, &site.path(lang)));
        assert!(log.contains("sitemapgen: wrote "), "{log}");
    }
    assert!(!site.path("en/sitemap.xml").exists());
    let urls = validate::sitemap(&site.sitemap_path(), base);
    let ours = alternates_of(&urls);
    let mut theirs = BTreeMap::new();
    for lang in ["en", "fr"] {
        let bytes = fs::read(site.path(format!("{lang}/sitemap-sphinx.xml"))).unwrap();
        theirs.extend(alternates_of(&validate::parse_urls(&bytes)));
    }
    let pair = |lang: &str, path: &str| (lang.to_string(), format!("{base}{path}"));
    assert_eq!(
        ours[&format!("{base}fr/a.html")],
        [pair("en", "en/a.html"), pair("fr", "fr/a.html")]
    );
    assert!(ours.len() >= 6, "{ours:#?}");
    for (loc, alternates) in &ours {
        assert_eq!(Some(alternates), theirs.get(loc), "{loc}");
    }
    // x-default: the English page, on each page.
    for url in &urls {
        let english = url.loc.replacen("/fr/", "/en/", 1);
        assert!(
            url.alternates.contains(&("x-default".to_string(), english)),
            "{url:?}"
        );
    }
    // The CLI over the whole output with the languages' folders writes the same.
    let built = fs::read(site.sitemap_path()).unwrap();
    site.command(&["-b", base, "--locale", "en=/en/", "--locale", "fr=/fr/"])
        .args(["--hreflang-default", "en"])
        .run()
        .success();
    assert!(
        fs::read(site.sitemap_path()).unwrap() == built,
        "the CLI writes another"
    );

    // A build whose output is not its language's folder: the build fails, saying how.
    let elsewhere = site.outside().join("flat");
    let failed = build("fr", &elsewhere);
    assert_eq!(failed.status.code(), Some(1));
    let stderr = String::from_utf8_lossy(&failed.stderr);
    assert!(
        stderr.contains("sitemapgen: error: sitemapgen_locales names en, fr, but this build's"),
        "{stderr}"
    );
    // Locales found in locale_dirs alone, with such a layout (each language a site of its
    // own): a sitemap of the build, as before.
    fs::create_dir_all(source.join("locales/de/LC_MESSAGES")).unwrap();
    fs::write(
        source.join("conf.py"),
        config.replace(
            "sitemapgen_locales = ['en', 'fr']\n",
            "locale_dirs = ['locales']\n",
        ),
    )
    .unwrap();
    succeeded(&build("fr", &elsewhere));
    assert!(elsewhere.join("sitemap.xml").exists());
}
