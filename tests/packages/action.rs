//! The GitHub Action (action.yml): its shell steps run here as a runner runs them (`bash
//! --noprofile --norc -eo pipefail`), with the environment its `env:` gives them from a
//! workflow's inputs, against the cargo-built binary and a release made of it. actionlint
//! checks the call in .github/workflows/action.yml (tests/packages/workflow.rs).

use std::fs;
use std::path::Path;
use std::process::{Command, Output};

use crate::built::{MANIFEST_DIR, VERSION, tool};
use crate::harness::Site;
use crate::serve::Server;
use crate::validate;

fn action_yml() -> String {
    fs::read_to_string(Path::new(MANIFEST_DIR).join("action.yml")).unwrap()
}

/// The `run: |` script of ACTION's step ID.
fn script(action: &str, id: &str) -> String {
    let lines: Vec<&str> = action
        .lines()
        .skip_while(|line| line.trim().trim_start_matches("- ") != format!("id: {id}"))
        .collect();
    let run = lines
        .iter()
        .position(|line| line.trim() == "run: |")
        .unwrap_or_else(|| panic!("no step {id} with a script"));
    let indent = lines[run].len() - lines[run].trim_start().len();
    let body: Vec<&str> = lines[run + 1..]
        .iter()
        .take_while(|l| l.trim().is_empty() || l.len() - l.trim_start().len() > indent)
        .copied()
        .collect();
    let strip = body[0].len() - body[0].trim_start().len();
    let script: Vec<&str> = body.iter().map(|l| l.get(strip..).unwrap_or("")).collect();
    script.join("\n") + "\n"
}

/// The install step's PINNED, the sums the action holds: a block's lines, or "".
fn pinned(action: &str) -> String {
    let mut lines = action
        .lines()
        .skip_while(|line| !line.trim().starts_with("PINNED:"));
    let key = lines.next().expect("PINNED in the install step");
    if key.trim() == "PINNED: \"\"" {
        return String::new();
    }
    assert_eq!(key.trim(), "PINNED: |");
    let indent = key.len() - key.trim_start().len();
    lines
        .take_while(|line| line.len() - line.trim_start().len() > indent)
        .map(|line| format!("{}\n", line.trim()))
        .collect()
}

/// Runs SCRIPT as a runner does, with ENV and the runner's own variables.
fn step(script: &str, site: &Site, env: &[(&str, &str)]) -> Output {
    let runner = site.outside().join("runner");
    fs::create_dir_all(&runner).unwrap();
    let file = runner.join("step.sh");
    fs::write(&file, script).unwrap();
    Command::new("bash")
        .args(["--noprofile", "--norc", "-eo", "pipefail"])
        .arg(&file)
        .env("GITHUB_OUTPUT", runner.join("output"))
        .env("GITHUB_STEP_SUMMARY", runner.join("step-summary"))
        .env("RUNNER_TEMP", &runner)
        .env("HOME", &runner)
        .envs(env.iter().copied())
        .current_dir(site.outside())
        .output()
        .unwrap()
}

fn outputs(site: &Site) -> String {
    let path = site.outside().join("runner/output");
    let text = fs::read_to_string(&path).unwrap_or_default();
    let _ = fs::remove_file(path);
    text
}

