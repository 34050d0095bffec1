"""What the generators' plugins share: the flags their options map to, the state's flags
(kept beside the project, its copy published with the site, the site's own sitemap as the
seed, each page's source), and running the installed binary with its messages in the
generator's log."""

import gzip
import os
import re
import subprocess
from urllib.parse import urlsplit

from sitemapgen_cli import NoBinary, find_binary

STATE = "sitemap.state.gz"
# Beside the project, where generators keep their caches: a cleaned output keeps no state.
CACHE = os.path.join(".cache", "sitemapgen")


def flags(
    *,
    images,
    groups,
    xsl,
    indexnow_key_env,
    extra,
    exclude=(),
    clean_urls=False,
    lastmod=None,
    lastmod_format=None,
    add_urls=(),
):
    """The flags of the options every plugin has."""
    args = []
    for glob in exclude:
        args += ["--exclude", glob]
    if clean_urls:
        args.append("--clean-urls")
    if lastmod:
        args += ["--lastmod", lastmod]
    if lastmod_format:
        args += ["--lastmod-format", lastmod_format]
    for path in add_urls:
        args += ["--add-urls", path]
    if images:
        args.append("--images")
    for group in groups:
        args += ["--group", group]
    if xsl is True:
        args.append("--write-xsl")
    elif xsl:
        args += ["--xsl", xsl]
    if indexnow_key_env:
        args += ["--indexnow-key-env", indexnow_key_env]
    return args + list(extra)


def state_flags(*, root, out_dir, base, previous_sitemap, sources):
    """The state's flags: the state kept in ROOT/.cache/sitemapgen/ (a folder per base URL
    path), its copy in OUT_DIR for the deploy to publish at BASE, read back from there where
    there is no local one (CI); with nothing published, the dates of PREVIOUS_SITEMAP (True:
    BASE/sitemap.xml, the generator's own; False: none); SOURCES, pairs of a source file and
    its page's file relative to OUT_DIR, each page dated by its source's last commit
    (--sources)."""
    cache = os.path.join(root, CACHE, *urlsplit(base).path.strip("/").split("/"))
    # sitemapgen writes the state into a folder that exists; the first build makes it.
    os.makedirs(cache, exist_ok=True)
    args = [
        "--state",
        os.path.join(cache, STATE),
        "--state-copy",
        os.path.join(out_dir, STATE),
        "--state-url",
        base + STATE,
    ]
    if previous_sitemap is True:
        args += ["--previous-sitemap", base + "sitemap.xml"]
    elif previous_sitemap:
        args += ["--previous-sitemap", previous_sitemap]
    if sources:
        # sitemapgen dates each source by its last commit (one git reader, in the binary).
        path = os.path.join(cache, "sources.tsv")
        with open(path, "w", encoding="utf-8", newline="\n") as out:
            # A page once (sitemapgen refuses a page named twice): the last source given.
            for page, source in sorted({page: source for source, page in sources}.items()):
                out.write(f"{page}\t{os.path.abspath(source)}\n")
        args += ["--sources", path]
    return args


class Failed(Exception):
    """sitemapgen failed, or could not run: its message, for the generator to fail with."""


# The warning of a platform without a binary is given once a process.
_warned = False


def run_sitemapgen(args, log, options=None, *, require_binary=False):
    """Runs sitemapgen with ARGS: its warnings go to LOG as warnings, its notes and summary
    line as information; when it fails (exit 1 or 2), `Failed` is raised with its message.
    OPTIONS maps a flag to the plugin's option that turns it off: a message's "drop FLAG"
    names that option instead. Where this platform has no binary, the build goes on without
    a sitemap, after one warning (once a process), unless REQUIRE_BINARY: then `Failed`.
    Returns the number of sitemapgen's warnings."""
    try:
        binary = find_binary()
    except NoBinary as none:
        if require_binary:
            raise Failed(f"sitemapgen: error: {none}\nhint: {none.hint}") from None
        global _warned
        if not _warned:
            _warned = True
            log.warning(f"{none}: no sitemap written; CI on Linux, macOS or Windows writes it")
        return 0
    except FileNotFoundError as missing:
        raise Failed(f"sitemapgen: error: {missing}") from None
    done = subprocess.run(
        [binary, *args],
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        check=False,
    )
    options = options or {}

    def named(line):
        return re.sub(
            r"drop (--[a-z-]+)",
            lambda m: f"set `{options[m[1]]}`" if m[1] in options else m[0],
            line,
        )

    lines = [named(line) for line in done.stderr.decode("utf-8", "replace").splitlines()]
    if done.returncode != 0:
        raise Failed("\n".join(lines) or f"sitemapgen exited {done.returncode}")
    # The generator's log names the plugin already.
    warnings = 0
    for line in lines:
        if line.startswith("sitemapgen: warning: "):
            warnings += 1
            log.warning(line[len("sitemapgen: warning: ") :])
        else:
            log.info(line[len("sitemapgen: ") :] if line.startswith("sitemapgen: ") else line)
    return warnings


def escape_glob(path):
    """PATH (relative to the site's folder, `/`-separated) as a glob that matches it alone,
    anchored at the folder."""
    return "/" + "".join("\\" + c if c in "*?[]{}\\!" else c for c in path)


def gzip_copy(path):
    """Writes PATH.gz, gzip of PATH (no name, no time in its header: the same bytes from the
    same file), if PATH exists; through a temp file and a rename, as sitemapgen writes."""
    try:
        with open(path, "rb") as plain:
            data = plain.read()
    except FileNotFoundError:
        return
    temp = path + ".gz.tmp"
    try:
        with open(temp, "wb") as out:
            with gzip.GzipFile(filename="", mode="wb", fileobj=out, mtime=0) as packed:
                packed.write(data)
        os.replace(temp, path + ".gz")
    finally:
        if os.path.exists(temp):
            os.remove(temp)
