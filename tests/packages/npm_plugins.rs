//! The Astro integration and the Docusaurus plugin of the packed npm package, run by the real
//! generators (pinned by tests/packages/sites/package-lock.json, which .ci/run installs): a
//! small site built twice as CI builds it, on a fresh machine each time, its state read back
//! from the deployed site (a server on the loopback address).

use std::collections::BTreeMap;
use std::fs;
use std::os::unix::fs::symlink;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use crate::built::tool;
use crate::harness::Site;
use crate::npm::{Project, install, packed};
use crate::plugins::{cli_sitemap, deploy, succeeded};
use crate::serve::Server;
use crate::switch;
use crate::validate::{self, locs};

/// A fresh project with the packed package installed offline, which also sees every package
/// of the generators' folder (a link each in its node_modules): no network at test time.
/// The generator's CLI script, by its path in the project, and the project; None where a
/// tool is missing outside CI.
fn project(generator: &str) -> Option<(PathBuf, Project)> {
    let cli = tool(generator)?;
    tool("node")?;
    let packed = packed()?;
    let project = install(
        &packed.npm,
        packed.npx.clone(),
        &[packed.main.clone(), packed.linux_x64.clone()],
    );
    let theirs = cli
        .parent()
        .unwrap()
        .parent()
        .unwrap()
        .canonicalize()
        .unwrap();
    let ours = project.dir.path().join("node_modules");
    for entry in fs::read_dir(&theirs).unwrap() {
        let entry = entry.unwrap();
        let link = ours.join(entry.file_name());
        if !link.exists() {
            symlink(entry.path(), link).unwrap();
        }
    }
    let script = ours.join(cli.canonicalize().unwrap().strip_prefix(&theirs).unwrap());
    Some((script, project))
}

/// Runs the generator's CLI SCRIPT with ARGS in DIR under node, with Node's options OPTIONS:
/// its output, stdout and stderr together.
fn build(script: &Path, options: &str, dir: &Path, args: &[&str]) -> (Output, String) {
    build_ci(
        script,
        options,
        dir,
        args,
        &std::env::var("CI").unwrap_or_default(),
    )
}

/// `build`, with `CI` as given (empty: not CI).
fn build_ci(script: &Path, options: &str, dir: &Path, args: &[&str], ci: &str) -> (Output, String) {
    let output = Command::new("node")
        .arg(script)
        .env("CI", ci)
        .args(args)
        .current_dir(dir)
        .env("NODE_OPTIONS", options)
        .env("ASTRO_TELEMETRY_DISABLED", "1")
        .env_remove("SITEMAPGEN_BINARY")
        .output()
        .unwrap();
    let log = format!(
        "{}{}",
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    );
    (output, log)
}

/// Node's options for Astro: node and Vite keep the links' paths (see the Astro test).
const SYMLINKS: &str = "--preserve-symlinks --preserve-symlinks-main";

/// The sorted `loc`s of the site's sitemap, each after BASE, which it is validated against.
fn listed(site: &Site, base: &str) -> Vec<String> {
    let urls = validate::sitemap(&site.sitemap_path(), base);
    let mut listed: Vec<String> = locs(&urls)
        .iter()
        .map(|url| url.strip_prefix(base).unwrap().to_owned())
        .collect();
    listed.sort_unstable();
    listed
}

/// The warning of the plugins where no package has a binary (the platform faked as Windows
/// on arm64).
const NO_BINARY: &str = "sitemapgen has no binary for win32-arm64: no sitemap written; CI on \
                         Linux, macOS or Windows writes it";

