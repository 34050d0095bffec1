"""sitemapgen for Python: the wheel installs the `sitemapgen` binary as a script."""

import os
import sys
import sysconfig
from importlib import metadata

__all__ = ["NoBinary", "find_binary"]


class NoBinary(FileNotFoundError):
    """This platform has no sitemapgen binary: pip installed the wheel for any platform
    (``py3-none-any``), which holds the plugins and no binary."""

    hint = (
        "the wheels with a binary are for Linux (x86_64, aarch64), macOS (x86_64, arm64) and "
        "Windows (x86_64); elsewhere, build it: cargo install --locked sitemapgen"
    )


def _without_binary():
    """Whether this is the wheel for any platform, the one pip takes where no wheel with a
    binary fits (Windows on arm64, FreeBSD, 32-bit, an older glibc)."""
    try:
        wheel = metadata.distribution("sitemapgen-cli").read_text("WHEEL") or ""
    except metadata.PackageNotFoundError:
        return False
    return "Tag: py3-none-any" in wheel.splitlines()


def find_binary() -> str:
    """The path of the sitemapgen binary installed with this package.

    Looked for where pip puts scripts: the environment's own scripts folder, the user
    scheme's (``pip install --user``), and ``bin`` beside the package
    (``pip install --target DIR``). Raises `NoBinary` where this platform has none.
    """
    if _without_binary():
        raise NoBinary(f"sitemapgen has no binary for {sysconfig.get_platform()}")
    name = "sitemapgen.exe" if sys.platform == "win32" else "sitemapgen"
    package_root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    folders = [
        sysconfig.get_path("scripts"),
        sysconfig.get_path("scripts", sysconfig.get_preferred_scheme("user"))
        if sys.version_info >= (3, 10)
        else sysconfig.get_path("scripts", f"{os.name}_user"),
        os.path.join(package_root, "bin"),
    ]
    for folder in folders:
        path = os.path.join(folder, name)
        if os.path.isfile(path) and os.access(path, os.X_OK):
            return path
    raise FileNotFoundError(
        f"the {name} binary is not installed beside the sitemapgen_cli package; "
        f"looked in: {', '.join(folders)}"
    )
