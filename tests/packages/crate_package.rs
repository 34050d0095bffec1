//! The crate as `cargo publish` would upload it: the code, not the fixtures, the fuzz crate,
//! the other ecosystems' packaging or the test generators' lock file.

use std::env;
use std::process::Command;

use crate::built::{MANIFEST_DIR, run};

#[test]
fn packaged_crate_leaves_out_fixtures_fuzz_and_the_other_packages() {
    let cargo = env::var_os("CARGO").unwrap_or_else(|| "cargo".into());
    let output = run(Command::new(cargo).current_dir(MANIFEST_DIR).args([
        "package",
        "--list",
        "--allow-dirty",
        "--offline",
    ]));
    let listed = String::from_utf8(output.stdout).unwrap();
    let files: Vec<&str> = listed.lines().collect();
    for kept in [
        "Cargo.toml",
        "Cargo.lock",
        "README.md",
        "src/main.rs",
        "man/sitemapgen.1",
    ] {
        assert!(files.contains(&kept), "{kept} not packaged:\n{listed}");
    }
    for left_out in [
        "fixtures/",
        "fuzz/",
        "python/",
        "npm/",
        ".github/",
        ".ci/",
        ".cargo/",
        "pyproject.toml",
        "tests/packages/sites/",
    ] {
        assert!(
            !files.iter().any(|file| file.starts_with(left_out)),
            "{left_out} packaged:\n{listed}"
        );
    }
}