/// Makes the config file CONFIG in DIR call the plugin as on Windows on arm64, which has no
/// package: PLUGIN (the call in it) becomes `onWin32(PLUGIN)`, which fakes `process.platform`
/// and `process.arch` while the plugin's hook runs, and only then (the generator itself runs
/// on this machine).
fn on_win32(dir: &Path, config: &str, plugin: &str) {
    fs::write(
        dir.join("win32.mjs"),
        "export function onWin32(plugin) {\n\
         \x20 const [owner, key] = plugin.hooks ? [plugin.hooks, 'astro:build:done'] : [plugin, 'postBuild'];\n\
         \x20 const hook = owner[key];\n\
         \x20 owner[key] = (...args) => {\n\
         \x20   const [platform, arch] = [process.platform, process.arch];\n\
         \x20   Object.defineProperty(process, 'platform', { value: 'win32' });\n\
         \x20   Object.defineProperty(process, 'arch', { value: 'arm64' });\n\
         \x20   try { return hook(...args); } finally {\n\
         \x20     Object.defineProperty(process, 'platform', { value: platform });\n\
         \x20     Object.defineProperty(process, 'arch', { value: arch });\n\
         \x20   }\n\
         \x20 };\n\
         \x20 return plugin;\n\
         }\n",
    )
    .unwrap();
    let path = dir.join(config);
    let text = fs::read_to_string(&path).unwrap();
    assert!(text.contains(plugin), "{text}");
    let text = format!(
        "import {{ onWin32 }} from './win32.mjs';\n{}",
        text.replace(plugin, &format!("onWin32({plugin})"))
    );
    fs::write(path, text).unwrap();
}

