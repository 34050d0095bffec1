//! README, the guide (`doc/`), `--help` and the man page stay in step, and every link in the
//! docs leads to a file and a heading that exist.

use std::collections::{BTreeMap, BTreeSet};
use std::fs;
use std::path::Path;

use crate::harness::{Cmd, skip_outside_ci};

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
fn every_long_option_in_help_is_in_the_guide() {
    let guide = long_options(&read("doc/usage.md"));
    let missing: Vec<_> = help_options().difference(&guide).cloned().collect();
    assert!(missing.is_empty(), "doc/usage.md lacks {missing:?}");
}

/// The docs a reader follows links through: README, the guide, the benchmark's figures.
fn docs() -> Vec<String> {
    let mut docs = vec!["README.md".to_string(), "benches/README.md".to_string()];
    let guide = fs::read_dir(Path::new(env!("CARGO_MANIFEST_DIR")).join("doc")).unwrap();
    for file in guide {
        let name = file.unwrap().file_name().to_string_lossy().into_owned();
        if name.ends_with(".md") {
            docs.push(format!("doc/{name}"));
        }
    }
    docs.sort();
    docs
}

/// The anchors of a markdown file's headings, as GitHub makes them.
fn anchors(text: &str) -> BTreeSet<String> {
    let mut anchors = BTreeSet::new();
    let mut code = false;
    for line in text.lines() {
        if line.starts_with("```") {
            code = !code;
        }
        let title = line.trim_start_matches('#');
        if code || title.len() == line.len() || !title.starts_with(' ') {
            continue;
        }
        let anchor: String = title
            .trim()
            .to_lowercase()
            .chars()
            .filter(|c| c.is_alphanumeric() || *c == '-' || *c == '_' || *c == ' ')
            .map(|c| if c == ' ' { '-' } else { c })
            .collect();
        anchors.insert(anchor);
    }
    anchors
}

