#!/usr/bin/env bash
# pin-action.sh VERSION SHA256SUMS [ACTION]: writes the SHA-256 of each release archive of
# VERSION (.tgz, and .zip for Windows), as the release's SHA256SUMS gives them, into
# action.yml's install step (PINNED), which checks the archive of the version input's
# default against them, downloaded or cached. The release workflow runs it before it tags the action; tests/packages/action.rs
# runs it on a copy.
set -euo pipefail
version=$1 sums=$2 action=${3:-action.yml}

lines=$(grep -E "^[0-9a-f]{64}  sitemapgen-[a-z0-9_]+(-[a-z0-9_]+)*-v${version//./\\.}\.(tgz|zip)$" "$sums") || {
  echo "pin-action.sh: $sums lists no release archive of $version" >&2
  exit 1
}
if [ "$(grep -c '^ *PINNED:' "$action")" != 1 ]; then
  echo "pin-action.sh: $action has no one PINNED" >&2
  exit 1
fi
# PINNED's line, and the lines of its block (indented deeper), give way to the sums.
awk -v lines="$lines" '
  match($0, /^ *PINNED:/) {
    indent = substr($0, 1, RLENGTH - length("PINNED:"))
    print indent "PINNED: |"
    n = split(lines, each, "\n")
    for (i = 1; i <= n; i++) print indent "  " each[i]
    skip = 1
    next
  }
  skip && (/^ *$/ || index($0, indent "  ") == 1) { next }
  { skip = 0; print }
' "$action" >"$action.pinned"
mv "$action.pinned" "$action"
