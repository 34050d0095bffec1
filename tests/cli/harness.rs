//! Runs the built binary on sites in temp dirs: fixture copies or trees made at run time.

use std::ffi::OsStr;
use std::fs;
use std::io::Write;
use std::os::unix::ffi::OsStrExt;
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::sync::OnceLock;

use tempfile::TempDir;

pub const BASE: &str = "https://example.com/";

/// A sitemap an earlier run left: the only kind of file an output may replace.
pub const OLD_SITEMAP: &str = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n\
    <urlset xmlns=\"http://www.sitemaps.org/schemas/sitemap/0.9\"></urlset>\n";

/// The program under test: cargo's build, or the one `SITEMAPGEN_TEST_BIN` names (the
/// Windows build run under Wine: scripts/windows.sh).
pub fn bin() -> PathBuf {
    std::env::var_os("SITEMAPGEN_TEST_BIN").map_or_else(
        || PathBuf::from(env!("CARGO_BIN_EXE_sitemapgen")),
        PathBuf::from,
    )
}

/// Whether the program under test is the Windows build (scripts/windows.sh sets
/// `SITEMAPGEN_TEST_OS=windows` beside `SITEMAPGEN_TEST_BIN`).
pub fn windows_binary() -> bool {
    std::env::var_os("SITEMAPGEN_TEST_OS").is_some_and(|os| os == "windows")
}