#[test]
fn every_link_in_the_docs_leads_to_a_file_and_a_heading_that_exist() {
    let top = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut broken = Vec::new();
    for doc in docs() {
        let text = read(&doc);
        let dir = Path::new(&doc).parent().unwrap();
        for link in text.split("](").skip(1) {
            let target = &link[..link.find(')').unwrap()];
            if target.contains("://") || target.starts_with("mailto:") {
                continue;
            }
            let (file, anchor) = target.split_once('#').unwrap_or((target, ""));
            let file = if file.is_empty() {
                Path::new(&doc).to_path_buf()
            } else {
                dir.join(file)
            };
            let path = top.join(&file);
            if !path.exists() {
                broken.push(format!("{doc}: {target} (no {})", file.display()));
            } else if !anchor.is_empty()
                && !anchors(&fs::read_to_string(&path).unwrap()).contains(anchor)
            {
                broken.push(format!("{doc}: {target} (no such heading)"));
            }
        }
    }
    assert!(broken.is_empty(), "broken links: {broken:#?}");
    // Each page of the guide is reached from README.
    let readme = read("README.md");
    for doc in docs().iter().filter(|doc| *doc != "README.md") {
        assert!(
            readme.contains(&format!("]({doc})")),
            "README links no {doc}"
        );
    }
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

/// The SHA-256 of the official sitemaps.org 0.9 schemas, as published at
/// `http://www.sitemaps.org/schemas/sitemap/0.9/` (`sha256sum` of each): the tests' copies
/// in `tests/schemas/` must be those bytes, so that a sitemap the tests call valid is valid
/// for the protocol, not for an edited schema.
const OFFICIAL_SCHEMAS: [(&str, &str); 2] = [
    (
        "sitemap.xsd",
        "fa1fa37674091f36f31d9af9e953ffd56d5ea2e8f134b45e0335b25cdca6e0fc",
    ),
    (
        "siteindex.xsd",
        "3f7322902a3d412691350b6ed8005f051205f02c5a1ee445d83ee8c890d328b9",
    ),
];

#[test]
fn the_committed_schemas_are_the_official_ones() {
    for (name, official) in OFFICIAL_SCHEMAS {
        let path = Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("tests/schemas")
            .join(name);
        let digest = ring::digest::digest(&ring::digest::SHA256, &fs::read(&path).unwrap());
        assert_eq!(
            digest
                .as_ref()
                .iter()
                .map(|byte| format!("{byte:02x}"))
                .collect::<String>(),
            official,
            "tests/schemas/{name} is not the official schema"
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

/// The commands of README's first code block under `heading` (a `## ` or `**…**` line).
fn readme_block(heading: &str) -> Vec<String> {
    let readme = read("README.md");
    let section = &readme[readme.find(heading).expect("the section")..];
    let block = &section[section.find("```sh\n").expect("a code block") + 6..];
    block[..block.find("\n```").unwrap()]
        .lines()
        .map(|line| line.split("  #").next().unwrap().trim().to_string())
        .collect()
}

/// README's two commands for a fresh clone, as written: the install from a checkout
/// (`--locked`: the committed Cargo.lock must be the one cargo resolves), and the test
/// command, which is what CI runs (the Quick start's command runs in the test above).
/// The lock file is checked offline against this platform's graph (`cargo tree`), which a
/// cargo home filled by this build alone holds: another platform's crates (Windows', UEFI's)
/// are resolved from the index but never downloaded here.
#[test]
fn the_readme_install_and_test_commands_are_what_the_checkout_and_ci_run() {
    let install = readme_block("**Today: from a checkout.**");
    assert!(install[0].starts_with("git clone "), "{install:?}");
    assert_eq!(install[1], "cargo install --locked --path .");
    let top = Path::new(env!("CARGO_MANIFEST_DIR"));
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".to_string());
    let locked = std::process::Command::new(cargo)
        .current_dir(top)
        .args(["tree", "--locked", "--offline", "--depth", "0"])
        .output()
        .unwrap();
    assert!(
        locked.status.success(),
        "`cargo tree --locked --offline` failed (a Cargo.lock cargo would change, or a crate \
         of this platform not in the cargo home): {}",
        String::from_utf8_lossy(&locked.stderr)
    );

    let test = readme_block("Run the tests");
    assert_eq!(test, ["scripts/test.sh"], "one command");
    let ci = read(".ci/run");
    assert!(
        ci.lines().any(|line| line == test[0]),
        ".ci/run runs README's test command"
    );
    assert!(top.join(&test[0]).is_file());
}

/// `-h` fits a screen, the options a user reaches for first at its top; `--help` has every
/// option, those first, then by topic.
#[test]
fn short_help_fits_a_screen_and_long_help_leads_with_the_options_used_most() {
    let short = Cmd::new().arg("-h").run();
    let short = String::from_utf8_lossy(short.success().stdout()).into_owned();
    let lines = short.lines().count();
    assert!(lines <= 50, "-h has {lines} lines:\n{short}");
    // DIR is no option of a run: the usage says so, and which commands need none.
    assert!(
        short.contains(
            "Usage: sitemapgen [OPTIONS] --base-url <URL> <DIR>\n       sitemapgen \
             --indexnow-submit --base-url <URL> --changes <FILE>"
        ),
        "{short}"
    );
    let long = Cmd::new().arg("--help").run();
    let long = String::from_utf8_lossy(long.success().stdout()).into_owned();
    // The line that begins the option's entry (`-b, --base-url <URL>`, `--gzip`).
    let at = |text: &str, option: &str| {
        text.lines()
            .position(|line| {
                let indented = line.starts_with(' ');
                let line = line.trim_start();
                let line = line
                    .get(4..)
                    .filter(|_| !line.starts_with("--"))
                    .unwrap_or(line);
                indented
                    && line
                        .strip_prefix(option)
                        .is_some_and(|rest| rest.starts_with(' ') || rest.is_empty())
            })
            .unwrap_or_else(|| panic!("{option} not in:\n{text}"))
    };
    for help in [&short, &long] {
        let first = [
            "--base-url",
            "--output",
            "--include",
            "--exclude",
            "--lastmod",
            "--state",
        ];
        for pair in first.windows(2) {
            assert!(at(help, pair[0]) < at(help, pair[1]), "{pair:?}:\n{help}");
        }
        assert!(at(help, "--state") < at(help, "--explain"));
    }
    assert!(!short.contains("--gzip"), "{short}");
    // A flag shows as itself (`--gzip`), though it takes `--gzip=false` too.
    assert!(!long.contains("[="), "{long}");
    assert!(at(&long, "--explain") < at(&long, "--gzip"), "{long}");
    assert!(at(&long, "--gzip") < at(&long, "--google-submit"), "{long}");
}

/// groff reads the man page without a warning (`-ww`: all of them).
#[test]
fn the_man_page_has_no_groff_warning() {
    let groff = std::process::Command::new("groff")
        .args(["-ww", "-man", "-Tutf8"])
        .arg(Path::new(env!("CARGO_MANIFEST_DIR")).join("man/sitemapgen.1"))
        .output();
    let Ok(groff) = groff else {
        skip_outside_ci("no groff (Debian/Ubuntu: groff-base)");
        return;
    };
    assert!(groff.status.success());
    let warnings = String::from_utf8_lossy(&groff.stderr);
    assert!(warnings.is_empty(), "{warnings}");
}

/// The names of the `#[test]` functions in FILE (`tests/cli/…`, `tests/packages/…`).
fn tests_in(file: &str) -> BTreeSet<String> {
    let text = read(file);
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

/// The tests that the "Failure behaviour" tables (`doc/failures.md`) name, in their last
/// column.
fn tests_in_the_failure_tables() -> BTreeSet<String> {
    let guide = read("doc/failures.md");
    let section = &guide[guide.find("\n## Failure behaviour\n").expect("the section")..];
    let end = section[1..]
        .find("\n## ")
        .map_or(section.len(), |end| end + 1);
    let section = &section[..end];
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
    // The CLI's tests, and the packages' (the plugins', the launchers', the Action's).
    let mut existing = BTreeSet::new();
    for folder in ["tests/cli", "tests/packages"] {
        let files = fs::read_dir(Path::new(env!("CARGO_MANIFEST_DIR")).join(folder)).unwrap();
        for file in files {
            let name = file.unwrap().file_name();
            let name = name.to_string_lossy();
            if name.ends_with(".rs") {
                existing.extend(tests_in(&format!("{folder}/{name}")));
            }
        }
    }
    let unknown: Vec<_> = documented.difference(&existing).collect();
    assert!(
        unknown.is_empty(),
        "doc/failures.md names no such tests: {unknown:?}"
    );
    let faults = tests_in("tests/cli/faults.rs")
        .into_iter()
        .chain(tests_in("tests/cli/failures.rs"));
    let missing: Vec<_> = faults.filter(|t| !documented.contains(t)).collect();
    assert!(
        missing.is_empty(),
        "doc/failures.md's failure tables lack {missing:?}"
    );
}

/// Roff as a reader sees it: the words of a paragraph, fonts dropped, on one line.
fn roff_text(lines: &[&str]) -> String {
    let mut text = String::new();
    for line in lines {
        let words = match line.split_once(' ') {
            Some((macro_, rest)) if line.starts_with('.') => {
                let args = roff_args(rest);
                match macro_ {
                    ".B" | ".I" => args.join(" "),
                    ".BR" | ".IR" | ".BI" | ".RB" | ".RI" | ".IB" => args.concat(),
                    _ => continue,
                }
            }
            None if line.starts_with('.') => continue,
            _ => line.to_string(),
        };
        text.push(' ');
        text.push_str(&words);
    }
    let text = ["\\fI", "\\fB", "\\fR", "\\fP", "\\&"]
        .iter()
        .fold(text, |text, font| text.replace(font, ""));
    normalise(&text.replace("\\-", "-").replace("\\e", "\\"))
}

/// A roff macro's arguments: words, or "quoted words".
fn roff_args(text: &str) -> Vec<String> {
    let mut args = Vec::new();
    let mut rest = text.trim_start();
    while !rest.is_empty() {
        let (arg, after) = match rest.strip_prefix('"') {
            Some(quoted) => quoted.split_once('"').unwrap_or((quoted, "")),
            None => rest.split_once(' ').unwrap_or((rest, "")),
        };
        args.push(arg.to_string());
        rest = after.trim_start();
    }
    args
}

/// Text compared by its words: no code quotes, one space between words.
fn normalise(text: &str) -> String {
    text.replace('`', "")
        .split_whitespace()
        .collect::<Vec<_>>()
        .join(" ")
}

/// The man page's OPTIONS paragraphs, by each option's long name (and DIR).
fn man_options() -> BTreeMap<String, String> {
    let man = read("man/sitemapgen.1");
    let lines: Vec<&str> = man.lines().collect();
    let mut options = BTreeMap::new();
    for (at, line) in lines.iter().enumerate() {
        if *line != ".TP" {
            continue;
        }
        let tag = lines[at + 1].replace("\\-", "-");
        let body: Vec<&str> = lines[at + 2..]
            .iter()
            .take_while(|line| !line.starts_with(".TP") && !line.starts_with(".SH"))
            .copied()
            .collect();
        for name in long_options(&tag) {
            options.insert(name, roff_text(&body));
        }
    }
    options
}

/// The facts of a text a reader acts on: flags, metavariables (DIR, URL), numbers and dates,
/// file names and paths, XML elements.
fn terms(text: &str) -> BTreeSet<String> {
    let mut terms = BTreeSet::new();
    for word in text.split(|c: char| c.is_whitespace() || "();:'`\"[]>".contains(c)) {
        let word = word
            .trim_end_matches(['.', ',', '?'])
            .trim_start_matches(['.', ',']);
        let upper = word.len() > 1 && word.chars().all(|c| c.is_ascii_uppercase() || c == '_');
        let path = word.contains('/') || word.trim_start_matches('*').contains('.');
        if word.starts_with('-') && word.len() > 1
            || word.starts_with('<')
            || upper
            || word.chars().any(|c| c.is_ascii_digit())
            || path
        {
            terms.insert(word.to_string());
        }
    }
    terms
}

/// Each option's paragraph in the man page says what its --help text says: every flag,
/// metavariable, number, file name and element the help names is in it (the man page says
/// more, in sentences of its own).
#[test]
fn each_options_man_paragraph_names_what_its_help_text_names() {
    let man = man_options();
    let mut differ = Vec::new();
    for arg in sitemapgen::cli::command().get_arguments() {
        let help = arg.get_long_help().or(arg.get_help());
        let (Some(long), Some(help)) = (arg.get_long(), help) else {
            continue;
        };
        let Some(paragraph) = man.get(&format!("--{long}")) else {
            differ.push(format!("--{long}: no paragraph in OPTIONS"));
            continue;
        };
        let missing: Vec<String> = terms(&normalise(&help.to_string()))
            .difference(&terms(paragraph))
            .cloned()
            .collect();
        if !missing.is_empty() {
            differ.push(format!("--{long}: {missing:?}"));
        }
    }
    assert!(
        differ.is_empty(),
        "man/sitemapgen.1's OPTIONS lack what --help says:\n{}",
        differ.join("\n")
    );
}
