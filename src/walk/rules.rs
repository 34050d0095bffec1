//! Glob rules: which files are pages and which are left out (the values and groups of the
//! pages listed are decide's rules, `decide::rules`, compiled as these are).
//!
//! Globs match the `/`-separated path relative to DIR, as in .gitignore: a glob without `/`
//! matches a name at any depth, a glob with `/` is anchored at DIR, a final `/` matches
//! directories only, and a directory that matches an exclude (or `dir/**`) is not entered.

use std::fmt;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use anyhow::{Context, Result, bail};
use globset::{Candidate, Glob, GlobBuilder, GlobSet, GlobSetBuilder};

use crate::html;
use crate::io::atomic::is_temp_name;
use crate::report::Reason;

/// 404 pages and search-engine ownership verification pages are never meant to be indexed.
/// A site's 404 page sits at its root, or at a locale's root (`fr/`, `pt-br/`, `zh_CN/`),
/// where servers look for it; a page named 404 deeper down is a page like any other (Hugo's
/// docs on 404 templates). Its head cannot tell: real 404 pages say index and name
/// themselves canonical too.
pub const DEFAULT_EXCLUDES: &[&str] = &[
    "/404.html",
    "/404.htm",
    // A 404 page built as a directory index (Sphinx dirhtml, some Hugo themes).
    "/404/index.html",
    "/404/index.htm",
    "/{[a-z][a-z],[a-z][a-z][a-z],[a-z][a-z][-_]*}/404.html",
    "/{[a-z][a-z],[a-z][a-z][a-z],[a-z][a-z][-_]*}/404.htm",
    "/{[a-z][a-z],[a-z][a-z][a-z],[a-z][a-z][-_]*}/404/index.html",
    "/{[a-z][a-z],[a-z][a-z][a-z],[a-z][a-z][-_]*}/404/index.htm",
    "google[0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f]\
     [0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f].html",
    "yandex_*.html",
];

/// Why a file or directory is not in the sitemap.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Skip<'a> {
    Hidden,
    OwnOutput,
    NotIncluded,
    Excluded(&'a ExcludeGlob),
    /// A folder `--sub-builds` lists by its own sitemap, or an alias of a version.
    Apart(&'a Apart),
}

impl Skip<'_> {
    /// How the summary counts a file left out for this.
    pub fn reason(&self) -> Reason {
        match self {
            Skip::Hidden => Reason::Hidden,
            Skip::NotIncluded | Skip::OwnOutput => Reason::NotPage,
            Skip::Excluded(glob) if glob.default => Reason::DefaultExcluded,
            Skip::Excluded(_) | Skip::Apart(_) => Reason::Excluded,
        }
    }
}

impl fmt::Display for Skip<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Skip::Hidden => f.write_str("hidden (use --hidden)"),
            Skip::OwnOutput => f.write_str("sitemapgen's own output"),
            Skip::NotIncluded => f.write_str("matches no --include glob"),
            Skip::Excluded(glob) if glob.default => {
                write!(
                    f,
                    "default exclude {} (use --no-default-excludes)",
                    glob.text
                )
            }
            Skip::Excluded(glob) => write!(f, "--exclude {}", glob.text),
            Skip::Apart(Apart::SubBuild) => {
                f.write_str("a sub-build, listed in the index by its own sitemap")
            }
            Skip::Apart(Apart::Alias(version)) => {
                write!(f, "an alias of version {version} (versions.json)")
            }
        }
    }
}

/// Why `--sub-builds` keeps the walk out of a folder.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Apart {
    SubBuild,
    /// An alias of this version: the same pages again, or redirects to them.
    Alias(String),
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ExcludeGlob {
    text: String,
    default: bool,
}

pub struct RuleSpec<'a> {
    pub includes: &'a [String],
    /// --include-also: more pages, besides the includes or the defaults.
    pub also: &'a [String],
    pub excludes: &'a [String],
    pub default_excludes: bool,
    pub hidden: bool,
    /// Our own outputs, which the walk leaves out: handed in, as the walk knows no output.
    pub own_output: Option<OwnOutput>,
}

/// Whether a file, by its directory relative to DIR and its name, is an output of ours (the
/// sitemap, a shard, a group's sitemap, when they lie inside DIR).
#[derive(Clone)]
pub struct OwnOutput(Arc<IsOurs>);