#[test]
fn astro_integration_writes_the_cli_sitemap_and_a_rebuild_redates_nothing() {
    let Some((astro, project)) = project("astro") else {
        return;
    };
    let site = Site::empty();
    let live = site.outside().join("live");
    fs::create_dir(&live).unwrap();
    let server = Server::files(live.clone());
    let origin = server.url("");
    let dir = project.dir.path().join("astro");
    // Starlight with a French locale (fr/about and fr/guides/install fall back to English),
    // and a plain Astro page, which declares no canonical URL.
    for (file, text) in [
        (
            "src/content/docs/index.md",
            "---\ntitle: Home\n---\nWelcome.\n",
        ),
        (
            "src/content/docs/about.md",
            "---\ntitle: About\n---\nWho we are.\n",
        ),
        (
            "src/content/docs/guides/install.md",
            "---\ntitle: Install\n---\nThe steps.\n",
        ),
        (
            "src/content/docs/fr/index.md",
            "---\ntitle: Accueil\n---\nBienvenue.\n",
        ),
        (
            "src/pages/plain.astro",
            "<html><head><title>Plain</title></head><body><p>Plain.</p></body></html>\n",
        ),
        (
            "src/content.config.ts",
            "import { defineCollection } from 'astro:content';\n\
             import { docsLoader } from '@astrojs/starlight/loaders';\n\
             import { docsSchema } from '@astrojs/starlight/schema';\n\
             export const collections = {\n  \
               docs: defineCollection({ loader: docsLoader(), schema: docsSchema() }),\n};\n",
        ),
    ] {
        let path = dir.join(file);
        fs::create_dir_all(path.parent().unwrap()).unwrap();
        fs::write(path, text).unwrap();
    }
    // Astro reads a file whose real path has only `/` in common with the project's as one
    // inside the project (/opt/x as <project>/opt/x): node and Vite keep the links' paths,
    // so the packages sit inside the project, as in a user's.
    let astro_build = |args: &[&str]| build(&astro, SYMLINKS, &dir, args);
    let config = |site_config: &str| {
        let text = format!(
            "import {{ defineConfig }} from 'astro/config';\n\
             import starlight from '@astrojs/starlight';\n\
             import sitemapgen from 'sitemapgen-cli/astro';\n\
             export default defineConfig({{\n  {site_config}\n  outDir: {:?},\n  \
               vite: {{ resolve: {{ preserveSymlinks: true }} }},\n  \
               integrations: [\n    starlight({{ title: 'Demo', locales: {{ root: {{ label: 'English', \
               lang: 'en' }}, fr: {{ label: 'Français' }} }} }}),\n    sitemapgen(),\n  ],\n}});\n",
            site.root.display().to_string()
        );
        fs::write(dir.join("astro.config.mjs"), text).unwrap();
    };

    // Before the first deploy, offline: one note; each page dated by its source's commit.
    let offline = switch::nowhere();
    config(&format!("site: '{offline}',"));
    let dated = [
        ("src/content/docs/about.md", "2021-02-03T04:05:06+01:00"),
        ("src/pages/plain.astro", "2022-05-06T07:08:09+02:00"),
    ];
    switch::commit_each(&dir, &dated);
    let (output, log) = build_ci(&astro, SYMLINKS, &dir, &["build"], "true");
    assert!(!output.status.success(), "{log}");
    switch::assert_failed_in_ci(&log, "state: false");
    let (output, log) = build_ci(&astro, SYMLINKS, &dir, &["build"], "");
    succeeded(&output);
    let state_url = format!("{offline}sitemap.state.gz");
    switch::assert_one_offline_note(&log, &state_url, "state: false");
    let first = switch::dates(&site.sitemap_path(), &offline);
    assert_eq!(first[&format!("{offline}about/")], dated[0].1);
    assert_eq!(first[&format!("{offline}plain/")], dated[1].1);
    // A local rebuild, the output emptied: the state beside the project keeps every date.
    fs::remove_dir_all(&site.root).unwrap();
    let (output, log) = build_ci(&astro, SYMLINKS, &dir, &["build"], "");
    succeeded(&output);
    assert!(
        log.contains("0 added, 0 removed, 0 re-dated, 7 kept"),
        "{log}"
    );
    assert_eq!(switch::dates(&site.sitemap_path(), &offline), first);
    fs::remove_dir_all(dir.join(".cache")).unwrap();
    fs::remove_dir_all(dir.join(".git")).unwrap();

    // `site` and `base`, trailingSlash "ignore" (the default): no flag.
    config(&format!("site: '{origin}/', base: '/docs',"));
    let base = format!("{origin}/docs/");
    let (output, log) = astro_build(&["build"]);
    succeeded(&output);
    assert!(
        log.contains("since the state: 7 added, 0 removed, 0 re-dated"),
        "{log}"
    );
    let pages = [
        "",
        "about/",
        "fr/",
        "fr/about/",
        "fr/guides/install/",
        "guides/install/",
        "plain/",
    ];
    assert_eq!(listed(&site, &base), pages);
    let built = fs::read(site.sitemap_path()).unwrap();
    assert!(
        built == cli_sitemap(&site, &base, &[]),
        "the CLI writes another"
    );

    // The next CI job: a fresh output folder, no state beside the project; the state comes
    // from the live site.
    deploy(&site, &live.join("docs"));
    fs::remove_dir_all(&site.root).unwrap();
    fs::remove_dir_all(dir.join(".cache")).unwrap();
    let (output, log) = astro_build(&["build"]);
    succeeded(&output);
    assert!(
        log.contains("since the state: 0 added, 0 removed, 0 re-dated, 7 kept"),
        "{log}"
    );
    assert!(fs::read(site.sitemap_path()).unwrap() == built);

    // The first deploy over a site that @astrojs/sitemap's sitemap dated (`lastmod`): a
    // fresh checkout keeps those dates.
    fs::remove_dir_all(&live).unwrap();
    let locs = pages.map(|page| format!("{base}{page}"));
    let old = switch::old_dates(&locs.each_ref().map(String::as_str));
    switch::serve_native_sitemap(&live.join("docs"), &old);
    fs::remove_dir_all(&site.root).unwrap();
    fs::remove_dir_all(dir.join(".cache")).unwrap();
    let (output, log) = astro_build(&["build"]);
    succeeded(&output);
    assert!(log.contains("the 7 URLs listed in"), "{log}");
    assert_eq!(switch::dates(&site.sitemap_path(), &base), old);

    // trailingSlash "never" with pages as files: `--no-trailing-slash --clean-urls`, which
    // list the plain page as /plain; Starlight's pages declare their .html URLs.
    config(&format!(
        "site: '{origin}', trailingSlash: 'never', build: {{ format: 'file' }},"
    ));
    let base = format!("{origin}/");
    let (output, _) = astro_build(&["build"]);
    succeeded(&output);
    let pages = [
        "",
        "about.html",
        "fr.html",
        "fr/about.html",
        "fr/guides/install.html",
        "guides/install.html",
        "plain",
    ];
    assert_eq!(listed(&site, &base), pages);
    assert!(
        fs::read(site.sitemap_path()).unwrap()
            == cli_sitemap(&site, &base, &["--no-trailing-slash", "--clean-urls"]),
        "the CLI writes another"
    );

    // No `site`: the build fails, naming the key to set.
    config("");
    fs::remove_dir_all(&site.root).unwrap();
    let (output, log) = astro_build(&["build"]);
    assert!(!output.status.success(), "{log}");
    assert!(
        log.contains("sitemapgen: error: site is not set in astro.config.mjs"),
        "{log}"
    );
    assert!(!site.sitemap_path().exists());

    // Where no package has a binary: the build finishes after one warning, with no sitemap.
    config(&format!("site: '{origin}',"));
    on_win32(&dir, "astro.config.mjs", "sitemapgen()");
    let (output, log) = astro_build(&["build"]);
    succeeded(&output);
    assert_eq!(log.matches(NO_BINARY).count(), 1, "{log}");
    assert!(site.root.join("index.html").is_file());
    assert!(!site.sitemap_path().exists());
    assert!(!site.root.join("sitemap.state.gz").exists());
}

