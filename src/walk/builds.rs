//! `--sub-builds`: the folders below DIR that hold a sitemap of their own (a version's or a
//! language's build, deployed beside the others), found before the walk so that the walk
//! stays out of them; and the aliases a versioning tool (mike's `versions.json`) names.
//!
//! A folder counts when it holds one of `SITEMAP_NAMES` as a regular file and (with
//! `--sub-build`) matches a glob; the outermost folder wins, so a build's own nested
//! sitemaps stay its business. Symlinks are not followed: mike's `latest` alias is one.

use std::fs;
use std::path::{Path, PathBuf};

use anyhow::{Context, Result};
use globset::{Candidate, GlobSet, GlobSetBuilder};

use super::rules::{Apart, Rules, compile};
use crate::entry::SubBuild;
use crate::io::{input, native};

/// The names a build's sitemap has, in the order one is chosen when a folder holds several:
/// MkDocs, Sphinx and Docusaurus write `sitemap.xml` (MkDocs a `.gz` beside it), Astro
/// `sitemap-index.xml`, WordPress-style tools `sitemap_index.xml`.
pub const SITEMAP_NAMES: &[&str] = &[
    "sitemap.xml",
    "sitemap-index.xml",
    "sitemap_index.xml",
    "sitemap.xml.gz",
    "sitemap-index.xml.gz",
    "sitemap_index.xml.gz",
];

/// mike's list of versions at DIR's root.
const VERSIONS_JSON: &str = "versions.json";

/// A larger versions.json is no list of versions.
const MAX_VERSIONS_JSON: u64 = 1 << 20;

/// The globs of `--sub-build`, none meaning every sub-build.
#[derive(Debug)]
pub struct Choose(Option<GlobSet>);

impl Choose {
    pub fn new(globs: &[String]) -> Result<Choose> {
        if globs.is_empty() {
            return Ok(Choose(None));
        }
        let mut set = GlobSetBuilder::new();
        for glob in globs {
            set.add(compile(glob.trim_end_matches('/'), "--sub-build")?);
        }
        Ok(Choose(Some(set.build()?)))
    }

    fn takes(&self, rel: &Path) -> bool {
        self.0
            .as_ref()
            .is_none_or(|set| set.is_match_candidate(&Candidate::new(rel)))
    }
}

/// What was found below DIR.
#[derive(Debug, Default)]
pub struct Found {
    /// In walk order.
    pub builds: Vec<SubBuild>,
    /// Alias folders (a copy or redirects of a version), with their version.
    pub aliases: Vec<(PathBuf, String)>,
    /// What the run should say of what it found: a versions.json it could not read, a
    /// version without a sitemap.
    pub problems: Vec<String>,
}

impl Found {
    /// The folders the walk stays out of.
    pub fn apart(&self) -> Vec<(PathBuf, Apart)> {
        let builds = self.builds.iter().map(|b| (b.rel.clone(), Apart::SubBuild));
        let aliases = self
            .aliases
            .iter()
            .map(|(rel, version)| (rel.clone(), Apart::Alias(version.clone())));
        builds.chain(aliases).collect()
    }
}

