"""`python -m sitemapgen_cli ARGS`: the installed binary in this process's place."""

import os
import sys

from sitemapgen_cli import find_binary


def main() -> None:
    try:
        binary = find_binary()
    except FileNotFoundError as error:
        print(f"sitemapgen: error: {error}", file=sys.stderr)
        sys.exit(1)
    # exec, not a child: arguments, streams, signals and the exit status are the binary's own.
    os.execv(binary, [binary, *sys.argv[1:]])


if __name__ == "__main__":
    main()