/// The predicate itself: the directory's path relative to DIR, then the file's name.
type IsOurs = dyn Fn(&[u8], &[u8]) -> bool + Send + Sync;

impl OwnOutput {
    pub fn new(is_ours: impl Fn(&[u8], &[u8]) -> bool + Send + Sync + 'static) -> OwnOutput {
        OwnOutput(Arc::new(is_ours))
    }
}

impl fmt::Debug for OwnOutput {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("OwnOutput(…)")
    }
}

#[derive(Debug)]
pub struct Rules {
    hidden: bool,
    own_output: Option<OwnOutput>,
    include: GlobSet,
    excludes: Excludes,
    /// The folders `--sub-builds` sets apart, sorted.
    apart: Vec<(PathBuf, Apart)>,
}

/// The exclude globs (the defaults and `--exclude`), also asked about images' files.
#[derive(Debug, Clone)]
pub struct Excludes {
    /// Matches files, and directories whose whole subtree is left out.
    exclude: Ordered,
    /// Patterns written with a final `/`: directories only.
    exclude_dirs: Ordered,
    /// The exclude glob behind each pattern of `exclude` and `exclude_dirs`, by index.
    exclude_globs: Vec<ExcludeGlob>,
    exclude_dir_globs: Vec<ExcludeGlob>,
}

/// Globs of which the first that matches counts. A glob without `/` is matched against
/// the name alone: it means `**/NAME`, and a regex run over a name that fails at its first
/// byte costs far less than one run over the whole path (a default exclude such as
/// `yandex_*.html` is tried on every page).
#[derive(Debug, Clone)]
struct Ordered {
    names: GlobSet,
    paths: GlobSet,
    /// The index of each pattern of `names` and `paths` among all.
    name_index: Vec<usize>,
    path_index: Vec<usize>,
}

struct OrderedBuilder {
    names: GlobSetBuilder,
    paths: GlobSetBuilder,
    name_index: Vec<usize>,
    path_index: Vec<usize>,
}

impl OrderedBuilder {
    fn new() -> Self {
        OrderedBuilder {
            names: GlobSetBuilder::new(),
            paths: GlobSetBuilder::new(),
            name_index: Vec::new(),
            path_index: Vec::new(),
        }
    }

    /// Adds pattern `text` (anchored at DIR if it has a `/` or `anchored`) as the next.
    fn add(&mut self, text: &str, anchored: bool, flag: &str) -> Result<()> {
        let index = self.name_index.len() + self.path_index.len();
        if anchored || is_anchored(text) {
            self.paths.add(compile_anchored(text, true, flag)?);
            self.path_index.push(index);
        } else {
            check_nonempty(text, text, flag)?;
            self.names
                .add(build(text).with_context(|| invalid(text, flag))?);
            self.name_index.push(index);
        }
        Ok(())
    }

    fn build(self) -> Result<Ordered> {
        Ok(Ordered {
            names: self.names.build()?,
            paths: self.paths.build()?,
            name_index: self.name_index,
            path_index: self.path_index,
        })
    }
}

impl Ordered {
    fn is_empty(&self) -> bool {
        self.names.is_empty() && self.paths.is_empty()
    }

    /// The index of the first pattern that matches `rel` (whose candidate is `candidate`).
    fn first(&self, rel: &Path, candidate: &Candidate) -> Option<usize> {
        let by_name = match self.names.is_empty() {
            true => None,
            false => {
                let name = Candidate::from_bytes(split_name(rel).1);
                first_match(&self.names, &self.name_index, &name)
            }
        };
        let by_path = first_match(&self.paths, &self.path_index, candidate);
        by_name.into_iter().chain(by_path).min()
    }
}

fn first_match(set: &GlobSet, index: &[usize], candidate: &Candidate) -> Option<usize> {
    if set.is_empty() || !set.is_match_candidate(candidate) {
        return None;
    }
    Some(index[*set.matches_candidate(candidate).first()?])
}