#[test]
fn action_target_is_the_release_archive_for_the_runner() {
    let site = Site::empty();
    let target = &script(&action_yml(), "target");
    // Git Bash's HOME on Windows is a path only its own programs read: the cache is under
    // USERPROFILE there.
    let profile = site.outside().join("profile");
    for (os, arch, expected, archive) in [
        ("Linux", "X64", "x86_64-unknown-linux-musl", "tgz"),
        ("Linux", "ARM64", "aarch64-unknown-linux-musl", "tgz"),
        ("macOS", "X64", "x86_64-apple-darwin", "tgz"),
        ("macOS", "ARM64", "aarch64-apple-darwin", "tgz"),
        ("Windows", "X64", "x86_64-pc-windows-msvc", "zip"),
    ] {
        let env = [
            ("RUNNER_OS", os),
            ("RUNNER_ARCH", arch),
            ("VERSION", VERSION),
            ("USERPROFILE", profile.to_str().unwrap()),
        ];
        let run = step(target, &site, &env);
        assert!(run.status.success(), "{os} {arch}");
        let (exe, home) = if os == "Windows" {
            ("sitemapgen.exe", profile.clone())
        } else {
            ("sitemapgen", site.outside().join("runner"))
        };
        assert_eq!(
            outputs(&site),
            format!(
                "target={expected}\narchive=sitemapgen-{expected}-v{VERSION}.{archive}\n\
                 exe={exe}\ndir={}/.cache/sitemapgen/{VERSION}-{expected}\n",
                home.display()
            )
        );
    }
    for (os, arch) in [("Windows", "ARM64"), ("FreeBSD", "X64")] {
        let run = step(target, &site, &[("RUNNER_OS", os), ("RUNNER_ARCH", arch)]);
        assert_eq!(run.status.code(), Some(1));
        assert!(
            String::from_utf8_lossy(&run.stdout).contains(&format!(
                "::error::sitemapgen has no release binary for {os} {arch}: build it (cargo \
                 install --locked sitemapgen) and give its path as the binary input"
            )),
            "{os} {arch}"
        );
    }
}

/// Runs the steps IDS in order as a runner does, each with ENV, up to the first that
/// fails: the last one's output.
fn steps(ids: &[&str], site: &Site, env: &[(&str, &str)]) -> Output {
    let action = action_yml();
    let mut done = None;
    for id in ids {
        let output = step(&script(&action, id), site, env);
        let failed = !output.status.success();
        done = Some(output);
        if failed {
            break;
        }
    }
    done.unwrap()
}

/// Every input but the lists `args`, `include` and `exclude` is one line: a line break would write a step output of its own
/// (`changes: "ch.txt\nlisted=999999"`) or a second cache path (`version`). The first step
/// checks each, by one function, before any other step runs; `version` is a release's.
#[test]
fn action_refuses_an_input_with_a_line_break_before_any_step_runs() {
    if tool("jq").is_none() {
        return;
    }
    let action = action_yml();
    // Each input is checked: a new one gets its line in the check, or this fails.
    let check = script(&action, "inputs");
    let names: Vec<&str> = action
        .lines()
        .skip_while(|line| *line != "inputs:")
        .skip(1)
        .take_while(|line| line.is_empty() || line.starts_with(' '))
        .filter_map(|line| line.strip_prefix("  ")?.strip_suffix(':'))
        .filter(|name| !name.starts_with(' '))
        .collect();
    assert!(names.len() >= 8, "{names:?}");
    // The lists (a flag or a glob a line) only become flags.
    let lists = ["args", "include", "exclude"];
    for name in names.iter().filter(|name| !lists.contains(name)) {
        let var = name.to_uppercase().replace('-', "_");
        assert!(
            check.contains(&format!("line {name} \"${var}\"\n")),
            "the input {name} is not checked"
        );
        assert!(
            action.contains(&format!("{var}: ${{{{ inputs.{name} }}}}")),
            "the input {name} is not in the check's env"
        );
    }

    let site = Site::with_pages(&["index.html"]);
    let good = [
        ("BINARY", env!("CARGO_BIN_EXE_sitemapgen")),
        ("DIR", site.root.to_str().unwrap()),
        ("BASE_URL", "https://example.com/"),
        ("STATE", "false"),
        ("PREVIOUS_SITEMAP", ""),
        ("CHANGES", ""),
        ("VERSION", VERSION),
        ("ARGS", ""),
    ];
    let done = steps(&["inputs", "options", "run"], &site, &good);
    assert!(
        done.status.success(),
        "{}",
        String::from_utf8_lossy(&done.stderr)
    );
    assert!(outputs(&site).starts_with("listed=1\n"));
    let summaries = || {
        fs::read_dir(site.outside().join("runner"))
            .unwrap()
            .filter(|entry| {
                let name = entry.as_ref().unwrap().file_name();
                name.to_string_lossy().starts_with("sitemapgen.")
            })
            .count()
    };
    let made = summaries();

    let forged = "x\nlisted=999999";
    let stamp = "x\r::warning::forged";
    for (var, name) in [
        ("BINARY", "binary"),
        ("DIR", "dir"),
        ("BASE_URL", "base-url"),
        ("STATE", "state"),
        ("PREVIOUS_SITEMAP", "previous-sitemap"),
        ("CHANGES", "changes"),
        ("VERSION", "version"),
    ] {
        for bad in [forged, stamp, "x\ty"] {
            let env: Vec<(&str, &str)> = good
                .iter()
                .map(|&(key, value)| (key, if key == var { bad } else { value }))
                .collect();
            let done = steps(&["inputs", "options", "run"], &site, &env);
            assert_eq!(done.status.code(), Some(2), "{name} {bad:?}");
            let stdout = String::from_utf8_lossy(&done.stdout);
            assert_eq!(
                stdout,
                format!(
                    "::error::the {name} input holds a line break or another control \
                     character: it must be one line\n"
                )
            );
            assert_eq!(outputs(&site), "", "{name} {bad:?}");
            assert_eq!(summaries(), made, "no run: no summary");
        }
    }

    for (version, ok) in [
        ("1.2.3", true),
        ("0.2.0-rc.1", true),
        ("../../../bin", false),
        ("0.1.0/../..", false),
        ("latest", false),
        ("", false),
    ] {
        let done = step(&check, &site, &[("VERSION", version)]);
        assert_eq!(done.status.success(), ok, "{version}");
        if !ok {
            assert_eq!(
                String::from_utf8_lossy(&done.stdout),
                format!(
                    "::error::the version input \"{version}\" is not a release's version \
                     (such as 0.1.0)\n"
                )
            );
        }
    }
}