#[test]
fn docusaurus_plugin_writes_the_cli_sitemap_and_a_rebuild_redates_nothing() {
    let Some((docusaurus, project)) = project("docusaurus") else {
        return;
    };
    let site = Site::empty();
    let live = site.outside().join("live");
    fs::create_dir(&live).unwrap();
    let server = Server::files(live.clone());
    let origin = server.url("");
    let dir = project.dir.path().join("docusaurus");
    for (file, text) in [
        ("src/pages/index.md", "# Home\n\nWelcome.\n"),
        ("docs/intro.md", "# Intro\n\nStart here.\n"),
        ("docs/install.md", "# Install\n\nThe steps.\n"),
    ] {
        let path = dir.join(file);
        fs::create_dir_all(path.parent().unwrap()).unwrap();
        fs::write(path, text).unwrap();
    }
    let config = |url: &str| {
        let text = format!(
            "export default {{\n  title: 'Demo',\n  {url}\n  baseUrl: '/docs/',\n  \
               presets: [['classic', {{ blog: false, sitemap: false }}]],\n  \
               plugins: ['sitemapgen-cli/docusaurus'],\n}};\n"
        );
        fs::write(dir.join("docusaurus.config.js"), text).unwrap();
    };
    let out = site.root.to_str().unwrap();
    let args = ["build", "--out-dir", out];

    // Before the first deploy, offline: one note; each doc dated by its source's commit.
    let offline = switch::nowhere();
    config(&format!("url: '{}',", offline.trim_end_matches('/')));
    let dated = [
        ("docs/intro.md", "2021-02-03T04:05:06+01:00"),
        ("src/pages/index.md", "2022-05-06T07:08:09+02:00"),
    ];
    switch::commit_each(&dir, &dated);
    let (output, log) = build_ci(&docusaurus, "", &dir, &args, "true");
    assert!(!output.status.success(), "{log}");
    switch::assert_failed_in_ci(&log, "state: false");
    let (output, log) = build_ci(&docusaurus, "", &dir, &args, "");
    succeeded(&output);
    let state_url = format!("{offline}docs/sitemap.state.gz");
    switch::assert_one_offline_note(&log, &state_url, "state: false");
    let first = switch::dates(&site.sitemap_path(), &format!("{offline}docs/"));
    assert_eq!(first[&format!("{offline}docs/docs/intro")], dated[0].1);
    assert_eq!(first[&format!("{offline}docs/")], dated[1].1);
    // A local rebuild: Docusaurus empties the output; the state beside it keeps every date.
    let (output, log) = build_ci(&docusaurus, "", &dir, &args, "");
    succeeded(&output);
    assert!(
        log.contains("0 added, 0 removed, 0 re-dated, 3 kept"),
        "{log}"
    );
    assert_eq!(
        switch::dates(&site.sitemap_path(), &format!("{offline}docs/")),
        first
    );
    fs::remove_dir_all(dir.join(".cache")).unwrap();
    fs::remove_dir_all(dir.join(".git")).unwrap();

    // `url` and `baseUrl`, trailingSlash unset: `--no-trailing-slash`.
    config(&format!("url: '{origin}',"));
    let base = format!("{origin}/docs/");
    let (output, log) = build(&docusaurus, "", &dir, &args);
    succeeded(&output);
    assert!(
        log.contains(&format!(
            "no state at {base}sitemap.state.gz (404), no sitemap at {base}sitemap.xml (404): a \
             first run"
        )),
        "{log}"
    );
    assert!(
        log.contains("since the state: 3 added, 0 removed, 0 re-dated"),
        "{log}"
    );
    assert_eq!(listed(&site, &base), ["", "docs/install", "docs/intro"]);
    let built = fs::read(site.sitemap_path()).unwrap();
    assert!(
        built == cli_sitemap(&site, &base, &["--no-trailing-slash"]),
        "the CLI writes another"
    );

    // The next CI job: Docusaurus empties the output folder, and there is no state beside
    // the project; the state comes from the live site.
    deploy(&site, &live.join("docs"));
    fs::remove_dir_all(dir.join(".cache")).unwrap();
    let (output, log) = build(&docusaurus, "", &dir, &args);
    succeeded(&output);
    assert!(
        log.contains("since the state: 0 added, 0 removed, 0 re-dated, 3 kept"),
        "{log}"
    );
    assert!(fs::read(site.sitemap_path()).unwrap() == built);

    // The first deploy over a site that Docusaurus's sitemap dated (`lastmod: 'date'`): a
    // fresh checkout keeps those dates.
    fs::remove_dir_all(&live).unwrap();
    let locs = ["", "docs/install", "docs/intro"].map(|page| format!("{base}{page}"));
    let old = switch::old_dates(&locs.each_ref().map(String::as_str));
    switch::serve_native_sitemap(&live.join("docs"), &old);
    fs::remove_dir_all(dir.join(".cache")).unwrap();
    let (output, log) = build(&docusaurus, "", &dir, &args);
    succeeded(&output);
    assert!(log.contains("the 3 URLs listed in"), "{log}");
    assert_eq!(switch::dates(&site.sitemap_path(), &base), old);

    // No `url`: Docusaurus's own check fails the build, naming it, before any page is built.
    config("");
    fs::remove_dir_all(&site.root).unwrap();
    let (output, log) = build(&docusaurus, "", &dir, &args);
    assert!(!output.status.success(), "{log}");
    assert!(log.contains("\"url\" is required"), "{log}");
    assert!(!site.sitemap_path().exists());

    // Where no package has a binary: the build finishes after one warning, with no sitemap.
    config(&format!("url: '{origin}',"));
    let plugin = "(context, options) => sitemapgen(context, options)";
    let text = fs::read_to_string(dir.join("docusaurus.config.js"))
        .unwrap()
        .replace(
            "plugins: ['sitemapgen-cli/docusaurus']",
            &format!("plugins: [{plugin}]"),
        );
    let text = format!("import sitemapgen from 'sitemapgen-cli/docusaurus';\n{text}");
    fs::write(dir.join("docusaurus.config.js"), text).unwrap();
    on_win32(&dir, "docusaurus.config.js", "sitemapgen(context, options)");
    let (output, log) = build(&docusaurus, "", &dir, &args);
    succeeded(&output);
    assert_eq!(log.matches(NO_BINARY).count(), 1, "{log}");
    assert!(site.root.join("index.html").is_file());
    assert!(!site.sitemap_path().exists());
    assert!(!site.root.join("sitemap.state.gz").exists());
}

