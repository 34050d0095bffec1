//! The npm packages: the main package (the launcher) and the linux-x64 package holding the
//! wheel's binary, packed and installed offline (`--ignore-scripts`, a dead registry), run
//! through `npx`: the same sitemap, the exit status, signals and the override.

use std::fs;
use std::io::{ErrorKind, Write};
use std::os::unix::fs::PermissionsExt;
use std::os::unix::process::ExitStatusExt;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::OnceLock;
use std::thread;
use std::time::{Duration, Instant};

use tempfile::TempDir;

use crate::built::{
    FIXTURE, MANIFEST_DIR, VERSION, build_packages, installed, run, tool, work_dir,
};
use crate::harness::{BASE, Site};
use crate::validate;

/// A folder where the packed packages were installed, as a user's project.
pub struct Project {
    pub dir: TempDir,
    npx: PathBuf,
}

impl Project {
    fn npx(&self) -> Command {
        let mut command = Command::new(&self.npx);
        command
            .current_dir(self.dir.path())
            .args(["--offline", "sitemapgen"]);
        command
    }

    /// `node_modules/.bin/sitemapgen`: the launcher itself, no npm process between.
    fn launcher(&self) -> PathBuf {
        self.dir.path().join("node_modules/.bin/sitemapgen")
    }
}

/// A fresh project with these tarballs installed: `--offline`, no install scripts, and a
/// registry nothing listens on, so nothing can come from the network.
pub fn install(npm: &Path, npx: PathBuf, tarballs: &[PathBuf]) -> Project {
    install_with(npm, npx, tarballs, &[])
}

/// As `install`, with npm's FLAGS too.
fn install_with(npm: &Path, npx: PathBuf, tarballs: &[PathBuf], flags: &[&str]) -> Project {
    let dir = tempfile::Builder::new()
        .prefix("sitemapgen-npm-")
        .tempdir()
        .unwrap();
    fs::write(
        dir.path().join("package.json"),
        "{ \"name\": \"a-site\", \"private\": true }\n",
    )
    .unwrap();
    run(Command::new(npm)
        .current_dir(dir.path())
        .args([
            "install",
            "--ignore-scripts",
            "--offline",
            "--no-audit",
            "--no-fund",
        ])
        .args(["--registry", "http://127.0.0.1:9/", "--cache"])
        .arg(dir.path().join(".npm-cache"))
        .args(flags)
        .args(tarballs));
    Project { dir, npx }
}

pub struct Packed {
    pub main: PathBuf,
    pub linux_x64: PathBuf,
    pub npm: PathBuf,
    pub npx: PathBuf,
}

/// The main package and the linux-x64 package (the wheel's binary in it), packed by
/// `scripts/build-packages.sh` as a user packs them from a checkout.
pub fn packed() -> Option<&'static Packed> {
    static PACKED: OnceLock<Option<Packed>> = OnceLock::new();
    PACKED
        .get_or_init(|| {
            let npm = tool("npm")?;
            let npx = tool("npx")?;
            installed()?;
            build_packages("npm");
            let packed = work_dir().join("npm");
            Some(Packed {
                main: packed.join(format!("sitemapgen-cli-{VERSION}.tgz")),
                linux_x64: packed.join(format!("sitemapgen-cli-linux-x64-{VERSION}.tgz")),
                npm,
                npx,
            })
        })
        .as_ref()
}

/// The main package and the linux-x64 package, installed once.
fn project() -> Option<&'static Project> {
    static PROJECT: OnceLock<Option<Project>> = OnceLock::new();
    PROJECT
        .get_or_init(|| {
            let packed = packed()?;
            let tarballs = [packed.main.clone(), packed.linux_x64.clone()];
            Some(install(&packed.npm, packed.npx.clone(), &tarballs))
        })
        .as_ref()
}