/// A release as the release workflow lays it out, of the cargo-built binary, under
/// RELEASES/vVERSION: the archive of TARGET and SHA256SUMS. The archive's name.
fn release(releases: &Path, target: &str, binary: &Path) -> String {
    let name = format!("sitemapgen-{target}-v{VERSION}");
    let tag = releases.join(format!("v{VERSION}"));
    fs::create_dir_all(tag.join(&name)).unwrap();
    let windows = target.contains("-windows-");
    let exe = if windows {
        "sitemapgen.exe"
    } else {
        "sitemapgen"
    };
    fs::copy(binary, tag.join(&name).join(exe)).unwrap();
    let archive = if windows {
        // As the release workflow's windows job zips it.
        let zip = format!("{name}.zip");
        crate::built::run(
            Command::new("python3")
                .current_dir(&tag)
                .args(["-m", "zipfile", "-c", &zip, &name]),
        );
        zip
    } else {
        let tgz = format!("{name}.tgz");
        crate::built::run(
            Command::new("tar")
                .current_dir(&tag)
                .args(["-czf", &tgz, &name]),
        );
        tgz
    };
    fs::remove_dir_all(tag.join(&name)).unwrap();
    let sums = crate::built::run(Command::new("sha256sum").current_dir(&tag).arg(&archive));
    fs::write(tag.join("SHA256SUMS"), &sums.stdout).unwrap();
    archive
}

