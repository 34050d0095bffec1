//! The Linux x86_64 wheel: its tags, the oldest glibc it runs on, and the installed
//! `sitemapgen` (and `python -m sitemapgen_cli`) doing what the cargo build does.

use std::process::Command;

use crate::built::{FIXTURE, VERSION, installed, run, tool};
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