impl Rules {
    pub fn new(spec: &RuleSpec) -> Result<Self> {
        let mut include = GlobSetBuilder::new();
        if spec.includes.is_empty() {
            for text in html::PAGE_GLOBS {
                include.add(compile(text, "--include")?);
            }
        } else {
            for text in spec.includes {
                if text.ends_with('/') {
                    bail!("--include {text:?} names a directory; globs select files");
                }
                include.add(compile(text, "--include")?);
            }
        }
        for text in spec.also {
            if text.ends_with('/') {
                bail!("--include-also {text:?} names a directory; globs select files");
            }
            include.add(compile(text, "--include-also")?);
        }

        let defaults = DEFAULT_EXCLUDES
            .iter()
            .filter(|_| spec.default_excludes)
            .map(|text| (text.to_string(), true));
        let users = spec.excludes.iter().map(|text| (text.clone(), false));
        let (mut exclude, mut exclude_dirs) = (OrderedBuilder::new(), OrderedBuilder::new());
        let (mut exclude_globs, mut exclude_dir_globs) = (Vec::new(), Vec::new());
        for (text, default) in defaults.chain(users) {
            let glob = ExcludeGlob {
                text: text.clone(),
                default,
            };
            if let Some(dir) = text.strip_suffix('/') {
                exclude_dirs.add(dir, false, "--exclude")?;
                exclude_dir_globs.push(glob);
                continue;
            }
            exclude.add(&text, false, "--exclude")?;
            exclude_globs.push(glob.clone());
            if let Some(dir) = text.strip_suffix("/**") {
                // `drafts/**` also names `drafts` itself, so the walk need not enter it.
                exclude.add(dir, true, "--exclude")?;
                exclude_globs.push(glob);
            }
        }

        Ok(Rules {
            hidden: spec.hidden,
            own_output: spec.own_output.clone(),
            include: include.build()?,
            excludes: Excludes {
                exclude: exclude.build()?,
                exclude_dirs: exclude_dirs.build()?,
                exclude_globs,
                exclude_dir_globs,
            },
            apart: Vec::new(),
        })
    }

    /// Keeps the walk out of `folders` (relative to DIR): sub-builds and aliases.
    pub fn set_apart(&mut self, mut folders: Vec<(PathBuf, Apart)>) {
        folders.sort_by(|a, b| a.0.cmp(&b.0));
        self.apart = folders;
    }

    fn apart(&self, rel: &Path) -> Option<Skip<'_>> {
        let at = self
            .apart
            .binary_search_by(|(dir, _)| dir.as_path().cmp(rel));
        at.ok().map(|at| Skip::Apart(&self.apart[at].1))
    }

    pub fn excludes(&self) -> &Excludes {
        &self.excludes
    }

    /// Whether the walk must stay out of directory `rel`.
    pub fn skip_dir(&self, rel: &Path) -> Option<Skip<'_>> {
        if !self.hidden && is_hidden(rel) {
            return Some(Skip::Hidden);
        }
        self.excludes.dir(rel).or_else(|| self.apart(rel))
    }

    /// Whether file `rel` is left out. Its directories are checked by `skip_dir`.
    pub fn skip_file(&self, rel: &Path, candidate: &Candidate) -> Option<Skip<'_>> {
        let (dir, name) = split_name(rel);
        if self.is_own_output(dir, name) || is_temp_name(name) {
            return Some(Skip::OwnOutput);
        }
        if !self.hidden && name.starts_with(b".") {
            return Some(Skip::Hidden);
        }
        // The include set first: it is cheap (extensions, mostly) and rules out the assets.
        if !self.include.is_match_candidate(candidate) {
            return Some(Skip::NotIncluded);
        }
        self.excludes.file(rel, candidate)
    }

    /// Whether the rules make file `rel` a page, leaving aside that it may be an output of
    /// ours (which a run never lists): an output must not be a page of the site.
    pub fn selects(&self, rel: &Path) -> bool {
        let candidate = Candidate::new(rel);
        let (_, name) = split_name(rel);
        (self.hidden || !name.starts_with(b"."))
            && self.include.is_match_candidate(&candidate)
            && self.excludes.file(rel, &candidate).is_none()
    }

    /// The output, or a shard of it: an earlier run's files are not pages either.
    fn is_own_output(&self, dir: &[u8], name: &[u8]) -> bool {
        self.own_output
            .as_ref()
            .is_some_and(|own| (own.0)(dir, name))
    }
}