#[test]
fn npx_sitemapgen_writes_what_the_cargo_build_writes() {
    let Some(project) = project() else { return };
    let site = Site::fixture(FIXTURE);
    let expected = crate::built::expected_sitemap(&site);
    let printed = run(project.npx().args(["-b", BASE, "-o", "-"]).arg(&site.root));
    assert!(
        printed.stdout == expected,
        "-o - differs from the cargo build's"
    );

    run(project.npx().args(["-b", BASE]).arg(&site.root));
    validate::sitemap(&site.sitemap_path(), BASE);
    assert!(fs::read(site.sitemap_path()).unwrap() == expected);

    let version = run(project.npx().arg("--version"));
    assert_eq!(
        String::from_utf8(version.stdout).unwrap(),
        format!("sitemapgen {VERSION}\n")
    );
}

#[test]
fn npx_sitemapgen_passes_the_exit_status_through() {
    let Some(project) = project() else { return };
    let usage = project.npx().arg("--no-such-flag").output().unwrap();
    assert_eq!(usage.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&usage.stderr).contains("--no-such-flag"));

    let site = Site::empty();
    let missing = site.root.join("missing");
    let runtime = project
        .npx()
        .args(["-b", BASE])
        .arg(&missing)
        .output()
        .unwrap();
    let direct = crate::harness::Cmd::new()
        .args(["-b", BASE])
        .arg(&missing)
        .run();
    assert_eq!(runtime.status.code(), Some(direct.code()));
    assert_ne!(direct.code(), 0);
    assert_eq!(String::from_utf8_lossy(&runtime.stderr), direct.stderr());
}

/// A SIGTERM sent to the launcher alone reaches the binary, and the launcher dies of it.
#[test]
fn launcher_passes_a_signal_on_and_dies_of_it() {
    let Some(project) = project() else { return };
    let site = Site::empty();
    // The binary waits for its list on the open standard input.
    let mut launcher = Command::new(project.launcher())
        .args(["-b", BASE, "--files-from", "-"])
        .arg(&site.root)
        .stdin(Stdio::piped())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let children = format!("/proc/{0}/task/{0}/children", launcher.id());
    let started = Instant::now();
    while fs::read_to_string(&children)
        .unwrap_or_default()
        .trim()
        .is_empty()
    {
        assert!(
            started.elapsed() < Duration::from_secs(30),
            "no binary started"
        );
        thread::sleep(Duration::from_millis(20));
    }
    // Kept open past the wait, which would close it.
    let mut stdin = launcher.stdin.take().unwrap();
    run(Command::new("kill").args(["-TERM", &launcher.id().to_string()]));
    let status = launcher.wait().unwrap();
    assert_eq!(status.signal(), Some(15), "launcher ended with {status}");
    // No reader is left on the pipe: the binary is gone too.
    let write = stdin.write_all(b"page.html\n");
    assert_eq!(write.map_err(|err| err.kind()), Err(ErrorKind::BrokenPipe));
}

#[test]
fn sitemapgen_binary_variable_names_the_binary_to_run() {
    let Some(project) = project() else { return };
    let ours = env!("CARGO_BIN_EXE_sitemapgen");
    let version = run(project
        .npx()
        .env("SITEMAPGEN_BINARY", ours)
        .arg("--version"));
    assert_eq!(
        String::from_utf8(version.stdout).unwrap(),
        format!("sitemapgen {VERSION}\n")
    );

    let site = Site::empty();
    let absent = site.root.join("no-binary");
    let refused = project
        .npx()
        .env("SITEMAPGEN_BINARY", &absent)
        .arg("--version")
        .output()
        .unwrap();
    assert_eq!(refused.status.code(), Some(1));
    let stderr = String::from_utf8_lossy(&refused.stderr);
    assert!(
        stderr.starts_with(&format!(
            "sitemapgen: error: cannot run {}:",
            absent.display()
        )),
        "{stderr}"
    );
}