#[test]
fn docusaurus_no_index_builds_with_no_sitemap_and_the_native_options_map() {
    let Some((docusaurus, project)) = project("docusaurus") else {
        return;
    };
    let site = Site::empty();
    let dir = project.dir.path().join("docusaurus");
    for (file, text) in [
        ("src/pages/index.md", "# Home\n\nWelcome.\n"),
        ("docs/intro.md", "# Intro\n\nStart here.\n"),
        ("docs/tags/a.md", "# A tag\n\nTagged.\n"),
    ] {
        let path = dir.join(file);
        fs::create_dir_all(path.parent().unwrap()).unwrap();
        fs::write(path, text).unwrap();
    }
    let config = |extra: &str, options: &str| {
        let text = format!(
            "export default {{\n  title: 'Demo',\n  url: 'https://example.com',\n  \
               baseUrl: '/',\n  {extra}\n  \
               presets: [['classic', {{ blog: false, sitemap: false }}]],\n  \
               plugins: [['sitemapgen-cli/docusaurus', {{ state: false, {options} }}]],\n}};\n"
        );
        fs::write(dir.join("docusaurus.config.js"), text).unwrap();
    };
    let out = site.root.to_str().unwrap();
    let args = ["build", "--out-dir", out];

    // @docusaurus/plugin-sitemap's names: a date alone, and the patterns left out.
    config("", "lastmod: 'date', ignorePatterns: ['/docs/tags/**']");
    let (output, _) = build(&docusaurus, "", &dir, &args);
    succeeded(&output);
    let base = "https://example.com/";
    assert_eq!(listed(&site, base), ["", "docs/intro"]);
    let urls = validate::sitemap(&site.sitemap_path(), base);
    assert!(
        urls.iter()
            .all(|url| url.lastmod.as_ref().unwrap().len() == 10)
    );

    // noIndex: true (a staging deploy): every page says noindex; the build succeeds with one
    // note and no sitemap, as Docusaurus's own plugin writes none.
    config("noIndex: true,", "");
    let (output, log) = build(&docusaurus, "", &dir, &args);
    succeeded(&output);
    assert!(
        log.contains("[sitemapgen] note: no sitemap: every page in "),
        "{log}"
    );
    assert!(!site.sitemap_path().exists());
    assert_eq!(log.matches("[sitemapgen]").count(), 1, "{log}");
}

