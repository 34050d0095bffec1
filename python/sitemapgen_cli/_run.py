"""What the generators' plugins share: the flags their options map to, and running the
installed binary with its messages in the generator's log."""

import subprocess

from sitemapgen_cli import NoBinary, find_binary


def flags(*, images, groups, xsl, indexnow_key_env, extra):
    """The flags of the options every plugin has."""
    args = []
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


class Failed(Exception):
    """sitemapgen failed, or could not run: its message, for the generator to fail with."""


# The warning of a platform without a binary is given once a process.
_warned = False


def run_sitemapgen(args, log, *, require_binary=False):
    """Runs sitemapgen with ARGS: its warnings go to LOG as warnings, its notes and summary
    line as information; when it fails (exit 1 or 2), `Failed` is raised with its message.
    Where this platform has no binary, the build goes on without a sitemap, after one
    warning (once a process), unless REQUIRE_BINARY: then `Failed`."""
    try:
        binary = find_binary()
    except NoBinary as none:
        if require_binary:
            raise Failed(f"sitemapgen: error: {none}\nhint: {none.hint}") from None
        global _warned
        if not _warned:
            _warned = True
            log.warning(f"{none}: no sitemap written; CI on Linux or macOS writes it")
        return
    except FileNotFoundError as missing:
        raise Failed(f"sitemapgen: error: {missing}") from None
    done = subprocess.run(
        [binary, *args],
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        check=False,
    )
    lines = done.stderr.decode("utf-8", "replace").splitlines()
    if done.returncode != 0:
        raise Failed("\n".join(lines) or f"sitemapgen exited {done.returncode}")
    # The generator's log names the plugin already.
    for line in lines:
        if line.startswith("sitemapgen: warning: "):
            log.warning(line[len("sitemapgen: warning: ") :])
        else:
            log.info(line[len("sitemapgen: ") :] if line.startswith("sitemapgen: ") else line)