/// Without its platform package (optional dependencies left out), the launcher says which
/// platform it looked for and what to do.
#[test]
fn launcher_names_the_platform_whose_package_is_missing() {
    let Some(packed) = packed() else { return };
    let project = install(
        &packed.npm,
        packed.npx.clone(),
        std::slice::from_ref(&packed.main),
    );
    let output = project.npx().arg("--version").output().unwrap();
    assert_eq!(output.status.code(), Some(1));
    assert_eq!(
        String::from_utf8_lossy(&output.stderr),
        "sitemapgen: error: the package sitemapgen-cli-linux-x64, which holds the binary for \
         linux-x64, is not installed\n\
         hint: install it (npm install sitemapgen-cli-linux-x64); optional dependencies may \
         have been left out (--omit=optional, or a lock file made on another platform)\n"
    );
}

/// A preload for node (`node -r`) that makes the process's platform PLATFORM-ARCH.
fn faked_platform(project: &Project, platform: &str, arch: &str) -> PathBuf {
    let preload = project.dir.path().join(format!("{platform}-{arch}.cjs"));
    fs::write(
        &preload,
        format!(
            "Object.defineProperty(process, 'platform', {{ value: '{platform}' }});\n\
             Object.defineProperty(process, 'arch', {{ value: '{arch}' }});\n"
        ),
    )
    .unwrap();
    preload
}

/// Asked for by name where no package has a binary (the platform faked before the launcher
/// runs), the launcher fails with exit 1, naming the platform.
#[test]
fn launcher_fails_where_no_package_has_a_binary() {
    let Some(project) = project() else { return };
    for (platform, arch) in [("win32", "arm64"), ("freebsd", "x64"), ("linux", "ia32")] {
        let done = Command::new(tool("node").unwrap())
            .arg("-r")
            .arg(faked_platform(project, platform, arch))
            .arg(project.launcher())
            .arg("--version")
            .output()
            .unwrap();
        assert_eq!(done.status.code(), Some(1));
        assert_eq!(
            String::from_utf8_lossy(&done.stderr),
            format!(
                "sitemapgen: error: sitemapgen has no binary for {platform}-{arch}\n\
                 hint: the packages with one are for darwin-arm64, darwin-x64, linux-arm64, \
                 linux-x64, win32-x64; elsewhere, build it with `cargo install --locked sitemapgen` and \
                 set SITEMAPGEN_BINARY to its path\n"
            )
        );
    }
}

/// The win32-x64 package, packed from a copy of its folder with a stand-in for the release's
/// sitemapgen.exe (the cargo build, which runs here), holds that exe and its package.json
/// alone. Installed beside the main package as npm installs them on Windows (here past npm's
/// os and cpu check, with --force), the launcher on a faked win32-x64 finds that exe and
/// runs it.
#[test]
fn win32_x64_package_holds_sitemapgen_exe_which_the_launcher_runs_on_win32() {
    let Some(packed) = packed() else { return };
    let work = tempfile::tempdir().unwrap();
    let folder = work.path().join("sitemapgen-cli-win32-x64");
    fs::create_dir(&folder).unwrap();
    let source = Path::new(MANIFEST_DIR).join("npm/sitemapgen-cli-win32-x64/package.json");
    fs::copy(source, folder.join("package.json")).unwrap();
    fs::copy(
        env!("CARGO_BIN_EXE_sitemapgen"),
        folder.join("sitemapgen.exe"),
    )
    .unwrap();
    let out = run(Command::new(&packed.npm)
        .current_dir(work.path())
        .args([
            "pack",
            "./sitemapgen-cli-win32-x64",
            "--json",
            "--loglevel=error",
        ])
        .arg("--cache")
        .arg(work.path().join("cache")));
    let pack: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let files: Vec<&str> = pack[0]["files"]
        .as_array()
        .unwrap()
        .iter()
        .map(|file| file["path"].as_str().unwrap())
        .collect();
    assert_eq!(files, ["package.json", "sitemapgen.exe"]);
    let tarball = work.path().join(pack[0]["filename"].as_str().unwrap());
    assert_eq!(
        tarball.file_name().unwrap().to_str().unwrap(),
        format!("sitemapgen-cli-win32-x64-{VERSION}.tgz")
    );
    let manifest = run(Command::new("tar")
        .arg("-xOzf")
        .arg(&tarball)
        .arg("package/package.json"));
    let manifest: serde_json::Value = serde_json::from_slice(&manifest.stdout).unwrap();
    assert_eq!(manifest["version"], VERSION);
    assert_eq!(manifest["os"], serde_json::json!(["win32"]));
    assert_eq!(manifest["cpu"], serde_json::json!(["x64"]));

    let project = install_with(
        &packed.npm,
        packed.npx.clone(),
        &[packed.main.clone(), tarball],
        &["--force"],
    );
    let win32 = faked_platform(&project, "win32", "x64");
    let found = run(Command::new(tool("node").unwrap())
        .current_dir(project.dir.path())
        .arg("-r")
        .arg(&win32)
        .args(["--input-type=module", "-e"])
        .arg("import { binaryPath } from 'sitemapgen-cli'; console.log(binaryPath());"));
    assert_eq!(
        Path::new(String::from_utf8(found.stdout).unwrap().trim()),
        project
            .dir
            .path()
            .join("node_modules/sitemapgen-cli-win32-x64/sitemapgen.exe")
    );
    let version = run(Command::new(tool("node").unwrap())
        .arg("-r")
        .arg(&win32)
        .arg(project.launcher())
        .arg("--version"));
    assert_eq!(
        String::from_utf8(version.stdout).unwrap(),
        format!("sitemapgen {VERSION}\n")
    );
}

