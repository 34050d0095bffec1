"""sitemapgen for Python: the wheel installs the `sitemapgen` binary as a script."""

import os
import sys
import sysconfig

__all__ = ["find_binary"]


def find_binary() -> str:
    """The path of the sitemapgen binary installed with this package.

    Looked for where pip puts scripts: the environment's own scripts folder, the user
    scheme's (``pip install --user``), and ``bin`` beside the package
    (``pip install --target DIR``).
    """
    name = "sitemapgen" + (sysconfig.get_config_var("EXE") or "")
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
