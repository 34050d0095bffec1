//! README, `--help` and the man page stay in step.

use std::collections::BTreeSet;
use std::fs;
use std::path::Path;

use crate::harness::Cmd;

fn long_options(text: &str) -> BTreeSet<String> {
    let bytes = text.as_bytes();
    let mut options = BTreeSet::new();
    let mut i = 0;
    while let Some(at) = text[i..].find("--") {
        let start = i + at + 2;
        let len = bytes[start..]
            .iter()
            .take_while(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || **b == b'-')
            .count();
        let preceded_by_dash = start >= 3 && bytes[start - 3] == b'-';
        if len > 0 && !preceded_by_dash {
            options.insert(format!("--{}", &text[start..start + len]));
        }
        i = start + len;
    }
    options
}

fn help_options() -> BTreeSet<String> {
    let run = Cmd::new().arg("--help").run();
    run.success();
    let options = long_options(&String::from_utf8_lossy(run.stdout()));
    assert!(
        options.contains("--base-url") && options.len() > 15,
        "{options:?}"
    );
    options
}

fn read(rel: &str) -> String {
    fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join(rel)).unwrap()
}

#[test]
fn every_long_option_in_help_is_in_the_man_page() {
    let man = long_options(&read("man/sitemapgen.1").replace("\\-", "-"));
    let missing: Vec<_> = help_options().difference(&man).cloned().collect();
    assert!(missing.is_empty(), "man/sitemapgen.1 lacks {missing:?}");
}

#[test]
fn every_long_option_in_help_is_in_the_readme() {
    let readme = long_options(&read("README.md"));
    let missing: Vec<_> = help_options().difference(&readme).cloned().collect();
    assert!(missing.is_empty(), "README.md lacks {missing:?}");
}

#[test]
fn the_man_page_names_no_option_the_tool_lacks() {
    let man = long_options(&read("man/sitemapgen.1").replace("\\-", "-"));
    let stale: Vec<_> = man.difference(&help_options()).cloned().collect();
    assert!(
        stale.is_empty(),
        "man/sitemapgen.1 names {stale:?}, which --help lacks"
    );
}

#[test]
fn the_committed_schemas_are_the_official_ones() {
    let shared = Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared/schemas");
    // CI runs beside the team's shared/ folder: there the check must run, not skip.
    if !shared.exists() && std::env::var_os("CI").is_none() {
        eprintln!("note: no shared/schemas beside the checkout; the schemas were not compared");
        return;
    }
    for name in ["sitemap.xsd", "siteindex.xsd"] {
        assert_eq!(
            fs::read(shared.join(name)).unwrap(),
            fs::read(
                Path::new(env!("CARGO_MANIFEST_DIR"))
                    .join("tests/schemas")
                    .join(name)
            )
            .unwrap(),
            "tests/schemas/{name} differs from shared/schemas/{name}"
        );
    }
}

/// The Quick start's first command (the installed `sitemapgen`, run here as the cargo build)
/// runs on a fresh clone: it names only what the checkout holds, and gives a valid sitemap.
#[test]
fn the_quick_start_runs_on_a_fresh_clone() {
    let readme = read("README.md");
    let section = &readme[readme.find("\n## Quick start\n").expect("the section")..];
    let block = &section[section.find("```sh\n").expect("a command") + 6..];
    let command = block[..block.find("\n```").unwrap()].trim();
    let args: Vec<&str> = command
        .strip_prefix("sitemapgen ")
        .expect("a sitemapgen command")
        .split_whitespace()
        .collect();
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join(args.last().unwrap());
    assert!(dir.is_dir(), "{} is not in the checkout", dir.display());
    assert!(
        args.contains(&"-o") && args.contains(&"-"),
        "it must not write into the checkout"
    );
    let run = Cmd::new()
        .current_dir(Path::new(env!("CARGO_MANIFEST_DIR")))
        .args(&args)
        .run();
    run.success();
    crate::validate::sitemap_bytes(run.stdout(), "https://example.com/");
}

/// The names of the `#[test]` functions in `tests/cli/FILE`.
fn tests_in(file: &str) -> BTreeSet<String> {
    let text = read(&format!("tests/cli/{file}"));
    let mut names = BTreeSet::new();
    let mut lines = text.lines().map(str::trim);
    while let Some(line) = lines.next() {
        if line == "#[test]" {
            let signature = lines.find(|l| l.starts_with("fn ")).unwrap();
            let name = &signature[3..signature.find('(').unwrap()];
            names.insert(name.to_string());
        }
    }
    names
}

/// The tests that README's "Failure behaviour" tables name, in their last column.
fn tests_in_the_failure_tables() -> BTreeSet<String> {
    let readme = read("README.md");
    let section = &readme[readme
        .find("\n## Failure behaviour\n")
        .expect("the section")..];
    let section = &section[..section[1..].find("\n## ").unwrap()];
    let mut names = BTreeSet::new();
    for row in section.lines().filter(|l| l.starts_with('|')) {
        let last = row.trim_end_matches('|').rsplit('|').next().unwrap();
        for name in last.split('`').skip(1).step_by(2) {
            names.insert(name.to_string());
        }
    }
    names
}

#[test]
fn the_failure_tables_name_every_fault_test_and_only_tests_that_exist() {
    let documented = tests_in_the_failure_tables();
    let files = fs::read_dir(Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/cli")).unwrap();
    let mut existing = BTreeSet::new();
    for file in files {
        existing.extend(tests_in(&file.unwrap().file_name().to_string_lossy()));
    }
    let unknown: Vec<_> = documented.difference(&existing).collect();
    assert!(
        unknown.is_empty(),
        "README names no such tests: {unknown:?}"
    );
    let faults = tests_in("faults.rs")
        .into_iter()
        .chain(tests_in("failures.rs"));
    let missing: Vec<_> = faults.filter(|t| !documented.contains(t)).collect();
    assert!(
        missing.is_empty(),
        "README's failure tables lack {missing:?}"
    );
}