/// Runs the hooks of the installed package's plugin for GENERATOR (`astro`, `docusaurus`)
/// under node, as the generator calls them after its build (TIMES times: Docusaurus once a
/// locale), with the config CONFIG and the plugin's OPTIONS (JSON) on the site, node
/// preloading PRELOAD: its exit status and output.
fn plugin_hooks(
    generator: &str,
    (config, options): (&str, &str),
    site: &Site,
    times: usize,
    preload: Option<&Path>,
) -> std::process::Output {
    let project = project().expect("installed");
    let script = project.dir.path().join(format!("{generator}-build.mjs"));
    let call = match generator {
        "astro" => {
            "const integration = plugin(options);\n\
             integration.hooks['astro:config:done']({ config });\n\
             for (let i = 0; i < times; i++) {\n\
               await integration.hooks['astro:build:done']({ dir: pathToFileURL(dir + '/'), logger });\n\
             }\n"
        }
        _ => {
            "const instance = plugin({}, options);\n\
             for (let i = 0; i < times; i++) {\n\
               await instance.postBuild({ siteConfig: config, outDir: dir });\n\
             }\n"
        }
    };
    fs::write(
        &script,
        format!(
            "import {{ pathToFileURL }} from 'node:url';\n\
             import plugin from 'sitemapgen-cli/{generator}';\n\
             const [config, options, dir, times] = process.argv.slice(2).map((a, i) => i < 2 ? JSON.parse(a) : a);\n\
             const logger = {{ info: (l) => console.log('info ' + l), warn: (l) => console.log('warn ' + l) }};\n\
             {call}"
        ),
    )
    .unwrap();
    let mut node = Command::new(tool("node").unwrap());
    if let Some(preload) = preload {
        node.arg("-r").arg(preload);
    }
    // Run beside the site, as a project is: the plugins keep their state in its .cache/ (a
    // config without a root is taken from there), one for each site.
    node.current_dir(site.outside())
        .arg(&script)
        .args([config, options])
        .arg(&site.root)
        .arg(times.to_string())
        .output()
        .unwrap()
}

