"""`python -m sitemapgen_cli ARGS`: the installed binary in this process's place. Also the
`sitemapgen` script of the wheel for any platform, which has no binary to put there."""

import os
import subprocess
import sys

from sitemapgen_cli import NoBinary, find_binary


def run_windows(command):
    """COMMAND as a child, this process ending with its exit status. Windows has no exec:
    os.execv starts a new process and ends this one at once, so that a shell or CI would
    see this one's status, not the binary's, while the binary still runs."""
    child = subprocess.Popen(command)
    while True:
        try:
            sys.exit(child.wait())
        except KeyboardInterrupt:
            # Ctrl+C reached the binary too (one console): it decides how to end.
            continue


def main() -> None:
    try:
        binary = find_binary()
    except NoBinary as none:
        # Asked for by name, it fails: only the plugins go on without a binary.
        print(f"sitemapgen: error: {none}\nhint: {none.hint}", file=sys.stderr)
        sys.exit(1)
    except FileNotFoundError as error:
        print(f"sitemapgen: error: {error}", file=sys.stderr)
        sys.exit(1)
    if sys.platform == "win32":
        run_windows([binary, *sys.argv[1:]])
    # exec, not a child: arguments, streams, signals and the exit status are the binary's own.
    os.execv(binary, [binary, *sys.argv[1:]])


if __name__ == "__main__":
    main()