impl Excludes {
    fn dir(&self, rel: &Path) -> Option<Skip<'_>> {
        let candidate = Candidate::new(rel);
        if let Some(i) = self.exclude_dirs.first(rel, &candidate) {
            return Some(Skip::Excluded(&self.exclude_dir_globs[i]));
        }
        self.file(rel, &candidate)
    }

    fn file(&self, rel: &Path, candidate: &Candidate) -> Option<Skip<'_>> {
        let i = self.exclude.first(rel, candidate)?;
        Some(Skip::Excluded(&self.exclude_globs[i]))
    }

    /// Whether the file at `rel` (relative to DIR) is left out by an exclude glob: itself,
    /// or one of the directories above it, which the walk does not enter.
    pub fn leave_out(&self, rel: &Path) -> bool {
        if self.exclude.is_empty() && self.exclude_dirs.is_empty() {
            return false;
        }
        let dirs = rel
            .ancestors()
            .skip(1)
            .filter(|dir| !dir.as_os_str().is_empty());
        dirs.into_iter().any(|dir| self.dir(dir).is_some())
            || self.file(rel, &Candidate::new(rel)).is_some()
    }
}

fn is_hidden(rel: &Path) -> bool {
    split_name(rel).1.starts_with(b".")
}

/// A path's directory and name, as bytes (cut at its last `/`, or `\\` too on Windows) (the walk's paths need no normalising,
/// and `Path::parent` costs a component parse on every file).
pub fn split_name(rel: &Path) -> (&[u8], &[u8]) {
    let bytes = rel.as_os_str().as_encoded_bytes();
    match bytes
        .iter()
        .rposition(|&b| std::path::is_separator(char::from(b)))
    {
        Some(slash) => (&bytes[..slash], &bytes[slash + 1..]),
        None => (&[], bytes),
    }
}

/// Compiles a glob with .gitignore anchoring: one without `/` matches at any depth.
pub(crate) fn compile(text: &str, flag: &str) -> Result<Glob> {
    compile_anchored(text, is_anchored(text), flag)
}

/// Whether glob `text` is anchored at DIR: it has a `/` (a final one aside).
fn is_anchored(text: &str) -> bool {
    text.trim_end_matches('/').contains('/')
}

fn compile_anchored(text: &str, anchored: bool, flag: &str) -> Result<Glob> {
    let pattern = match text.strip_prefix('/') {
        Some(rest) => rest.to_string(),
        None if anchored => text.to_string(),
        None => format!("**/{text}"),
    };
    check_nonempty(text, &pattern, flag)?;
    build(&pattern).with_context(|| invalid(text, flag))
}

fn invalid(text: &str, flag: &str) -> String {
    format!("{flag} {text:?} is not a valid glob")
}

fn check_nonempty(text: &str, pattern: &str, flag: &str) -> Result<()> {
    if text.is_empty() || pattern.is_empty() {
        bail!("{flag} needs a non-empty glob");
    }
    Ok(())
}

fn build(pattern: &str) -> Result<Glob, globset::Error> {
    GlobBuilder::new(pattern)
        .literal_separator(true)
        .backslash_escape(true)
        .build()
}

/// Checks a `--include` or `--exclude` glob as the rules will compile it.
pub fn check_glob(text: &str, flag: &str) -> Result<()> {
    if flag == "--include" && text.ends_with('/') {
        bail!("--include {text:?} names a directory; globs select files");
    }
    compile(text.strip_suffix('/').unwrap_or(text), flag).map(drop)
}

#[cfg(test)]
mod tests {
    use std::path::PathBuf;

    use super::*;
    use crate::outputs::Files;

    fn rules(excludes: &[&str]) -> Rules {
        let excludes: Vec<String> = excludes.iter().map(|s| s.to_string()).collect();
        let path = PathBuf::from("site/sitemap.xml");
        let files = Files::new(
            path.clone(),
            path,
            (crate::outputs::Format::Xml, false),
            &[],
            false,
        );
        Rules::new(&RuleSpec {
            includes: &[],
            also: &[],
            excludes: &excludes,
            default_excludes: true,
            hidden: false,
            own_output: Some(OwnOutput::new(move |dir, name| {
                dir.is_empty() && files.is_ours(crate::io::native::os_str(name))
            })),
        })
        .unwrap()
    }

    fn file_skip(rules: &Rules, rel: &str) -> Option<String> {
        rules
            .skip_file(Path::new(rel), &Candidate::new(rel))
            .map(|s| s.to_string())
    }