/// Where no package has a binary (the platform faked), the Astro and Docusaurus hooks let
/// the build finish after one warning, however many times they run, and write nothing;
/// with `requireBinary` they fail it, saying why.
#[test]
fn astro_and_docusaurus_hooks_finish_without_a_binary_after_one_warning() {
    let Some(project) = project() else { return };
    let win32 = faked_platform(project, "win32", "arm64");
    let warning = "sitemapgen has no binary for win32-arm64: no sitemap written; CI on Linux, \
                   macOS or Windows writes it";
    for (generator, config, shown) in [
        ("astro", r#"{"site": "https://example.com"}"#, "warn "),
        (
            "docusaurus",
            r#"{"url": "https://example.com"}"#,
            "[sitemapgen] warning: ",
        ),
    ] {
        let site = Site::with_pages(&["index.html"]);
        let done = plugin_hooks(generator, (config, "{}"), &site, 2, Some(&win32));
        let log = format!(
            "{}{}",
            String::from_utf8_lossy(&done.stdout),
            String::from_utf8_lossy(&done.stderr)
        );
        assert!(done.status.success(), "{generator}: {log}");
        assert_eq!(log, format!("{shown}{warning}\n"), "{generator}");
        assert_eq!(fs::read_dir(&site.root).unwrap().count(), 1, "{generator}");

        let options = r#"{"requireBinary": true}"#;
        let done = plugin_hooks(generator, (config, options), &site, 1, Some(&win32));
        assert!(!done.status.success());
        let stderr = String::from_utf8_lossy(&done.stderr);
        assert!(
            stderr.contains("sitemapgen: error: sitemapgen has no binary for win32-arm64\nhint: "),
            "{generator}: {stderr}"
        );
        assert_eq!(fs::read_dir(&site.root).unwrap().count(), 1, "{generator}");
    }
}

#[test]
fn astro_and_docusaurus_hooks_write_the_cli_sitemap_from_the_site_config() {
    if project().is_none() {
        return;
    }
    let live = Site::empty();
    let server = crate::serve::Server::files(live.root.clone());
    let origin = server.url("");
    let base = format!("{origin}/docs/");
    let pages = [
        "index.html",
        "about/index.html",
        "blog/post/index.html",
        "faq.html",
    ];
    for (generator, config, flags, expected) in [
        (
            "astro",
            format!(r#"{{"site": "{origin}", "base": "/docs", "trailingSlash": "ignore"}}"#),
            vec![],
            ["", "about/", "blog/post/", "faq.html"],
        ),
        (
            "astro",
            format!(
                r#"{{"site": "{origin}", "base": "/docs", "trailingSlash": "never",
                    "build": {{"format": "file"}}}}"#
            ),
            vec!["--no-trailing-slash", "--clean-urls"],
            ["", "about", "blog/post", "faq"],
        ),
        (
            "docusaurus",
            format!(r#"{{"url": "{origin}", "baseUrl": "/docs/"}}"#),
            vec!["--no-trailing-slash"],
            ["", "about", "blog/post", "faq.html"],
        ),
        (
            "docusaurus",
            format!(r#"{{"url": "{origin}", "baseUrl": "/docs/", "trailingSlash": true}}"#),
            vec![],
            ["", "about/", "blog/post/", "faq.html"],
        ),
    ] {
        let site = Site::with_pages(&pages);
        let done = plugin_hooks(generator, (&config, "{}"), &site, 1, None);
        let out = String::from_utf8_lossy(&done.stdout);
        assert!(
            done.status.success(),
            "{generator} {config}: {out}{}",
            String::from_utf8_lossy(&done.stderr)
        );
        // Astro logs through its logger, Docusaurus on the console.
        assert!(out.contains(" wrote 4 URLs to "), "{out}");
        let urls = validate::sitemap(&site.sitemap_path(), &base);
        let mut listed = crate::validate::locs(&urls);
        listed.sort_unstable();
        let mut wanted: Vec<String> = expected.iter().map(|p| format!("{base}{p}")).collect();
        wanted.sort_unstable();
        assert_eq!(listed, wanted, "{generator} {config}");
        let written = fs::read(site.sitemap_path()).unwrap();
        assert!(
            written == crate::plugins::cli_sitemap(&site, &base, &flags),
            "{generator} {config}: the CLI writes another"
        );
    }

    // No site URL: the build fails, naming the key to set (Docusaurus refuses it itself).
    let site = Site::with_pages(&pages);
    let done = plugin_hooks("astro", ("{}", "{}"), &site, 1, None);
    assert!(!done.status.success());
    let stderr = String::from_utf8_lossy(&done.stderr);
    assert!(
        stderr.contains("sitemapgen: error: site is not set"),
        "{stderr}"
    );
    assert!(!site.sitemap_path().exists());
}

/// Issue 44: Astro `base: "//evil.com/x"` and Docusaurus `baseUrl: "https://evil.com/"`
/// moved the base URL and the state URL to another host (the plugins resolved them as
/// URLs); a base is a path, joined to the site URL, and one that is not is refused.
#[test]
fn a_base_that_is_no_path_is_refused_and_never_moves_the_host() {
    if project().is_none() {
        return;
    }
    for (generator, config, key) in [
        (
            "astro",
            r#"{"site": "https://example.com", "base": "//evil.com/x"}"#,
            "base in astro.config.mjs",
        ),
        (
            "astro",
            r#"{"site": "https://example.com", "base": "https://evil.com/"}"#,
            "base in astro.config.mjs",
        ),
        (
            "docusaurus",
            r#"{"url": "https://example.com", "baseUrl": "https://evil.com/"}"#,
            "baseUrl in docusaurus.config.js",
        ),
        (
            "docusaurus",
            r#"{"url": "https://example.com", "baseUrl": "//evil.com/"}"#,
            "baseUrl in docusaurus.config.js",
        ),
    ] {
        let site = Site::with_pages(&["index.html"]);
        let done = plugin_hooks(generator, (config, "{}"), &site, 1, None);
        let stderr = String::from_utf8_lossy(&done.stderr);
        assert!(!done.status.success(), "{generator} {config}");
        assert!(
            stderr.contains(&format!("sitemapgen: error: {key} \""))
                && stderr.contains("is not a path on the site"),
            "{stderr}"
        );
        assert!(!site.sitemap_path().exists());
    }
}

/// Issue 44: spawnSync's 1 MiB maxBuffer killed a binary saying more (-v on a site with
/// many files) and failed the build with ENOBUFS: its lines reach the log as it writes them.
#[test]
fn a_binary_that_says_megabytes_is_streamed_to_the_log() {
    if project().is_none() {
        return;
    }
    let site = Site::with_pages(&["index.html"]);
    let fake = site.outside().join("talkative");
    fs::write(
        &fake,
        "#!/bin/sh\n\
         yes 'sitemapgen: skip assets/image-0123456789.png: matches no --include glob' \\\n\
           | head -n 60000 >&2\n\
         echo 'sitemapgen: wrote 1 URL to site/sitemap.xml' >&2\n",
    )
    .unwrap();
    fs::set_permissions(&fake, fs::Permissions::from_mode(0o755)).unwrap();
    // The plugin runs the binary SITEMAPGEN_BINARY names.
    let preload = site.outside().join("binary.cjs");
    fs::write(
        &preload,
        format!(
            "process.env.SITEMAPGEN_BINARY = {:?};\n",
            fake.to_str().unwrap()
        ),
    )
    .unwrap();
    for (generator, config) in [
        ("astro", r#"{"site": "https://example.com"}"#),
        ("docusaurus", r#"{"url": "https://example.com"}"#),
    ] {
        let done = plugin_hooks(generator, (config, "{}"), &site, 1, Some(&preload));
        let out = String::from_utf8_lossy(&done.stdout);
        assert!(
            done.status.success(),
            "{generator}: {}",
            String::from_utf8_lossy(&done.stderr)
        );
        assert!(out.len() > 3 << 20, "{generator}: {} bytes", out.len());
        assert_eq!(
            out.matches("skip assets/image-0123456789.png").count(),
            60_000
        );
        assert!(
            out.contains("wrote 1 URL to site/sitemap.xml"),
            "{generator}"
        );
    }
}