/// How the program under test words an OS error it passes on (std's text): as on Linux, or
/// as the Windows build does under Wine (the system's text, which Windows itself words
/// otherwise; a folder that is a file is found out by the build, which says only the kind).
pub fn os_says(linux: &'static str) -> &'static str {
    if !windows_binary() {
        return linux;
    }
    match linux {
        "No such file or directory" => "File not found.",
        "Not a directory" => "not a directory",
        other => panic!("no Windows wording is known for {other:?}"),
    }
}

pub fn fixture_dir(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("fixtures")
        .join(name)
}

/// A temp dir holding a site at `root` (`<temp>/site`); other files may sit beside it.
pub struct Site {
    temp: TempDir,
    pub root: PathBuf,
}

impl Site {
    pub fn empty() -> Site {
        let temp = tempfile::Builder::new()
            .prefix("sitemapgen-test-")
            .tempdir()
            .expect("temp dir");
        let root = temp.path().join("site");
        fs::create_dir(&root).unwrap();
        Site { temp, root }
    }

    /// A copy of `fixtures/NAME`, so a test never writes into the committed tree.
    pub fn fixture(name: &str) -> Site {
        let site = Site::empty();
        copy_tree(&fixture_dir(name), &site.root);
        site
    }

    /// A site with these pages (and their directories), each a small HTML file.
    pub fn with_pages(pages: &[&str]) -> Site {
        let site = Site::empty();
        for page in pages {
            site.page(page);
        }
        site
    }

    /// The temp dir around the site, for outputs and lists that live outside DIR.
    pub fn outside(&self) -> &Path {
        self.temp.path()
    }

    /// Writes `contents` at `rel` (raw bytes: names need not be UTF-8), making directories.
    pub fn write(&self, rel: impl AsRef<[u8]>, contents: impl AsRef<[u8]>) -> PathBuf {
        let path = self.path(rel);
        fs::create_dir_all(path.parent().unwrap()).unwrap();
        fs::write(&path, contents).unwrap();
        path
    }

    pub fn page(&self, rel: impl AsRef<[u8]>) -> PathBuf {
        self.write(rel, "<!doctype html><title>page</title>\n")
    }

    pub fn path(&self, rel: impl AsRef<[u8]>) -> PathBuf {
        self.root.join(OsStr::from_bytes(rel.as_ref()))
    }

    pub fn sitemap_path(&self) -> PathBuf {
        self.root.join("sitemap.xml")
    }

    /// `rel` in the site as the program under test names it in a message: DIR as it was
    /// given, then `rel` joined with the platform's separator (`\` in the Windows build).
    pub fn shown(&self, rel: &str) -> String {
        let separator = if windows_binary() { "\\" } else { "/" };
        let rel = rel.replace('/', separator);
        format!("{}{separator}{rel}", self.root.display())
    }

    /// `sitemapgen ARGS DIR` with the default base URL unless ARGS names one.
    pub fn run(&self, args: &[&str]) -> Run {
        self.command(args).run()
    }

    pub fn command(&self, args: &[&str]) -> Cmd {
        let mut cmd = Cmd::new();
        if !args
            .iter()
            .any(|a| *a == "-b" || a.starts_with("--base-url"))
        {
            cmd.args(["-b", BASE]);
        }
        cmd.args(args);
        cmd.dir = Some(self.root.clone());
        // Away from any sitemapgen.toml of the checkout.
        cmd.command.current_dir(self.temp.path());
        cmd
    }

    /// Every path below the site and beside it: to prove no temp file was left behind.
    pub fn all_files(&self) -> Vec<PathBuf> {
        let mut files = Vec::new();
        collect_files(self.temp.path(), &mut files);
        files.sort();
        files
    }

    /// Lets an unprivileged user (see `Cmd::unprivileged`) read the site and write its root.
    pub fn open_to_everyone(&self) {
        for dir in [self.temp.path(), self.root.as_path()] {
            fs::set_permissions(dir, fs::Permissions::from_mode(0o777)).unwrap();
        }
    }
}

pub fn copy_tree(from: &Path, to: &Path) {
    fs::create_dir_all(to).unwrap();
    for entry in fs::read_dir(from).unwrap() {
        let entry = entry.unwrap();
        let target = to.join(entry.file_name());
        if entry.file_type().unwrap().is_dir() {
            copy_tree(&entry.path(), &target);
        } else {
            fs::copy(entry.path(), &target).unwrap();
        }
    }
}

fn collect_files(dir: &Path, files: &mut Vec<PathBuf>) {
    let Ok(entries) = fs::read_dir(dir) else {
        return;
    };
    for entry in entries {
        let entry = entry.unwrap();
        if entry.file_type().unwrap().is_dir() {
            collect_files(&entry.path(), files);
        } else {
            files.push(entry.path());
        }
    }
}

pub struct Cmd {
    command: Command,
    stdin: Vec<u8>,
    /// DIR, passed after every other argument.
    dir: Option<PathBuf>,
}

impl Cmd {
    pub fn new() -> Cmd {
        Cmd::of(Command::new(bin()))
    }

    /// Every request goes straight to the tests' own servers on the loopback address, never
    /// to a proxy the machine names.
    fn of(mut command: Command) -> Cmd {
        for variable in ["HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY", "NO_PROXY"] {
            command
                .env_remove(variable)
                .env_remove(variable.to_lowercase());
        }
        Cmd {
            command,
            stdin: Vec::new(),
            dir: None,
        }
    }

    /// The same command as an unprivileged user when the tests run as root (as CI does),
    /// where permission bits would not stop a read.
    pub fn unprivileged() -> Cmd {
        if !is_root() {
            return Cmd::new();
        }
        let mut command = Command::new("setpriv");
        command.args(["--reuid=65534", "--regid=65534", "--clear-groups", "--"]);
        command.arg(bin());
        Cmd::of(command)
    }

    pub fn arg(&mut self, arg: impl AsRef<OsStr>) -> &mut Cmd {
        self.command.arg(arg);
        self
    }

    pub fn args<S: AsRef<OsStr>>(&mut self, args: impl IntoIterator<Item = S>) -> &mut Cmd {
        self.command.args(args);
        self
    }

    pub fn current_dir(&mut self, dir: &Path) -> &mut Cmd {
        self.command.current_dir(dir);
        self
    }

    pub fn env(&mut self, key: &str, value: &str) -> &mut Cmd {
        self.command.env(key, value);
        self
    }

    pub fn stdin(&mut self, input: impl Into<Vec<u8>>) -> &mut Cmd {
        self.stdin = input.into();
        self
    }

    pub fn run(&mut self) -> Run {
        if let Some(dir) = self.dir.take() {
            self.command.arg(dir);
        }
        let mut child = self
            .command
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .expect("run sitemapgen");
        let mut stdin = child.stdin.take().unwrap();
        stdin.write_all(&self.stdin).unwrap();
        drop(stdin);
        let run = Run(child.wait_with_output().unwrap());
        run.shows_none_of(&secrets(&self.command));
        run.prints_no_control_character();
        run
    }
}

/// What no output of a run may show, as README promises: the IndexNow key it is given (by
/// `--indexnow-key-env` or `--indexnow-key-file`), each line of the private key of the
/// service account of `--google-key-env` or `--google-key-file`, and the user name and
/// password of a URL among its arguments. Every run of the suite is checked for them,
/// hostile or not.
fn secrets(command: &Command) -> Vec<String> {
    let args: Vec<String> = command
        .get_args()
        .map(|arg| arg.to_string_lossy().into_owned())
        .collect();
    let value = |i: usize, flag: &str| match args[i].strip_prefix(flag) {
        Some("") => args.get(i + 1).cloned(),
        Some(rest) => rest.strip_prefix('=').map(String::from),
        None => None,
    };
    let env = |name: &str| {
        let given = command
            .get_envs()
            .find(|(variable, _)| *variable == OsStr::new(name))
            .map(|(_, value)| value.map(|v| v.to_string_lossy().into_owned()));
        given.unwrap_or_else(|| std::env::var(name).ok())
    };
    let mut secrets = Vec::new();
    for (i, arg) in args.iter().enumerate() {
        if let Some(name) = value(i, "--indexnow-key-env") {
            secrets.extend(env(&name));
        }
        if let Some(path) = value(i, "--indexnow-key-file") {
            secrets.extend(key_file(&path));
        }
        if let Some(name) = value(i, "--google-key-env") {
            secrets.extend(env(&name).iter().flat_map(|json| private_key_lines(json)));
        }
        if let Some(path) = value(i, "--google-key-file") {
            let json = key_file(&path).unwrap_or_default();
            secrets.extend(private_key_lines(&json));
        }
        // A URL, or a flag=URL.
        let url = arg.find("://").and_then(|at| {
            let scheme = arg[..at].rfind(|c: char| !c.is_ascii_alphanumeric());
            url::Url::parse(&arg[scheme.map_or(0, |i| i + 1)..]).ok()
        });
        secrets.extend(url.iter().flat_map(user_info));
    }
    secrets
        .iter()
        .map(|secret| secret.trim().to_string())
        .filter(|secret| !secret.is_empty())
        .collect()
}

/// A key file a run is given, if it is a regular file: a test may give a FIFO or a device,
/// which the run must refuse and reading here would hang on or never end.
fn key_file(path: &str) -> Option<String> {
    let regular = fs::metadata(path).is_ok_and(|meta| meta.is_file());
    regular.then(|| fs::read_to_string(path).ok()).flatten()
}

/// The base64 lines of the `private_key` of a service account's JSON key (but a last one
/// too short not to turn up in a message by chance).
fn private_key_lines(json: &str) -> Vec<String> {
    let json: serde_json::Value = serde_json::from_str(json).unwrap_or_default();
    let pem = json["private_key"].as_str().unwrap_or_default();
    pem.lines()
        .filter(|line| !line.starts_with("-----") && line.len() >= 16)
        .map(String::from)
        .collect()
}

/// A URL's `user:password@` (or `user@`), and each part alone when it is too long to turn up
/// in a message by chance.
fn user_info(url: &url::Url) -> Vec<String> {
    let (user, password) = (url.username(), url.password().unwrap_or_default());
    if user.is_empty() && password.is_empty() {
        return Vec::new();
    }
    let whole = match password {
        "" => format!("{user}@"),
        password => format!("{user}:{password}@"),
    };
    let parts = [user, password].into_iter().filter(|part| part.len() >= 6);
    parts.map(String::from).chain([whole]).collect()
}

/// Says why a test skips where what it needs is missing: on stderr, and in a line of
/// `SKIPPED` (the test's name, a tab, why) that scripts/test.sh sums up after `cargo test`,
/// which counts the test as passed. In CI (env CI), which has everything (scripts/test.sh
/// installs it, and CI runs as root), the test fails instead.
#[track_caller]
pub fn skip_outside_ci(why: &str) {
    assert!(
        std::env::var_os("CI").is_none(),
        "{why}: CI (.ci/run) must provide it"
    );
    eprintln!("note: {why}; test skipped");
    let test = std::thread::current()
        .name()
        .unwrap_or("a test")
        .to_string();
    let record = Path::new(SKIPPED);
    fs::create_dir_all(record.parent().unwrap()).unwrap();
    // One short append each: the tests of a binary run on threads, the binaries one by one.
    let mut file = fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(record)
        .unwrap();
    file.write_all(format!("{test}\t{why}\n").as_bytes())
        .unwrap();
}

/// Where the skipped tests are listed (scripts/test.sh empties it before `cargo test`).
pub const SKIPPED: &str = concat!(env!("CARGO_TARGET_TMPDIR"), "/skipped-tests");

pub fn is_root() -> bool {
    static ROOT: OnceLock<bool> = OnceLock::new();
    *ROOT.get_or_init(|| {
        let out = Command::new("id").arg("-u").output().expect("id -u");
        String::from_utf8_lossy(&out.stdout).trim() == "0"
    })
}

pub struct Run(pub Output);

impl Run {
    pub fn code(&self) -> i32 {
        self.0.status.code().expect("exited, not killed")
    }

    pub fn stderr(&self) -> String {
        String::from_utf8_lossy(&self.0.stderr).into_owned()
    }

    pub fn stdout(&self) -> &[u8] {
        &self.0.stdout
    }

    #[track_caller]
    pub fn success(&self) -> &Run {
        self.expect_code(0)
    }

    #[track_caller]
    pub fn expect_code(&self, code: i32) -> &Run {
        assert_eq!(self.code(), code, "exit status; stderr:\n{}", self.stderr());
        self
    }

    /// Asserts that neither output holds any of `secrets`.
    #[track_caller]
    pub fn shows_none_of(&self, secrets: &[String]) -> &Run {
        let (stdout, stderr) = (String::from_utf8_lossy(self.stdout()), self.stderr());
        for secret in secrets {
            assert!(
                !stdout.contains(secret.as_str()) && !stderr.contains(secret.as_str()),
                "a secret, {secret:?}, is shown; stderr:\n{stderr}"
            );
        }
        self
    }

    /// Asserts that no message holds a control character but the line breaks between its
    /// lines: what the run read (a file name, a line, an answer) reaches the log escaped.
    /// Every run of the suite is checked, hostile or not.
    pub fn prints_no_control_character(&self) -> &Run {
        let stderr = self.stderr();
        assert!(
            !stderr.contains(|c: char| c.is_control() && c != '\n'),
            "a message holds a control character:\n{stderr:?}"
        );
        self
    }

    /// Asserts that stderr contains every one of `parts`.
    #[track_caller]
    pub fn stderr_has(&self, parts: &[&str]) -> &Run {
        let stderr = self.stderr();
        for part in parts {
            assert!(stderr.contains(part), "stderr lacks {part:?}:\n{stderr}");
        }
        self
    }
}
