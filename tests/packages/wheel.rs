//! The Linux x86_64 wheel: its tags, the oldest glibc it runs on, and the installed
//! `sitemapgen` (and `python -m sitemapgen_cli`) doing what the cargo build does.

use std::path::{Path, PathBuf};
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

/// Where no wheel holds a binary (Windows on arm64, FreeBSD, 32-bit…), pip takes the wheel
/// for any platform, not the sdist (whose Rust needs a toolchain there): it installs, and its
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
        (Some("win_arm64"), &without.wheel),
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
         are for Linux (x86_64, aarch64), macOS (x86_64, arm64) and Windows (x86_64); \
         elsewhere, build it: cargo install --locked sitemapgen\n",
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

/// The Linux wheel LINUX made into the `win_amd64` wheel maturin builds on Windows (the
/// release's `windows` job): one tag, and the binary at `.data/scripts/sitemapgen.exe`. The
/// binary in it is the Linux one, a stand-in that runs here. Written into OUT; its path.
fn windows_wheel(linux: &Path, out: &Path) -> PathBuf {
    const RETAG: &str = r#"
import base64, hashlib, os, sys, zipfile
source, out = sys.argv[1:]
with zipfile.ZipFile(source) as wheel:
    names = wheel.namelist()
    info = next(n.split("/")[0] for n in names if n.split("/")[0].endswith(".dist-info"))
    stem = info[: -len(".dist-info")]
    target = os.path.join(out, f"{stem}-py3-none-win_amd64.whl")
    records = []
    with zipfile.ZipFile(target, "w", zipfile.ZIP_DEFLATED) as new:
        for item in wheel.infolist():
            path, data = item.filename, wheel.read(item)
            if path == f"{info}/RECORD":
                continue
            if path == f"{stem}.data/scripts/sitemapgen":
                path += ".exe"
            if path == f"{info}/WHEEL":
                lines = [l for l in data.decode().splitlines() if not l.startswith("Tag:")]
                data = "\n".join(lines + ["Tag: py3-none-win_amd64", ""]).encode()
            entry = zipfile.ZipInfo(path, item.date_time)
            entry.external_attr = item.external_attr
            new.writestr(entry, data, zipfile.ZIP_DEFLATED)
            digest = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=")
            records.append(f"{path},sha256={digest.decode()},{len(data)}")
        records.append(f"{info}/RECORD,,")
        new.writestr(f"{info}/RECORD", "\n".join(records) + "\n")
print(target)
"#;
    let made = run(Command::new(tool("python3").unwrap())
        .args(["-c", RETAG])
        .arg(linux)
        .arg(out));
    PathBuf::from(String::from_utf8(made.stdout).unwrap().trim())
}

/// Python made to believe it runs on Windows before the package installed in TARGET is
/// imported (first on sys.path): `sys.platform` is "win32" (the modules the package imports
/// imported before, and sysconfig's variables read, as this platform's), and os.execv, which Windows cannot give the exec
/// it promises, is gone. Then CODE.
fn on_windows(target: &Path, code: &str) -> Command {
    let mut python = Command::new(tool("python3").unwrap());
    python
        .arg("-c")
        .arg(format!(
            "import os, subprocess, sys, sysconfig\nfrom importlib import metadata\n\
             sysconfig.get_config_vars()\nsys.path.insert(0, sys.argv.pop(1))\n\
             sys.platform = 'win32'\ndel os.execv\n{code}"
        ))
        .arg(target);
    python
}

/// The `win_amd64` wheel is pip's choice for Windows on x86_64 (the wheel for any platform
/// for Windows on arm64); installed for `win_amd64` (`pip install --target`, as pip lays
/// it out on Windows too), `sitemapgen_cli` on a faked Windows finds `sitemapgen.exe`, and
/// `python -m sitemapgen_cli` runs it as a child (Windows has no exec), its output and exit
/// status passed through.
#[test]
fn the_windows_wheel_is_pips_choice_on_win_amd64_and_its_launcher_runs_sitemapgen_exe() {
    let Some(without) = installed_without_binary() else {
        return;
    };
    let with = installed().unwrap();
    let links = tempfile::tempdir().unwrap();
    for wheel in [&with.wheel, &without.wheel] {
        std::fs::copy(wheel, links.path().join(wheel.file_name().unwrap())).unwrap();
    }
    let windows = windows_wheel(&with.wheel, links.path());
    assert_eq!(
        windows.file_name().unwrap().to_str().unwrap(),
        format!("sitemapgen_cli-{VERSION}-py3-none-win_amd64.whl")
    );
    let pip = || {
        let mut pip = Command::new(with.venv.join("bin/pip"));
        pip.args(["--disable-pip-version-check"]);
        pip
    };
    for (platform, expected) in [
        ("win_amd64", &windows),
        ("win_arm64", &without.wheel),
        ("manylinux2014_x86_64", &with.wheel),
    ] {
        let out = tempfile::tempdir().unwrap();
        run(pip()
            .args(["download", "--no-index", "--no-deps", "--only-binary=:all:"])
            .args(["--platform", platform, "--find-links"])
            .arg(links.path())
            .arg("--dest")
            .arg(out.path())
            .arg("sitemapgen-cli"));
        let taken: Vec<_> = std::fs::read_dir(out.path())
            .unwrap()
            .map(|entry| entry.unwrap().file_name())
            .collect();
        assert_eq!(taken, [expected.file_name().unwrap()], "{platform}");
    }

    let target = tempfile::tempdir().unwrap();
    run(pip()
        .args(["install", "--no-index", "--no-deps", "--only-binary=:all:"])
        .args(["--platform", "win_amd64", "--find-links"])
        .arg(links.path())
        .arg("--target")
        .arg(target.path())
        .arg("sitemapgen-cli"));
    let exe = target.path().join("bin/sitemapgen.exe");
    assert!(exe.is_file(), "no {}", exe.display());
    let found = run(&mut on_windows(
        target.path(),
        "from sitemapgen_cli import find_binary\nprint(find_binary())",
    ));
    assert_eq!(
        Path::new(String::from_utf8(found.stdout).unwrap().trim()),
        exe
    );

    let python_m = |args: &[&str]| {
        let mut command = on_windows(
            target.path(),
            "from sitemapgen_cli.__main__ import main\nmain()",
        );
        command.args(args);
        command
    };
    let site = Site::fixture(FIXTURE);
    let expected = crate::built::expected_sitemap(&site);
    let printed = run(python_m(&["-b", BASE, "-o", "-"]).arg(&site.root));
    assert!(
        printed.stdout == expected,
        "-o - differs from the cargo build's"
    );
    let refused = python_m(&["--no-such-flag"]).output().unwrap();
    assert_eq!(refused.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&refused.stderr).contains("--no-such-flag"));
}