/// On Windows the action installs the .zip's sitemapgen.exe, unpacked by Windows' own
/// tar.exe (here a stand-in that unpacks it as bsdtar does, with Python's zipfile), checked
/// against the sum the action pins, as the .tgz elsewhere.
#[test]
fn action_installs_the_windows_zip_with_windows_tar() {
    if tool("sha256sum").is_none() || tool("python3").is_none() {
        return;
    }
    let site = Site::empty();
    let target = "x86_64-pc-windows-msvc";
    let releases = site.outside().join("releases");
    let zip = release(
        &releases,
        target,
        Path::new(env!("CARGO_BIN_EXE_sitemapgen")),
    );
    assert_eq!(zip, format!("sitemapgen-{target}-v{VERSION}.zip"));
    let tag = releases.join(format!("v{VERSION}"));
    let action = site.outside().join("action.yml");
    fs::write(&action, action_yml()).unwrap();
    crate::built::run(
        Command::new(Path::new(MANIFEST_DIR).join(".github/pin-action.sh"))
            .arg(VERSION)
            .arg(tag.join("SHA256SUMS"))
            .arg(&action),
    );
    let action = fs::read_to_string(&action).unwrap();
    assert!(pinned(&action).ends_with(&format!("  {zip}\n")));
    let windows = site.outside().join("Windows");
    fs::create_dir_all(windows.join("System32")).unwrap();
    let tar = windows.join("System32/tar.exe");
    fs::write(
        &tar,
        "#!/bin/sh\n\
         [ \"$1\" = -xf ] && [ \"$3\" = -C ] || { echo \"tar.exe: $*\" >&2; exit 2; }\n\
         python3 -m zipfile -e \"$2\" \"$4\"\n\
         # Windows runs an .exe without an exec bit; here it needs one.\n\
         exec chmod -R u+x \"$4\"\n",
    )
    .unwrap();
    fs::set_permissions(&tar, std::os::unix::fs::PermissionsExt::from_mode(0o755)).unwrap();
    let cache = site.outside().join("cache");
    let url = format!("file://{}", releases.display());
    let done = step(
        &script(&action, "install"),
        &site,
        &[
            ("VERSION", VERSION),
            ("ARCHIVE", &zip),
            ("EXE", "sitemapgen.exe"),
            ("DIR", cache.to_str().unwrap()),
            ("RELEASES", &url),
            ("PINNED", &pinned(&action)),
            ("SYSTEMROOT", windows.to_str().unwrap()),
        ],
    );
    assert!(
        done.status.success(),
        "{}{}",
        String::from_utf8_lossy(&done.stdout),
        String::from_utf8_lossy(&done.stderr)
    );
    let binary = outputs(&site);
    let binary = binary.strip_prefix("binary=").unwrap().trim_end();
    assert!(binary.ends_with(&format!("/sitemapgen-{target}-v{VERSION}/sitemapgen.exe")));
    let version = crate::built::run(Command::new(binary).arg("--version"));
    assert_eq!(version.stdout, format!("sitemapgen {VERSION}\n").as_bytes());
    assert!(cache.join(&zip).is_file());
}