#[test]
fn astro_integration_takes_astrojs_sitemaps_option_names() {
    let Some((_, project)) = project("astro") else {
        return;
    };
    // The flags for @astrojs/sitemap's options, as the integration maps them.
    let script = "import { astroFlags } from 'sitemapgen-cli/astro';\n\
        console.log(JSON.stringify(astroFlags({ site: 'https://example.com' }, '/out', {\n\
          state: false, exclude: ['/secret/**'], lastmod: new Date('2026-11-27T10:00:00Z'),\n\
          lastmodFormat: 'date', xslURL: '/s.xsl', customPagesFile: '/tmp/urls.txt' })));\n";
    let output = Command::new("node")
        .args(["--input-type=module", "-e", script])
        .current_dir(project.dir.path())
        .output()
        .unwrap();
    let out = succeeded(&output);
    assert_eq!(
        out.trim(),
        "[\"--base-url\",\"https://example.com/\",\"--exclude\",\"/secret/**\",\
         \"--lastmod\",\"2026-11-27T10:00:00Z\",\"--lastmod-format\",\"date\",\
         \"--add-urls\",\"/tmp/urls.txt\",\"--xsl\",\"/s.xsl\",\"/out\"]"
    );
}

/// Writes each (path under DIR, text).
fn write_files(dir: &Path, files: &[(String, String)]) {
    for (file, text) in files {
        let path = dir.join(file);
        fs::create_dir_all(path.parent().unwrap()).unwrap();
        fs::write(path, text).unwrap();
    }
}

/// Per URL, its alternates sorted, as (hreflang, URL).
fn alternates(urls: &[validate::UrlRecord]) -> BTreeMap<String, Vec<(String, String)>> {
    urls.iter()
        .map(|url| {
            let mut alternates = url.alternates.clone();
            alternates.sort();
            (url.loc.clone(), alternates)
        })
        .collect()
}

