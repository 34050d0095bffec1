//! The tools the package tests run, and what they build once per run: the wheel, a venv it
//! is installed into, and a sitemap of the fixture site from the cargo-built binary.

use std::env;
use std::fs;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::sync::OnceLock;

use crate::harness::{BASE, Site};
use crate::validate;

pub const MANIFEST_DIR: &str = env!("CARGO_MANIFEST_DIR");
pub const VERSION: &str = env!("CARGO_PKG_VERSION");
/// The README's quick-start site.
pub const FIXTURE: &str = "hugo";

/// The path of TOOL on PATH; None (the test skips, saying so) outside CI, where a missing
/// tool is a failure: .ci/run installs every one.
pub fn tool(name: &str) -> Option<PathBuf> {
    let found = env::var_os("PATH").and_then(|path| {
        env::split_paths(&path)
            .map(|dir| dir.join(name))
            .find(|candidate| candidate.is_file())
    });
    if found.is_none() {
        crate::harness::skip_outside_ci(&format!(
            "{name} is not on PATH (scripts/test.sh installs it)"
        ));
    }
    found
}

/// Runs COMMAND, which must succeed; its output.
#[track_caller]
pub fn run(command: &mut Command) -> Output {
    let output = command
        .output()
        .unwrap_or_else(|err| panic!("cannot run {command:?}: {err}"));
    assert!(
        output.status.success(),
        "{command:?} failed ({}):\n{}{}",
        output.status,
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    );
    output
}

/// Where the package tests build and install, below cargo's target folder (beside the
/// test binaries, outside the checkout's tracked files).
pub fn work_dir() -> PathBuf {
    let exe = Path::new(env!("CARGO_BIN_EXE_sitemapgen"));
    exe.parent().unwrap().parent().unwrap().join("packages")
}

pub struct Installed {
    pub wheel: PathBuf,
    pub venv: PathBuf,
}

impl Installed {
    /// The `sitemapgen` script pip installed: the wheel's binary.
    pub fn binary(&self) -> PathBuf {
        self.venv.join("bin").join("sitemapgen")
    }
}

/// The Linux x86_64 wheel (manylinux2014, linked by zig against glibc 2.17), built once and
/// installed with `pip install --no-index` into a fresh venv; None where a tool is missing
/// outside CI.
pub fn installed() -> Option<&'static Installed> {
    static INSTALLED: OnceLock<Option<Installed>> = OnceLock::new();
    INSTALLED
        .get_or_init(|| {
            tool("maturin")?;
            tool("python3")?;
            let work = work_dir();
            let wheels = work.join("wheels");
            // As a user builds it from a checkout (README.md, "Install"), offline.
            build_packages("wheel");
            let built: Vec<PathBuf> = fs::read_dir(&wheels)
                .unwrap()
                .map(|entry| entry.unwrap().path())
                .collect();
            assert_eq!(built.len(), 1, "one wheel: {built:?}");
            Some(install(
                built.into_iter().next().unwrap(),
                work.join("venv"),
            ))
        })
        .as_ref()
}

/// The wheel for any platform, made from the built wheel by python/any_wheel.py as the
/// release makes it, installed into a venv of its own: what pip installs where no wheel
/// has a binary (Windows, FreeBSD, 32-bit…).
pub fn installed_without_binary() -> Option<&'static Installed> {
    static INSTALLED: OnceLock<Option<Installed>> = OnceLock::new();
    INSTALLED
        .get_or_init(|| {
            let with_binary = installed()?;
            let dir = work_dir().join("any-wheel");
            if dir.exists() {
                fs::remove_dir_all(&dir).unwrap();
            }
            fs::create_dir(&dir).unwrap();
            let made = run(Command::new(tool("python3")?)
                .arg(Path::new(MANIFEST_DIR).join("python/any_wheel.py"))
                .arg(&with_binary.wheel)
                .arg(&dir));
            let wheel = PathBuf::from(String::from_utf8(made.stdout).unwrap().trim());
            Some(install(wheel, work_dir().join("any-venv")))
        })
        .as_ref()
}

/// WHEEL installed with `pip install --no-index` into a fresh venv at VENV.
fn install(wheel: PathBuf, venv: PathBuf) -> Installed {
    if venv.exists() {
        fs::remove_dir_all(&venv).unwrap();
    }
    run(Command::new("python3").arg("-m").arg("venv").arg(&venv));
    run(Command::new(venv.join("bin").join("pip"))
        .args([
            "install",
            "--no-index",
            "--no-deps",
            "--disable-pip-version-check",
        ])
        .arg(&wheel));
    Installed { wheel, venv }
}

/// `scripts/build-packages.sh` into the work folder, for STEP (`wheel`, `npm`): the `dist`
/// profile, offline, in a cargo target folder of its own.
pub fn build_packages(step: &str) {
    let work = work_dir();
    run(Command::new("bash")
        .arg(Path::new(MANIFEST_DIR).join("scripts/build-packages.sh"))
        .arg(&work)
        .arg(step)
        .env("PROFILE", "dist")
        .env("OFFLINE", "1")
        .env("CARGO_TARGET_DIR", work.join("cargo")));
}

/// What the cargo-built binary writes for the fixture site with `-o -`: what every package's
/// binary must write too.
pub fn expected_sitemap(site: &Site) -> Vec<u8> {
    let run = site.run(&["-o", "-"]);
    run.success();
    validate::sitemap_bytes(run.stdout(), BASE);
    run.stdout().to_vec()
}