/// Finds the sub-builds below `root` that `choose` takes, leaving out what `rules` keep the
/// walk out of, and the aliases of `root/versions.json`.
pub fn find(root: &Path, choose: &Choose, rules: &Rules) -> Result<Found> {
    let mut found = Found::default();
    let versions = versions(root, &mut found.problems);
    for (alias, version) in &versions.aliases {
        let rel = PathBuf::from(alias);
        // A symlink is skipped by the walk anyway (unless --follow), and nothing there is
        // read as a sub-build.
        if fs::symlink_metadata(root.join(&rel)).is_ok() {
            found.aliases.push((rel, version.clone()));
        }
    }
    let mut pending = vec![PathBuf::new()];
    while let Some(rel) = pending.pop() {
        let dir = root.join(&rel);
        let mut names: Vec<_> = fs::read_dir(&dir)
            .with_context(|| format!("cannot read {}", dir.display()))?
            .map(|entry| entry.map(|e| e.file_name()))
            .collect::<Result<_, _>>()
            .with_context(|| format!("cannot read {}", dir.display()))?;
        names.sort();
        if !rel.as_os_str().is_empty()
            && choose.takes(&rel)
            && let Some(sitemap) = SITEMAP_NAMES.iter().copied().find(|name| {
                names.iter().any(|n| n == *name)
                    && fs::symlink_metadata(dir.join(name)).is_ok_and(|m| m.is_file())
            })
        {
            found.builds.push(SubBuild { rel, sitemap });
            continue;
        }
        // Depth first, in name order: pushed in reverse.
        for name in names.iter().rev() {
            let child = native::join_rel(&rel, name.as_ref());
            let is_dir = fs::symlink_metadata(root.join(&child)).is_ok_and(|m| m.is_dir());
            let alias = found.aliases.iter().any(|(a, _)| *a == child);
            if is_dir && !alias && rules.skip_dir(&child).is_none() {
                pending.push(child);
            }
        }
    }
    found.builds.sort_by(|a, b| a.rel.cmp(&b.rel));
    for version in &versions.versions {
        if !found.builds.iter().any(|b| b.rel == Path::new(version)) {
            found.problems.push(format!(
                "version {version} of {VERSIONS_JSON} has no sub-build with a sitemap: its \
                 pages, if any, are listed as the root's own"
            ));
        }
    }
    Ok(found)
}

/// What `versions.json` says: each version's folder and each alias's version.
#[derive(Debug, Default)]
struct Versions {
    versions: Vec<String>,
    aliases: Vec<(String, String)>,
}

/// mike's `versions.json` at `root`, if there is one: `[{"version": "3.0", "title": "3.0",
/// "aliases": ["latest"]}, …]`. One that cannot be read is a problem, and names nothing.
fn versions(root: &Path, problems: &mut Vec<String>) -> Versions {
    let path = root.join(VERSIONS_JSON);
    let text = match input::read_file(&path, MAX_VERSIONS_JSON) {
        Ok(Some(text)) => text,
        Ok(None) => return Versions::default(),
        Err(err) => {
            problems.push(format!("cannot read {}: {err}", path.display()));
            return Versions::default();
        }
    };
    let parsed: Option<Vec<serde_json::Value>> = serde_json::from_slice(&text).ok();
    let Some(list) = parsed else {
        problems.push(format!(
            "{} is not a list of versions as mike writes it: its aliases are not known",
            path.display()
        ));
        return Versions::default();
    };
    let mut versions = Versions::default();
    // A name must be one folder of DIR's root.
    let folder =
        |name: &&str| !name.is_empty() && !name.contains('/') && !matches!(*name, "." | "..");
    for entry in &list {
        let Some(version) = entry["version"].as_str().filter(folder) else {
            continue;
        };
        let aliases = entry["aliases"].as_array().into_iter().flatten();
        for alias in aliases.filter_map(|a| a.as_str()).filter(folder) {
            if alias != version {
                versions
                    .aliases
                    .push((alias.to_string(), version.to_string()));
            }
        }
        versions.versions.push(version.to_string());
    }
    versions
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn versions_json_names_versions_and_aliases_and_nothing_outside_the_root() {
        let dir = tempfile::tempdir().unwrap();
        fs::write(
            dir.path().join(VERSIONS_JSON),
            r#"[{"version": "3.0", "title": "3.0 (new)", "aliases": ["latest", "../up", "3.0"]},
                {"version": "2.0", "title": "2.0", "aliases": []}, {"version": "a/b"}]"#,
        )
        .unwrap();
        let mut problems = Vec::new();
        let found = versions(dir.path(), &mut problems);
        assert_eq!(found.versions, ["3.0", "2.0"]);
        assert_eq!(
            found.aliases,
            [(String::from("latest"), String::from("3.0"))]
        );
        assert!(problems.is_empty());
        fs::write(dir.path().join(VERSIONS_JSON), "{}").unwrap();
        let found = versions(dir.path(), &mut problems);
        assert!(found.versions.is_empty());
        assert!(
            problems[0].contains("is not a list of versions"),
            "{problems:?}"
        );
    }
}