#[test]
fn astro_i18n_gives_the_alternates_astrojs_sitemap_writes() {
    let Some((astro, project)) = project("astro") else {
        return;
    };
    let site = Site::empty();
    let dir = project.dir.path().join("astro-i18n");
    // Plain Astro pages, which name no alternates: English at the root, French under fr/,
    // a page of each language only.
    let pages = [
        ("index", "Home"),
        ("about", "About"),
        ("only-en", "English only"),
        ("fr/index", "Accueil"),
        ("fr/about", "À propos"),
        ("fr/seulement", "Français seulement"),
    ]
    .map(|(file, title)| {
        (
            format!("src/pages/{file}.astro"),
            format!(
                "<html><head><title>{title}</title></head><body><p>{title}.</p></body></html>\n"
            ),
        )
    });
    write_files(&dir, &pages);
    // Both sitemaps in one build: @astrojs/sitemap's sitemap-0.xml and ours.
    let text = format!(
        "import {{ defineConfig }} from 'astro/config';\n\
         import sitemap from '@astrojs/sitemap';\n\
         import sitemapgen from 'sitemapgen-cli/astro';\n\
         export default defineConfig({{\n  site: 'https://example.com',\n  outDir: {:?},\n  \
           i18n: {{ locales: ['en', 'fr'], defaultLocale: 'en' }},\n  \
           vite: {{ resolve: {{ preserveSymlinks: true }} }},\n  \
           integrations: [\n    sitemap({{ i18n: {{ defaultLocale: 'en', locales: {{ en: 'en', fr: 'fr' }} }} }}),\n    \
           sitemapgen({{ state: false }}),\n  ],\n}});\n",
        site.root.display().to_string()
    );
    fs::write(dir.join("astro.config.mjs"), text).unwrap();
    let (output, _) = build(
        &astro,
        "--preserve-symlinks --preserve-symlinks-main",
        &dir,
        &["build"],
    );
    succeeded(&output);
    let ours = validate::sitemap(&site.sitemap_path(), "https://example.com/");
    let theirs = validate::parse_urls(&fs::read(site.path("sitemap-0.xml")).unwrap());
    let ours = alternates(&ours);
    assert_eq!(ours, alternates(&theirs));
    let pair = |lang: &str, path: &str| (lang.to_string(), format!("https://example.com/{path}"));
    assert_eq!(
        ours["https://example.com/fr/about/"],
        [pair("en", "about/"), pair("fr", "fr/about/")]
    );
    assert_eq!(ours["https://example.com/only-en/"], []);

    // routing.prefixDefaultLocale puts the default locale in its folder too; an object
    // locale's `path` is its folder, its first code its language.
    let script = "import { astroFlags } from 'sitemapgen-cli/astro';\n\
        console.log(JSON.stringify(astroFlags({ site: 'https://example.com', i18n: {\n\
          locales: ['en', { path: 'spanish', codes: ['es', 'es-ES'] }], defaultLocale: 'en',\n\
          routing: { prefixDefaultLocale: true } } }, '/out', { state: false })));\n";
    let output = Command::new("node")
        .args(["--input-type=module", "-e", script])
        .current_dir(project.dir.path())
        .output()
        .unwrap();
    assert_eq!(
        succeeded(&output).trim(),
        "[\"--base-url\",\"https://example.com/\",\"--locale\",\"en=/en/\",\
         \"--locale\",\"es=/spanish/\",\"/out\"]"
    );
}

/// A two-locale Docusaurus site's pages: a page with no French translation, a doc with one.
const I18N_PAGES: [(&str, &str); 3] = [
    ("src/pages/index.md", "# Home\n\nWelcome.\n"),
    ("docs/intro.md", "# Intro\n\nStart here.\n"),
    (
        "i18n/fr/docusaurus-plugin-content-docs/current/intro.md",
        "# Intro\n\nCommencez ici.\n",
    ),
];

