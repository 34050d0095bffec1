//! The import rule of the house (doc/development.md): a stage imports only the leaves below
//! the stages, and `run` (with `cli`, which builds its settings) wires the stages together.
//! Read from the sources' `crate::` paths, their unit tests left aside.

use std::fs;
use std::path::{Path, PathBuf};

/// The stages of the pipe, each a folder or a file under `src/`.
const STAGES: &[&str] = &[
    "check", "decide", "publish", "scan", "sitemap", "state", "submit", "walk",
];

/// What wires the stages: the command line, the run and its summary, `--explain` (the run on
/// one page), the crate's root.
const WIRING: &[&str] = &["cli", "explain", "lib", "main", "run", "summary"];

/// The leaves, which every stage may import and which import no stage.
const LEAVES: &[&str] = &[
    "entry", "error", "html", "io", "known", "outputs", "report", "url", "w3c",
];

/// The stages that one stage drives itself, kept because handing them in would take a
/// trait or a closure for each use at the heart of the stage: decide plans each page the
/// walk finds (it implements the walk's `Prepare`, on the walk's threads), reads it through
/// the scan (the scanner, its settings, what it found) and dates it against the last run's
/// state (its records, taken one by one); publish writes the new state in the state's
/// format (its writer). What the sitemap needs of others is handed in by `run`: the
/// sub-builds (`entry::SubBuild`) and a reader of their start pages' heads.
const DRIVES: &[(&str, &[&str])] = &[
    ("decide", &["scan", "state", "walk"]),
    ("publish", &["state"]),
];

/// Every import of a module that the rule forbids, as `FROM -> TO (file)`.
fn crossings(files: &[(String, String)]) -> Vec<String> {
    let mut found = Vec::new();
    for (from, text) in files {
        let allowed: &[&str] = DRIVES
            .iter()
            .find(|(stage, _)| stage == from)
            .map_or(&[], |(_, driven)| driven);
        for to in imported(text) {
            let bad = if STAGES.contains(&from.as_str()) || LEAVES.contains(&from.as_str()) {
                to != *from && !LEAVES.contains(&to.as_str()) && !allowed.contains(&to.as_str())
            } else {
                !WIRING.contains(&from.as_str())
            };
            if bad {
                found.push(format!("{from} -> {to}"));
            }
        }
    }
    found.sort();
    found.dedup();
    found
}

/// The top modules a source names through `crate::`, its `#[cfg(test)]` module left out.
fn imported(text: &str) -> Vec<String> {
    let code = text.split("#[cfg(test)]\nmod tests").next().unwrap_or(text);
    let mut names = Vec::new();
    for (at, _) in code.match_indices("crate::") {
        let rest = &code[at + "crate::".len()..];
        match rest.strip_prefix('{') {
            Some(list) => {
                let list = &list[..list.find('}').unwrap_or(list.len())];
                names.extend(list.split(',').map(|item| first_name(item.trim())));
            }
            None => names.push(first_name(rest)),
        }
    }
    names.retain(|name| !name.is_empty() && name != "self");
    names
}

fn first_name(path: &str) -> String {
    path.chars()
        .take_while(|c| c.is_ascii_alphanumeric() || *c == '_')
        .collect()
}

/// Each source file under `src/` with the top module it belongs to.
fn sources() -> Vec<(String, String)> {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut files = Vec::new();
    let mut dirs: Vec<PathBuf> = vec![src.clone()];
    while let Some(dir) = dirs.pop() {
        for entry in fs::read_dir(&dir).expect("read src") {
            let path = entry.expect("entry").path();
            if path.is_dir() {
                dirs.push(path);
            } else if path.extension().is_some_and(|ext| ext == "rs") {
                let rel = path.strip_prefix(&src).expect("under src");
                let top = rel.components().next().expect("a name");
                let top = top.as_os_str().to_string_lossy();
                let module = top.strip_suffix(".rs").unwrap_or(&top).to_string();
                files.push((module, fs::read_to_string(&path).expect("read source")));
            }
        }
    }
    files
}

#[test]
fn every_module_is_a_stage_a_leaf_or_wiring() {
    for (module, _) in sources() {
        assert!(
            STAGES.contains(&module.as_str())
                || LEAVES.contains(&module.as_str())
                || WIRING.contains(&module.as_str()),
            "src/{module} is neither a stage, a leaf nor wiring: name it in tests/cli/imports.rs"
        );
    }
}

#[test]
fn stages_import_only_leaves_and_leaves_no_stage() {
    let crossings = crossings(&sources());
    assert!(
        crossings.is_empty(),
        "imports against the rule: {crossings:?}"
    );
}

#[test]
fn a_stage_importing_another_breaks_the_rule() {
    let scan = "use crate::url::BaseUrl;\nuse crate::{html, walk::rules::Excludes};\n";
    let leaf = "use crate::io::input;\nuse crate::decide::lastmod::Churn;\n";
    let in_tests = "use crate::url;\n#[cfg(test)]\nmod tests {\n    use crate::walk;\n}\n";
    let files = [
        ("scan".to_string(), scan.to_string()),
        ("outputs".to_string(), leaf.to_string()),
        ("sitemap".to_string(), in_tests.to_string()),
        ("decide".to_string(), "use crate::walk::Page;\n".to_string()),
    ];
    assert_eq!(crossings(&files), ["outputs -> decide", "scan -> walk"]);
}
