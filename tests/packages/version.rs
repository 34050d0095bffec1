//! One version: Cargo.toml's, carried by the wheel (pyproject takes it from Cargo), every
//! npm package and the main package's pins of its platform packages; `--version` names it.

use std::collections::BTreeSet;
use std::fs;
use std::path::Path;
use std::process::Command;

use serde_json::Value;

use crate::built::{MANIFEST_DIR, VERSION, run};

/// Each folder of npm/ and its package.json.
fn npm_packages() -> Vec<(String, Value)> {
    let mut packages: Vec<(String, Value)> = fs::read_dir(Path::new(MANIFEST_DIR).join("npm"))
        .unwrap()
        .map(|entry| {
            let dir = entry.unwrap().path();
            let json = fs::read_to_string(dir.join("package.json")).unwrap();
            let name = dir.file_name().unwrap().to_str().unwrap().to_owned();
            (name, serde_json::from_str(&json).unwrap())
        })
        .collect();
    packages.sort_by(|a, b| a.0.cmp(&b.0));
    packages
}

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
fn every_npm_package_carries_the_cargo_version() {
    let packages = npm_packages();
    let mut platforms = BTreeSet::new();
    for (dir, package) in &packages {
        assert_eq!(package["name"], dir.as_str(), "npm/{dir}: name");
        assert_eq!(package["version"], VERSION, "npm/{dir}: version");
        if let Some(platform) = dir.strip_prefix("sitemapgen-cli-") {
            // The folder names the platform as node does: `${process.platform}-${process.arch}`.
            let (os, cpu) = platform.split_once('-').unwrap();
            assert_eq!(package["os"], serde_json::json!([os]), "npm/{dir}: os");
            assert_eq!(package["cpu"], serde_json::json!([cpu]), "npm/{dir}: cpu");
            // The binary alone, named as the launcher looks for it (lib/binary.js).
            let binary = if os == "win32" {
                "sitemapgen.exe"
            } else {
                "sitemapgen"
            };
            assert_eq!(
                package["files"],
                serde_json::json!([binary]),
                "npm/{dir}: files"
            );
            platforms.insert(dir.clone());
        }
    }
    let main = &packages
        .iter()
        .find(|(dir, _)| dir == "sitemapgen-cli")
        .unwrap()
        .1;
    let pins = main["optionalDependencies"].as_object().unwrap();
    assert_eq!(pins.keys().cloned().collect::<BTreeSet<_>>(), platforms);
    for (name, pin) in pins {
        assert_eq!(pin, VERSION, "sitemapgen-cli's pin of {name}");
    }
}

#[test]
fn version_flag_names_the_cargo_version() {
    let output = run(Command::new(env!("CARGO_BIN_EXE_sitemapgen")).arg("--version"));
    assert_eq!(
        String::from_utf8(output.stdout).unwrap(),
        format!("sitemapgen {VERSION}\n")
    );
}
