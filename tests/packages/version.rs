//! One version: Cargo.toml's, carried by the wheel (pyproject takes it from Cargo);
//! `--version` names it.

use std::fs;
use std::path::Path;
use std::process::Command;

use crate::built::{MANIFEST_DIR, VERSION, run};

#[test]
fn pyproject_takes_its_version_from_cargo() {
    let pyproject = fs::read_to_string(Path::new(MANIFEST_DIR).join("pyproject.toml")).unwrap();
    let pyproject: toml::Table = toml::from_str(&pyproject).unwrap();
    let project = pyproject["project"].as_table().unwrap();
    assert!(project.get("version").is_none(), "a version of its own");
    assert_eq!(
        project["dynamic"],
        toml::Value::Array(vec!["version".into()])
    );
    assert_eq!(
        pyproject["build-system"]["build-backend"].as_str(),
        Some("maturin")
    );
}

#[test]
fn version_flag_names_the_cargo_version() {
    let output = run(Command::new(env!("CARGO_BIN_EXE_sitemapgen")).arg("--version"));
    assert_eq!(
        String::from_utf8(output.stdout).unwrap(),
        format!("sitemapgen {VERSION}\n")
    );
}