/// The release's archive, the one in the cache, and the release's own SHA256SUMS replaced
/// alike are refused: the action pins the sums of its version's archives (written into it
/// by the release workflow's .github/pin-action.sh), downloaded or cached. Another version
/// is checked against its release's SHA256SUMS.
#[test]
fn action_runs_only_the_archive_whose_sum_it_pins_downloaded_or_cached() {
    if tool("sha256sum").is_none() {
        return;
    }
    let site = Site::empty();
    let target = "x86_64-unknown-linux-musl";
    let releases = site.outside().join("releases");
    let tgz = release(
        &releases,
        target,
        Path::new(env!("CARGO_BIN_EXE_sitemapgen")),
    );
    let tag = releases.join(format!("v{VERSION}"));
    let genuine = fs::read(tag.join(&tgz)).unwrap();
    let genuine_sums = fs::read(tag.join("SHA256SUMS")).unwrap();
    // The action as the release workflow tags it.
    let action = site.outside().join("action.yml");
    fs::write(&action, action_yml()).unwrap();
    crate::built::run(
        Command::new(Path::new(MANIFEST_DIR).join(".github/pin-action.sh"))
            .arg(VERSION)
            .arg(tag.join("SHA256SUMS"))
            .arg(&action),
    );
    let action = fs::read_to_string(&action).unwrap();
    assert_eq!(
        pinned(&action),
        String::from_utf8(genuine_sums.clone()).unwrap()
    );
    let install = script(&action, "install");
    let cache = site.outside().join("cache");
    let cached = cache.join(&tgz);
    let url = format!("file://{}", releases.display());
    let run = |pinned: &str, releases: &str| {
        let env = [
            ("VERSION", VERSION),
            ("ARCHIVE", tgz.as_str()),
            ("EXE", "sitemapgen"),
            ("DIR", cache.to_str().unwrap()),
            ("RELEASES", releases),
            ("PINNED", pinned),
        ];
        let done = step(&install, &site, &env);
        let binary = outputs(&site)
            .strip_prefix("binary=")
            .map(|path| path.trim_end().to_owned());
        (done, binary)
    };
    let refused = |done: &Output, binary: Option<String>| {
        assert_eq!(done.status.code(), Some(1));
        assert!(
            String::from_utf8_lossy(&done.stdout).contains(&format!(
                "::error::{tgz} does not have the SHA-256 it should"
            )),
            "{}",
            String::from_utf8_lossy(&done.stdout)
        );
        assert_eq!(binary, None);
        assert!(!cached.exists(), "the cache keeps the refused archive");
    };
    let pinned = pinned(&action);

    // The release's archive and its SHA256SUMS replaced alike: refused, nothing cached.
    let other = release(&releases, target, Path::new("/bin/true"));
    assert_eq!(other, tgz);
    refused(&run(&pinned, &url).0, None);
    fs::write(tag.join(&tgz), &genuine).unwrap();
    fs::write(tag.join("SHA256SUMS"), &genuine_sums).unwrap();

    // The genuine archive: installed, and cached.
    let (done, binary) = run(&pinned, &url);
    assert!(
        done.status.success(),
        "{}",
        String::from_utf8_lossy(&done.stderr)
    );
    let version = crate::built::run(Command::new(binary.unwrap()).arg("--version"));
    assert_eq!(version.stdout, format!("sitemapgen {VERSION}\n").as_bytes());
    assert!(fs::read(&cached).unwrap() == genuine);

    // A cache hit needs no release, and is checked all the same.
    let (done, binary) = run(&pinned, "file:///nowhere");
    assert!(
        done.status.success(),
        "{}",
        String::from_utf8_lossy(&done.stderr)
    );
    assert!(binary.is_some());
    let mut tampered = genuine.clone();
    *tampered.last_mut().unwrap() ^= 1;
    fs::write(&cached, &tampered).unwrap();
    let (done, binary) = run(&pinned, "file:///nowhere");
    refused(&done, binary);

    // A version the action does not pin (this checkout's action, before its release):
    // checked against its release's SHA256SUMS, which is fetched on a cache hit too.
    let (done, binary) = run("", &url);
    assert!(
        done.status.success(),
        "{}",
        String::from_utf8_lossy(&done.stderr)
    );
    assert!(binary.is_some());
    assert!(String::from_utf8_lossy(&done.stdout).contains(&format!(
        "::notice::the action pins the archives of its own version only: {tgz} is checked \
             against its release's SHA256SUMS"
    )));
    fs::write(&cached, &tampered).unwrap();
    let (done, binary) = run("", &url);
    refused(&done, binary);
}

/// Two uses of the action in one job, the second on a folder whose every page is noindex
/// (no sitemap, no summary): the second reports its own run, not the first's counts.
#[test]
fn a_second_use_in_the_same_job_reports_its_own_run() {
    if tool("jq").is_none() {
        return;
    }
    let site = Site::with_pages(&["index.html", "a.html"]);
    let staging = site.outside().join("staging");
    fs::create_dir(&staging).unwrap();
    fs::write(
        staging.join("index.html"),
        "<title>s</title><meta name=robots content=noindex><p>s",
    )
    .unwrap();
    let action = action_yml();
    let (options_step, run_step) = (&script(&action, "options"), &script(&action, "run"));
    let use_on = |dir: &Path| {
        assert!(step(options_step, &site, &DEFAULT_OPTIONS).status.success());
        let dir = dir.display().to_string();
        let env = [
            ("BINARY", env!("CARGO_BIN_EXE_sitemapgen")),
            ("DIR", dir.as_str()),
            ("BASE_URL", "https://example.com"),
            ("STATE", "false"),
            ("PREVIOUS_SITEMAP", ""),
            ("CHANGES", ""),
            ("ARGS", ""),
        ];
        let done = step(run_step, &site, &env);
        assert!(
            done.status.success(),
            "{}",
            String::from_utf8_lossy(&done.stderr)
        );
        outputs(&site)
    };
    let first = use_on(&site.root);
    assert!(first.starts_with("listed=2\n"), "{first}");
    let second = use_on(&staging);
    assert!(second.starts_with("listed=0\n"), "{second}");
    assert!(!second.contains("summary-json="), "{second}");
}

