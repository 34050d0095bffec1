//! The Linux x86_64 wheel: its tags, the oldest glibc it runs on, and the installed
//! `sitemapgen` (and `python -m sitemapgen_cli`) doing what the cargo build does.

use std::path::Path;
use std::process::Command;

use crate::built::{FIXTURE, VERSION, installed, installed_without_binary, run, tool};
use crate::harness::{BASE, Site};
use crate::validate;

#[test]
fn wheel_is_tagged_for_manylinux2014_x86_64() {
    let Some(installed) = installed() else { return };
    let name = installed.wheel.file_name().unwrap().to_str().unwrap();
    assert_eq!(
        name,
        format!("sitemapgen_cli-{VERSION}-py3-none-manylinux2014_x86_64.manylinux_2_17_x86_64.whl")
    );
}

/// The newest `GLIBC_x.y` symbol version the installed binary needs, from `objdump -T`.
#[test]
fn wheel_binary_needs_glibc_2_17_at_most() {
    let Some(installed) = installed() else { return };
    let Some(objdump) = tool("objdump") else {
        return;
    };
    let output = run(Command::new(objdump).arg("-T").arg(installed.binary()));
    let dump = String::from_utf8(output.stdout).unwrap();
    let newest = dump
        .split(|c: char| c.is_whitespace() || c == '(' || c == ')')
        .filter_map(|word| word.strip_prefix("GLIBC_"))
        .filter_map(|version| {
            let (major, minor) = version.split_once('.')?;
            let minor = minor.split('.').next()?;
            Some((major.parse::<u32>().ok()?, minor.parse::<u32>().ok()?))
        })
        .max()
        .expect("the binary names glibc symbol versions");
    assert!(newest <= (2, 17), "needs GLIBC_{}.{}", newest.0, newest.1);
}

#[test]
fn pip_installed_sitemapgen_writes_what_the_cargo_build_writes() {
    let Some(installed) = installed() else { return };
    let site = Site::fixture(FIXTURE);
    let expected = crate::built::expected_sitemap(&site);
    let printed = run(Command::new(installed.binary())
        .args(["-b", BASE, "-o", "-"])
        .arg(&site.root)
        .current_dir(site.outside()));
    assert!(
        printed.stdout == expected,
        "-o - differs from the cargo build's"
    );

    run(Command::new(installed.binary())
        .args(["-b", BASE])
        .arg(&site.root)
        .current_dir(site.outside()));
    validate::sitemap(&site.sitemap_path(), BASE);
    assert!(std::fs::read(site.sitemap_path()).unwrap() == expected);
}

#[test]
fn pip_installed_sitemapgen_names_the_version() {
    let Some(installed) = installed() else { return };
    let output = run(Command::new(installed.binary()).arg("--version"));
    assert_eq!(
        String::from_utf8(output.stdout).unwrap(),
        format!("sitemapgen {VERSION}\n")
    );
}

#[test]
fn python_m_runs_the_installed_binary() {
    let Some(installed) = installed() else { return };
    let python = installed.venv.join("bin").join("python");
    let output = run(Command::new(&python).args(["-m", "sitemapgen_cli", "--version"]));
    assert_eq!(
        String::from_utf8(output.stdout).unwrap(),
        format!("sitemapgen {VERSION}\n")
    );

    let site = Site::fixture(FIXTURE);
    let expected = crate::built::expected_sitemap(&site);
    let printed = run(Command::new(&python)
        .args(["-m", "sitemapgen_cli", "-b", BASE, "-o", "-"])
        .arg(&site.root)
        .current_dir(site.outside()));
    assert!(
        printed.stdout == expected,
        "-o - differs from the cargo build's"
    );

    // A usage error's status comes through: the binary took the process's place.
    let refused = Command::new(&python)
        .args(["-m", "sitemapgen_cli", "--no-such-flag"])
        .output()
        .unwrap();
    assert_eq!(refused.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&refused.stderr).contains("--no-such-flag"));
}

/// `sysconfig.get_platform()` of VENV's Python: the platform its messages name.
pub fn platform(venv: &Path) -> String {
    let out = run(Command::new(venv.join("bin/python"))
        .args(["-c", "import sysconfig; print(sysconfig.get_platform())"]));
    String::from_utf8(out.stdout).unwrap().trim().to_owned()
}

/// Where no wheel holds a binary (Windows, FreeBSD, 32-bit…), pip takes the wheel for any
/// platform, not the sdist (whose Rust builds on no Windows): it installs, and its
/// `sitemapgen` and `python -m sitemapgen_cli`, asked for by name, fail with exit 1 saying
/// why. Where a wheel with the binary fits, pip prefers that one.
#[test]
fn the_wheel_for_any_platform_installs_where_none_has_a_binary_and_says_so() {
    let Some(without) = installed_without_binary() else {
        return;
    };
    let with = installed().unwrap();
    let name = without.wheel.file_name().unwrap().to_str().unwrap();
    assert_eq!(name, format!("sitemapgen_cli-{VERSION}-py3-none-any.whl"));

    // pip's choice between the two, for each platform.
    let links = tempfile::tempdir().unwrap();
    for wheel in [&with.wheel, &without.wheel] {
        std::fs::copy(wheel, links.path().join(wheel.file_name().unwrap())).unwrap();
    }
    for (platform, expected) in [
        (None, &with.wheel),
        (Some("manylinux2014_x86_64"), &with.wheel),
        (Some("win_amd64"), &without.wheel),
        (Some("freebsd_14_1_release_amd64"), &without.wheel),
        (Some("manylinux2014_i686"), &without.wheel),
    ] {
        let out = tempfile::tempdir().unwrap();
        let mut pip = Command::new(with.venv.join("bin/pip"));
        pip.args(["download", "--no-index", "--no-deps", "--only-binary=:all:"])
            .args(["--disable-pip-version-check", "--find-links"])
            .arg(links.path())
            .arg("--dest")
            .arg(out.path());
        if let Some(platform) = platform {
            pip.args(["--platform", platform]);
        }
        run(pip.arg("sitemapgen-cli"));
        let taken: Vec<_> = std::fs::read_dir(out.path())
            .unwrap()
            .map(|entry| entry.unwrap().file_name())
            .collect();
        assert_eq!(taken, [expected.file_name().unwrap()], "{platform:?}");
    }

    let message = format!(
        "sitemapgen: error: sitemapgen has no binary for {}\nhint: the wheels with a binary \
         are for Linux (x86_64, aarch64) and macOS (x86_64, arm64); elsewhere, build it: cargo \
         install --locked sitemapgen\n",
        platform(&without.venv)
    );
    let bin = without.venv.join("bin");
    let mut python_m = Command::new(bin.join("python"));
    python_m.args(["-m", "sitemapgen_cli"]);
    for mut launcher in [Command::new(bin.join("sitemapgen")), python_m] {
        let done = launcher.args(["-b", BASE, "."]).output().unwrap();
        assert_eq!(done.status.code(), Some(1));
        assert_eq!(String::from_utf8_lossy(&done.stderr), message);
        assert!(done.stdout.is_empty());
    }
}