/// Docusaurus builds each locale with this plugin's module loaded afresh: what the default
/// locale's build knows (its pages' sources) reaches the last locale's run on disk, so every
/// page of both locales is dated by its own source's commit (the French home page, with no
/// translation, by the English source it is built from), on the first build and the next.
#[test]
fn docusaurus_locales_date_every_page_by_its_source_after_the_last_build() {
    let Some((docusaurus, project)) = project("docusaurus") else {
        return;
    };
    let site = Site::empty();
    let dir = project.dir.path().join("docusaurus-i18n-dates");
    write_files(
        &dir,
        &I18N_PAGES.map(|(f, t)| (f.to_string(), t.to_string())),
    );
    let offline = switch::nowhere();
    fs::write(
        dir.join("docusaurus.config.js"),
        format!(
            "export default {{\n  title: 'Demo',\n  url: '{}',\n  baseUrl: '/',\n  \
               i18n: {{ defaultLocale: 'en', locales: ['en', 'fr'] }},\n  \
               presets: [['classic', {{ blog: false, sitemap: false }}]],\n  \
               plugins: ['sitemapgen-cli/docusaurus'],\n}};\n",
            offline.trim_end_matches('/')
        ),
    )
    .unwrap();
    let dated = [
        ("src/pages/index.md", "2021-02-03T04:05:06+01:00"),
        ("docs/intro.md", "2022-05-06T07:08:09+02:00"),
        (
            "i18n/fr/docusaurus-plugin-content-docs/current/intro.md",
            "2023-08-09T10:11:12+03:00",
        ),
    ];
    switch::commit_each(&dir, &dated);
    let out = site.root.to_str().unwrap();
    let args = ["build", "--out-dir", out];
    let expected: BTreeMap<String, String> = [
        ("", dated[0].1),
        ("fr/", dated[0].1),
        ("docs/intro", dated[1].1),
        ("fr/docs/intro", dated[2].1),
    ]
    .into_iter()
    .map(|(path, date)| (format!("{offline}{path}"), date.to_string()))
    .collect();
    for build_number in [1, 2] {
        let (output, log) = build_ci(&docusaurus, "", &dir, &args, "");
        succeeded(&output);
        assert!(!log.contains("[sitemapgen] warning"), "{log}");
        let dates = switch::dates(&site.sitemap_path(), &offline);
        assert_eq!(dates, expected, "build {build_number}:\n{log}");
        if build_number == 2 {
            assert!(
                log.contains("0 added, 0 removed, 0 re-dated, 4 kept"),
                "{log}"
            );
        }
    }
}

#[test]
fn docusaurus_with_two_locales_writes_one_sitemap_after_the_last() {
    let Some((docusaurus, project)) = project("docusaurus") else {
        return;
    };
    let site = Site::empty();
    let dir = project.dir.path().join("docusaurus-i18n");
    write_files(
        &dir,
        &I18N_PAGES.map(|(f, t)| (f.to_string(), t.to_string())),
    );
    fs::write(
        dir.join("docusaurus.config.js"),
        "export default {\n  title: 'Demo',\n  url: 'https://example.com',\n  baseUrl: '/',\n  \
           i18n: { defaultLocale: 'en', locales: ['en', 'fr'] },\n  \
           presets: [['classic', { blog: false, sitemap: false }]],\n  \
           plugins: [['sitemapgen-cli/docusaurus', { state: false }]],\n};\n",
    )
    .unwrap();
    let out = site.root.to_str().unwrap();
    let (output, log) = build(&docusaurus, "", &dir, &["build", "--out-dir", out]);
    succeeded(&output);
    assert!(
        log.contains("one sitemap for every locale, after the last locale's build"),
        "{log}"
    );
    assert!(!site.path("fr/sitemap.xml").exists(), "{log}");
    assert!(!log.contains("[sitemapgen] warning"), "{log}");
    let urls = validate::sitemap(&site.sitemap_path(), "https://example.com/");
    let got = alternates(&urls);
    let pair = |lang: &str, path: &str| (lang.to_string(), format!("https://example.com/{path}"));
    let intro = vec![
        pair("en", "docs/intro"),
        pair("fr", "fr/docs/intro"),
        pair("x-default", "docs/intro"),
    ];
    assert_eq!(got["https://example.com/docs/intro"], intro);
    assert_eq!(got["https://example.com/fr/docs/intro"], intro);
    let home = vec![pair("en", ""), pair("fr", "fr/"), pair("x-default", "")];
    assert_eq!(got["https://example.com/"], home);
    assert_eq!(got["https://example.com/fr/"], home);
    // The CLI over the whole site with the locales' folders writes the same.
    let built = fs::read(site.sitemap_path()).unwrap();
    site.run(&[
        "--no-trailing-slash",
        "--locale",
        "en=/",
        "--locale",
        "fr=/fr/",
    ])
    .success();
    assert!(
        fs::read(site.sitemap_path()).unwrap() == built,
        "the CLI writes another"
    );
}