#[test]
fn action_runs_with_the_state_in_the_site_and_gives_the_counts() {
    if tool("jq").is_none() {
        return;
    }
    let site = Site::with_pages(&["index.html", "a.html", "b/index.html"]);
    let live = site.outside().join("live");
    fs::create_dir(&live).unwrap();
    let server = Server::files(live.clone());
    // As a workflow writes it, without the final slash.
    let base = server.url("");
    let changes = site.outside().join("changes.txt");
    let action = action_yml();
    let (options_step, run_step) = (&script(&action, "options"), &script(&action, "run"));
    let env = |state: &'static str| {
        vec![
            ("BINARY", env!("CARGO_BIN_EXE_sitemapgen").to_string()),
            ("DIR", site.root.display().to_string()),
            ("BASE_URL", base.clone()),
            ("STATE", state.to_string()),
            ("PREVIOUS_SITEMAP", String::new()),
            ("CHANGES", changes.display().to_string()),
            ("ARGS", "--max-urls\n1000\n".to_string()),
        ]
    };
    let run = |env: Vec<(&str, String)>| {
        let env: Vec<(&str, &str)> = env.iter().map(|(k, v)| (*k, v.as_str())).collect();
        assert!(step(options_step, &site, &DEFAULT_OPTIONS).status.success());
        step(run_step, &site, &env)
    };

    let done = run(env("true"));
    assert!(
        done.status.success(),
        "{}",
        String::from_utf8_lossy(&done.stderr)
    );
    // Seeded by default from the site's own sitemap, none published yet.
    let stderr = String::from_utf8_lossy(&done.stderr);
    assert!(
        stderr.contains(&format!(
            "no sitemap at {base}/sitemap.xml (404): a first run"
        )),
        "{stderr}"
    );
    let out = outputs(&site);
    let summary = Path::new(
        out.lines()
            .find_map(|line| line.strip_prefix("summary-json="))
            .expect("the summary's path"),
    )
    .to_path_buf();
    assert!(summary.starts_with(site.outside().join("runner")), "{out}");
    assert!(summary.is_file());
    assert_eq!(
        out,
        format!(
            "listed=3\nadded=3\nredated=0\nremoved=0\nfiles-written=3\nchanges={}\n\
             summary-json={}\nsitemap-path={}\nexcluded-count=0\n",
            changes.display(),
            summary.display(),
            site.sitemap_path().display()
        )
    );
    validate::sitemap(&site.sitemap_path(), &format!("{base}/"));
    assert!(site.root.join("sitemap.state.gz").is_file());
    let step_summary = fs::read_to_string(site.outside().join("runner/step-summary")).unwrap();
    assert!(
        step_summary.starts_with("### sitemapgen\n\nwrote 3 URLs to "),
        "{step_summary}"
    );

    // No state: the counts since the state are empty; a usage error fails the step with
    // sitemapgen's status.
    let mut stateless = env("false");
    stateless.retain(|(key, _)| *key != "CHANGES");
    let done = run(stateless.clone());
    assert!(
        done.status.success(),
        "{}",
        String::from_utf8_lossy(&done.stderr)
    );
    let out = outputs(&site);
    assert!(
        out.starts_with("listed=3\nadded=\nredated=\nremoved=\n"),
        "{out}"
    );
    stateless.push(("ARGS", "--no-such-flag".to_string()));
    let done = run(stateless);
    assert_eq!(done.status.code(), Some(2));
    let done = run(env("yes"));
    assert_eq!(done.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&done.stdout).contains("the state input is \"yes\""));
}

