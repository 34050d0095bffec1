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

/// The `run: |` scripts of action.yml's steps, in order: the target, the install, the run.
fn scripts() -> Vec<String> {
    let action = fs::read_to_string(Path::new(MANIFEST_DIR).join("action.yml")).unwrap();
    let lines: Vec<&str> = action.lines().collect();
    let mut scripts = Vec::new();
    for (i, line) in lines.iter().enumerate() {
        if line.trim() != "run: |" {
            continue;
        }
        let indent = line.len() - line.trim_start().len();
        let body: Vec<&str> = lines[i + 1..]
            .iter()
            .take_while(|l| l.trim().is_empty() || l.len() - l.trim_start().len() > indent)
            .copied()
            .collect();
        let strip = body[0].len() - body[0].trim_start().len();
        let script: Vec<&str> = body.iter().map(|l| l.get(strip..).unwrap_or("")).collect();
        scripts.push(script.join("\n") + "\n");
    }
    assert_eq!(scripts.len(), 3, "the target, install and run steps");
    scripts
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
    let target = &scripts()[0];
    for (os, arch, expected) in [
        ("Linux", "X64", "x86_64-unknown-linux-musl"),
        ("Linux", "ARM64", "aarch64-unknown-linux-musl"),
        ("macOS", "X64", "x86_64-apple-darwin"),
        ("macOS", "ARM64", "aarch64-apple-darwin"),
    ] {
        let env = [
            ("RUNNER_OS", os),
            ("RUNNER_ARCH", arch),
            ("VERSION", VERSION),
        ];
        let run = step(target, &site, &env);
        assert!(run.status.success(), "{os} {arch}");
        let home = site.outside().join("runner");
        assert_eq!(
            outputs(&site),
            format!(
                "target={expected}\ndir={}/.cache/sitemapgen/{VERSION}-{expected}\n",
                home.display()
            )
        );
    }
    let run = step(
        target,
        &site,
        &[("RUNNER_OS", "Windows"), ("RUNNER_ARCH", "X64")],
    );
    assert_eq!(run.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&run.stdout).contains("no release binary for Windows X64"));
}

#[test]
fn action_installs_the_release_archive_only_when_its_sum_matches() {
    let Some(sha256sum) = tool("sha256sum") else {
        return;
    };
    let site = Site::empty();
    let install = &scripts()[1];
    let target = "x86_64-unknown-linux-musl";
    let name = format!("sitemapgen-{target}-v{VERSION}");
    // A release as the release workflow lays it out, of the cargo-built binary.
    let releases = site.outside().join("releases");
    let tag = releases.join(format!("v{VERSION}"));
    fs::create_dir_all(tag.join(&name)).unwrap();
    fs::copy(
        env!("CARGO_BIN_EXE_sitemapgen"),
        tag.join(&name).join("sitemapgen"),
    )
    .unwrap();
    let tgz = format!("{name}.tgz");
    crate::built::run(
        Command::new("tar")
            .current_dir(&tag)
            .args(["-czf", &tgz, &name]),
    );
    fs::remove_dir_all(tag.join(&name)).unwrap();
    let sums = crate::built::run(Command::new(sha256sum).current_dir(&tag).arg(&tgz));
    let dir = site.outside().join("cache");
    let url = format!("file://{}", releases.display());
    let env = [
        ("VERSION", VERSION),
        ("TARGET", target),
        ("DIR", dir.to_str().unwrap()),
        ("RELEASES", url.as_str()),
    ];

    // A sum that does not match: nothing installed.
    fs::write(
        tag.join("SHA256SUMS"),
        format!("{} {tgz}\n", "0".repeat(64)),
    )
    .unwrap();
    let run = step(install, &site, &env);
    assert!(!run.status.success());
    assert!(!dir.join("sitemapgen").exists());

    fs::write(tag.join("SHA256SUMS"), &sums.stdout).unwrap();
    let run = step(install, &site, &env);
    assert!(
        run.status.success(),
        "{}",
        String::from_utf8_lossy(&run.stderr)
    );
    let version = crate::built::run(Command::new(dir.join("sitemapgen")).arg("--version"));
    assert_eq!(version.stdout, format!("sitemapgen {VERSION}\n").as_bytes());
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
    let run_step = &scripts()[2];
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
        step(run_step, &site, &env)
    };

    let done = run(env("true"));
    assert!(
        done.status.success(),
        "{}",
        String::from_utf8_lossy(&done.stderr)
    );
    let summary = site.outside().join("runner/sitemapgen-summary.json");
    assert_eq!(
        outputs(&site),
        format!(
            "listed=3\nadded=3\nredated=0\nremoved=0\nfiles-written=3\nchanges={}\n\
             summary-json={}\n",
            changes.display(),
            summary.display()
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