    #[test]
    fn unanchored_globs_match_at_any_depth_and_anchored_ones_at_the_root() {
        let r = rules(&["secret.html", "/top.html", "a/b.html"]);
        assert!(file_skip(&r, "x/y/secret.html").is_some());
        assert!(file_skip(&r, "top.html").is_some());
        assert_eq!(file_skip(&r, "x/top.html"), None);
        assert!(file_skip(&r, "a/b.html").is_some());
        assert_eq!(file_skip(&r, "x/a/b.html"), None);
    }

    #[test]
    fn the_first_matching_glob_is_named_whether_it_matches_the_name_or_the_path() {
        let r = rules(&["docs/*.html", "a.html", "b*.html", "/b.html"]);
        let first = |rel| file_skip(&r, rel).unwrap();
        assert_eq!(first("docs/a.html"), "--exclude docs/*.html");
        assert_eq!(first("x/a.html"), "--exclude a.html");
        assert_eq!(first("b.html"), "--exclude b*.html");
        let r = rules(&["b.html", "docs/**", "*.html"]);
        let first = |rel| file_skip(&r, rel).unwrap();
        assert_eq!(first("docs/b.html"), "--exclude b.html");
        assert_eq!(first("docs/c.html"), "--exclude docs/**");
        // The default globs come before --exclude's.
        assert_eq!(
            first("404.html"),
            "default exclude /404.html (use --no-default-excludes)"
        );
        let dir = |rel| r.skip_dir(Path::new(rel)).map(|s| s.to_string());
        assert_eq!(dir("docs").as_deref(), Some("--exclude docs/**"));
        assert_eq!(dir("x/b.html").as_deref(), Some("--exclude b.html"));
        assert_eq!(dir("x/docs"), None);
    }

    #[test]
    fn directory_globs_prune_subtrees() {
        let r = rules(&["drafts/", "old/**", "*.tmp.html"]);
        assert!(r.skip_dir(Path::new("blog/drafts")).is_some());
        assert!(r.skip_dir(Path::new("old")).is_some());
        assert_eq!(r.skip_dir(Path::new("blog/old")), None);
        assert_eq!(
            file_skip(&r, "drafts").as_deref(),
            Some("matches no --include glob"),
            "a dir-only glob does not exclude a file of that name"
        );
        assert!(file_skip(&r, "old/a.html").is_some());
        assert!(r.skip_dir(Path::new(".git")).is_some());
    }

    #[test]
    fn a_file_is_left_out_by_its_own_glob_or_a_directory_above_it() {
        let r = rules(&["drafts/", "old/**", "*.tmp.png", "/top/x.png"]);
        let excludes = r.excludes();
        for rel in [
            "blog/drafts/a.png",
            "drafts/x/y.png",
            "old/a.png",
            "a/b.tmp.png",
            "top/x.png",
        ] {
            assert!(excludes.leave_out(Path::new(rel)), "{rel} kept");
        }
        for rel in ["blog/old/a.png", "drafts", "a/top/x.png", "img/a.png"] {
            assert!(!excludes.leave_out(Path::new(rel)), "{rel} left out");
        }
    }

    #[test]
    fn default_excludes_and_own_files() {
        let r = rules(&[]);
        for rel in [
            "404.html",
            "404/index.html",
            "en/404.html",
            "fil/404.htm",
            "pt-BR/404.html",
            "zh_CN/404/index.html",
            "zh-hans/404/index.htm",
            "google0123456789abcdef.html",
            "yandex_1f2e.html",
            "sitemap.xml",
            "sitemap-3.xml.gz",
            "a/.sitemapgen-x1.tmp",
        ] {
            assert!(file_skip(&r, rel).is_some(), "{rel} not skipped");
        }
        assert_eq!(file_skip(&r, "google0123.html"), None);
        // A page about 404s, below the root and the locales' roots.
        for rel in [
            "templates/404/index.html",
            "en/templates/404/index.html",
            "docs/404.html",
            "en/latest/404.html",
            "En/404.html",
            "e/404.html",
            "deutsch/404.html",
        ] {
            assert_eq!(file_skip(&r, rel), None, "{rel}");
        }
        assert_eq!(
            file_skip(&r, "style.css").as_deref(),
            Some("matches no --include glob")
        );
    }
}