#[test]
fn action_installs_the_cargo_version_by_default() {
    let action = fs::read_to_string(Path::new(MANIFEST_DIR).join("action.yml")).unwrap();
    let version = action
        .lines()
        .skip_while(|line| *line != "  version:")
        .find_map(|line| line.trim().strip_prefix("default: "))
        .expect("the version input's default");
    assert_eq!(version, format!("\"{VERSION}\""));
}

/// The options step's environment for the inputs' defaults, as action.yml gives them.
const DEFAULT_OPTIONS: [(&str, &str); 7] = [
    ("INCLUDE", ""),
    ("INCLUDE_PDF", "false"),
    ("EXTENSIONS", ""),
    ("EXCLUDE", ""),
    ("CLEAN_URLS", "false"),
    ("FORMAT", "xml"),
    ("DATE_ONLY", "false"),
];

#[test]
fn action_takes_the_inputs_cicirello_users_know_and_names_its_outputs_as_cicirello() {
    if tool("jq").is_none() {
        return;
    }
    let site = Site::with_pages(&[
        "index.html",
        "about.html",
        "draft.html",
        "paper.pdf",
        "x.docx",
    ]);
    site.write("notes/a.html", "<title>a</title><p>a");
    site.write(
        "hidden.html",
        "<title>h</title><meta name=robots content=noindex><p>h",
    );
    let action = action_yml();
    let (options_step, run_step) = (&script(&action, "options"), &script(&action, "run"));
    let binary = env!("CARGO_BIN_EXE_sitemapgen");
    let dir = site.root.display().to_string();
    let run = |options: &[(&str, &str)]| {
        let mut env = DEFAULT_OPTIONS.to_vec();
        env.extend_from_slice(options);
        let done = step(options_step, &site, &env);
        if !done.status.success() {
            return done;
        }
        let env = [
            ("BINARY", binary),
            ("DIR", dir.as_str()),
            ("BASE_URL", "https://example.com"),
            ("STATE", "false"),
            ("PREVIOUS_SITEMAP", ""),
            ("CHANGES", ""),
            ("ARGS", ""),
        ];
        step(run_step, &site, &env)
    };
    let done = run(&[
        ("INCLUDE_PDF", "true"),
        ("EXTENSIONS", "docx"),
        ("EXCLUDE", "draft.html\n/notes/\n"),
        ("CLEAN_URLS", "true"),
        ("FORMAT", "txt"),
    ]);
    assert!(
        done.status.success(),
        "{}",
        String::from_utf8_lossy(&done.stderr)
    );
    let out = outputs(&site);
    let txt = site.root.join("sitemap.txt");
    // draft.html and hidden.html (noindex); the folder notes/ is excluded whole, unread, as
    // the summary counts it.
    assert!(
        out.contains(&format!(
            "sitemap-path={}\nexcluded-count=2\n",
            txt.display()
        )),
        "{out}"
    );
    assert!(out.starts_with("listed=4\n"), "{out}");
    let text = fs::read_to_string(&txt).unwrap();
    let mut lines: Vec<&str> = text.lines().collect();
    lines.sort_unstable();
    assert_eq!(
        lines,
        [
            "https://example.com/",
            "https://example.com/about",
            "https://example.com/paper.pdf",
            "https://example.com/x.docx"
        ]
    );
    // A date alone in each lastmod.
    let done = run(&[("DATE_ONLY", "true")]);
    assert!(
        done.status.success(),
        "{}",
        String::from_utf8_lossy(&done.stderr)
    );
    let urls = validate::sitemap(&site.sitemap_path(), "https://example.com/");
    assert!(
        urls.iter()
            .all(|url| url.lastmod.as_ref().unwrap().len() == 10)
    );
    // A boolean input that is neither fails the step, naming it.
    let done = run(&[("DATE_ONLY", "yes")]);
    assert_eq!(done.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&done.stdout).contains("the date-only input is \"yes\""));
}
