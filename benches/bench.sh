#!/usr/bin/env bash
# Benchmark sitemapgen on a tree of pages against the floors the machine sets (listing the
# files, reading the pages) and against the tools a user would pick instead, in one hyperfine
# run per tree so that every command meets the same machine state (warm page cache).
#
# Usage: benches/bench.sh [--quick] TREE
#   TREE  N           a synthetic site of N pages (e.g. 10000, 200000), built once into
#                     $BENCH_TREES/synthetic-N and reused while the generator is unchanged
#         rust-doc    /usr/share/doc/rust-doc/html      (Debian package rust-doc)
#         python-doc  /usr/share/doc/python3.11/html    (Debian package python3.11-doc)
#         /some/dir   any other built site, read-only (nothing is written into it)
#   --quick           smoke test: RUNS=2 and no warmup unless set (TREE defaults to 1000)
#
# Environment:
#   RUNS=k             timed runs per command (default 10)
#   WARMUP=k           untimed warmup runs per command (default 2)
#   SITEMAPGEN_BIN=F   time this binary instead of building the checkout (cargo build --release)
#   BENCH_TREES=DIR    where synthetic trees, states, outputs and logs go
#                      (default ${TMPDIR:-/tmp}/sitemapgen-bench)
#   BENCH_GIT_MAX=N    make the synthetic tree a git repo (for --lastmod git) up to N pages
#                      (default 20000; 0 turns it off)
#   Peers, each skipped (and said so) when unset or unusable:
#   NODE22             node >= 22 (default: `node` on PATH, if it is >= 22)
#   STATIC_SITEMAP_CLI static-sitemap-cli's src/cli.js (npm package static-sitemap-cli)
#   SITEMAP_JS         sitemap.js's CLI, dist/esm/cli.js (npm package sitemap)
#   SITEMAP_FROM_FILES the sitemap-from-files binary (built from its source; it refuses
#                      more than 50,000 URLs, so it runs only on trees of at most that many)
#
# The report (markdown) goes to stdout; progress and hyperfine's own output go to stderr and
# to a log beside the results. Needs: cargo, python3, hyperfine, GNU find and xargs, GNU time
# (/usr/bin/time); fd (fdfind), git and fincore are used when present.
set -euo pipefail

die() { echo "bench.sh: $*" >&2; exit 1; }
say() { echo "bench.sh: $*" >&2; }
q() { printf '%q ' "$@" | sed 's/ $//'; }

QUICK=0
TREE=
for arg in "$@"; do
    case $arg in
        --quick) QUICK=1 ;;
        -h | --help) sed -n '2,/^set -euo/p' "${BASH_SOURCE[0]}" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
        -*) die "unknown option '$arg' (see --help)" ;;
        *) [[ -z $TREE ]] || die "one TREE only (see --help)"; TREE=$arg ;;
    esac
done
if [[ -z $TREE ]]; then
    (( QUICK )) && TREE=1000 || die "usage: $0 [--quick] N|rust-doc|python-doc|DIR (see --help)"
fi
if (( QUICK )); then RUNS=${RUNS:-2} WARMUP=${WARMUP:-0}; else RUNS=${RUNS:-10} WARMUP=${WARMUP:-2}; fi
[[ $RUNS =~ ^[1-9][0-9]*$ ]] || die "RUNS must be a positive integer, not '$RUNS'"
[[ $WARMUP =~ ^[0-9]+$ ]] || die "WARMUP must be a whole number, not '$WARMUP'"
GIT_MAX=${BENCH_GIT_MAX:-20000}
[[ $GIT_MAX =~ ^[0-9]+$ ]] || die "BENCH_GIT_MAX must be a whole number, not '$GIT_MAX'"
CACHE=${BENCH_TREES:-${TMPDIR:-/tmp}/sitemapgen-bench}
BASE=https://example.com/
NPROC=$(nproc)

# --- Tools -------------------------------------------------------------------------------
need() { command -v "$1" >/dev/null || die "$1 not found: $2"; }
need hyperfine "apt-get install hyperfine"
need python3 "apt-get install python3"
need cargo "install a Rust toolchain (rustup)"
need xargs "apt-get install findutils"
[[ -x /usr/bin/time && $(/usr/bin/time -v true 2>&1) == *"Maximum resident set size"* ]] ||
    die "GNU time (/usr/bin/time) not found: apt-get install time"
find --version 2>/dev/null | grep -q GNU || die "GNU find is needed (for -printf): apt-get install findutils"
FD=$(command -v fdfind || command -v fd || true)

# --- The tree ----------------------------------------------------------------------------
FIXED_MTIME=1714557600 # 2024-05-01T10:00:00Z, the mtime of every synthetic file
GEN_VERSION=2          # change when the generator's output changes: the tree is rebuilt
SYNTHETIC=0
case $TREE in
    rust-doc) DIR=/usr/share/doc/rust-doc/html; NAME=rust-doc
        [[ -d $DIR ]] || die "$DIR not found: apt-get install rust-doc" ;;
    python-doc) DIR=/usr/share/doc/python3.11/html; NAME=python-doc
        [[ -d $DIR ]] || die "$DIR not found: apt-get install python3.11-doc" ;;
    *[!0-9]* | '')
        [[ -d $TREE ]] || die "'$TREE' is neither a number of pages, rust-doc, python-doc nor a directory"
        DIR=$TREE; NAME=dir-$(printf '%s' "$(realpath "$TREE")" | cksum | cut -d' ' -f1) ;;
    0*) die "N must be a positive integer, not '$TREE'" ;;
    *) SYNTHETIC=1; N=$TREE; NAME=synthetic-$N ;;
esac
WORK=$CACHE/$NAME
mkdir -p "$WORK"
WORK=$(realpath "$WORK")

if (( SYNTHETIC )); then
    DIR=$WORK/site
    MARKER=$WORK/site.complete # written last: the tree is complete
    EXPECTED="sitemapgen-bench tree v$GEN_VERSION N=$N mtime=$FIXED_MTIME"
    if [[ -f $MARKER && $(head -n1 "$MARKER") == "$EXPECTED" ]]; then
        say "reusing the tree in $DIR"
    else
        rm -f -- "$MARKER" "$WORK/git.complete"
        [[ ! -e $DIR ]] || { say "removing the incomplete or outdated tree $DIR"; rm -rf -- "$DIR" "$WORK/site.git"; }
        say "building a tree of $N pages in $DIR ..."
        start=$SECONDS
        # One Python process writes every file; it prints the counts for the marker.
        stats=$(python3 - "$N" "$DIR" "$FIXED_MTIME" "$BASE" <<'PY'
import os, sys

n, site, mtime, base = int(sys.argv[1]), sys.argv[2], int(sys.argv[3]), sys.argv[4]
FAN = 20                            # entries per directory (about)
assets = (3 * n + 5) // 10          # 30% as many assets as pages
leaves = max(1, -(-(n + assets) // FAN))
depth = 0                           # leaf directories sit at this depth, named by base-20 digits
while FAN ** depth < leaves:
    depth += 1
# Directories at each level j: the distinct j-digit prefixes of the leaf numbers.
dirs = sum(-(-leaves // FAN ** (depth - j)) for j in range(depth + 1))
content = n - dirs                  # pages besides the index.html of every directory
if content < 0:
    sys.exit(f"N={n} is too small")
items = content + assets            # spread evenly over the leaves

LOREM = ("Lorem ipsum dolor sit amet, consectetur adipiscing elit, sed do eiusmod tempor "
         "incididunt ut labore et dolore magna aliqua. Ut enim ad minim veniam, quis nostrud "
         "exercitation ullamco laboris nisi ut aliquip ex ea commodo consequat. ")
NAV = ('<header><nav><a href="/">Home</a> <a href="/docs/">Docs</a> <a href="/blog/">Blog</a> '
       '<a href="/about.html">About</a> <a href="/contact.html">Contact</a></nav></header>\n')
MAIN = ("".join(f"<h2>Section {k}</h2>\n<p>{LOREM * 2}</p>\n" for k in range(1, 6))
        + "<ul>" + "".join(f'<li><a href="../page-{k}.html">Related page {k}</a></li>'
                           for k in range(1, 6)) + "</ul>\n</main>\n"
        '<footer><p>&copy; 2024 Example Inc. <a href="/privacy.html">Privacy</a></p></footer>\n'
        "</body>\n</html>\n")
head_bytes = 0

def page(rel, title):
    """A page whose head is what a site generator writes: canonical = the page's own URL."""
    global head_bytes
    url = base + (rel[: -len("index.html")] if rel.endswith("index.html") else rel)
    desc = f"{title}: setup, worked examples and reference."
    head = ('<!doctype html>\n<html lang="en">\n<head>\n<meta charset="utf-8">\n'
            '<meta name="viewport" content="width=device-width, initial-scale=1">\n'
            f'<title>{title}</title>\n'
            f'<meta name="description" content="{desc}">\n'
            f'<link rel="canonical" href="{url}">\n'
            f'<meta property="og:title" content="{title}">\n'
            f'<meta property="og:description" content="{desc}">\n'
            f'<meta property="og:url" content="{url}">\n'
            f'<meta property="og:image" content="{base}og.png">\n'
            '<meta name="twitter:card" content="summary_large_image">\n'
            '<link rel="stylesheet" href="/css/site.css">\n'
            '<script src="/js/site.js" defer></script>\n'
            '</head>\n').encode()
    head_bytes += len(head)
    return head + f"<body>\n{NAV}<main>\n<h1>{title}</h1>\n{MAIN}".encode()

ASSETS = [(".css", b"body{margin:0;font:16px/1.5 sans-serif}\n" * 5),
          (".png", b"\x89PNG\r\n\x1a\n" + bytes(range(120))),
          (".js", b"document.documentElement.classList.add('js');\n" * 3)]
FLAGS = os.O_WRONLY | os.O_CREAT | os.O_TRUNC | os.O_CLOEXEC
width = len(str(n))
page_bytes = 0

def write(dfd, name, data):
    fd = os.open(name, FLAGS, 0o644, dir_fd=dfd)
    try:
        os.write(fd, data)
        os.utime(fd, (mtime, mtime))
    finally:
        os.close(fd)

def digits(k):
    out = []
    for _ in range(depth):
        k, d = divmod(k, FAN)
        out.append(f"s{d:02d}")
    return out[::-1]

os.makedirs(site)
count = 0
made = set()                        # directories that already have their index.html
page_no = asset_no = 0
for leaf in range(leaves):
    parts = digits(leaf)
    # Create this leaf's missing ancestors, each with its index.html.
    for j in range(depth + 1):
        rel = "/".join(parts[:j])
        if rel in made:
            continue
        path = os.path.join(site, rel) if rel else site
        os.makedirs(path, exist_ok=True)
        dfd = os.open(path, os.O_RDONLY | os.O_DIRECTORY)
        data = page(rel + "/index.html" if rel else "index.html", f"Section /{rel}")
        page_bytes += len(data)
        write(dfd, "index.html", data)
        os.close(dfd)
        made.add(rel)
        count += 1
    path = os.path.join(site, *parts)
    dfd = os.open(path, os.O_RDONLY | os.O_DIRECTORY)
    for i in range(leaf * items // leaves, (leaf + 1) * items // leaves):
        if (i + 1) * assets // items > i * assets // items:   # evenly interleaved assets
            ext, data = ASSETS[asset_no % 3]
            write(dfd, f"asset-{asset_no:0{width}d}{ext}", data)
            asset_no += 1
        else:
            page_no += 1
            name = f"page-{page_no:0{width}d}.html"
            data = page("/".join(parts + [name]), f"Page {page_no}")
            page_bytes += len(data)
            write(dfd, name, data)
        count += 1
    os.close(dfd)
assert count == n + assets and page_no + dirs == n, (count, page_no, dirs)
print(f"files={count} assets={assets} dirs={dirs} "
      f"page_bytes_avg={page_bytes // n} head_bytes_avg={head_bytes // n}")
PY
)
        printf '%s\n%s\n' "$EXPECTED" "$stats" >"$MARKER"
        say "built the tree in $((SECONDS - start)) s: $stats"
    fi
    TREE_STATS=$(sed -n 2p "$MARKER")

    # A git history for --lastmod git, while that is cheap: the repository lives beside the
    # tree (`git init --separate-git-dir`), so the tree gains one small file, DIR/.git.
    # Ten commits, each adding a tenth of the top-level entries, with fixed dates.
    if (( N <= GIT_MAX )) && command -v git >/dev/null && [[ ! -f $WORK/git.complete ]]; then
        say "making $DIR a git work tree (10 commits) ..."
        rm -rf -- "$WORK/site.git" "$DIR/.git"
        (
            cd "$DIR"
            export GIT_CONFIG_GLOBAL=/dev/null GIT_CONFIG_NOSYSTEM=1
            git init -q --separate-git-dir="$WORK/site.git" .
            mapfile -t entries < <(find . -mindepth 1 -maxdepth 1 ! -name .git ! -name _sitemap -printf '%P\n' | LC_ALL=C sort)
            total=${#entries[@]}
            for ((k = 0; k < 10; k++)); do
                lo=$((k * total / 10)) hi=$(((k + 1) * total / 10))
                (( hi > lo )) || continue
                git add -- "${entries[@]:lo:hi-lo}"
                date="@$((FIXED_MTIME + k * 86400)) +0000"
                GIT_AUTHOR_DATE=$date GIT_COMMITTER_DATE=$date git -c user.name=bench \
                    -c user.email=bench@example.invalid commit -q -m "part $((k + 1))"
            done
        )
        touch "$WORK/git.complete"
    fi
    OUT=$DIR/_sitemap # inside DIR: past 50,000 URLs the shards need URLs under DIR
else
    DIR=$(realpath "$DIR")
    TREE_STATS=
    OUT=$WORK/out     # outside DIR, which is read-only: nothing is written into it
fi
rm -rf -- "$OUT" "$WORK/out"
mkdir -p "$OUT" "$WORK/out" "$WORK/run"
PEER_OUT=$WORK/out

say "counting the tree ..."
PAGES=$(find "$DIR" -type f \( -name '*.html' -o -name '*.htm' \) | wc -l)
FILES=$(find "$DIR" -type f | wc -l)
DIRS=$(find "$DIR" -type d | wc -l)
LINKS=$(find "$DIR" -type l | wc -l)
TREE_BYTES=$(du -s --block-size=1 "$DIR" | cut -f1)   # on disk, as the page cache holds it
PAGE_BYTES=$(find "$DIR" -type f \( -name '*.html' -o -name '*.htm' \) -printf '%s\n' | awk '{ s += $1 } END { print s + 0 }')
MEM_AVAIL=$(awk '/^MemAvailable:/ { printf "%.0f", $2 * 1024 }' /proc/meminfo)
(( PAGES > 0 )) || die "$DIR holds no .html/.htm page"
if (( ! SYNTHETIC && PAGES > 50000 )); then
    die "$DIR has $PAGES pages: its sitemap must be split, and sitemapgen writes the shards inside DIR, which this script keeps read-only"
fi

# --- The binary --------------------------------------------------------------------------
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
checkout_state() {
    local commit status modified untracked
    commit=$(git -C "$ROOT" rev-parse --short=12 HEAD 2>/dev/null) || { echo "not a git checkout"; return; }
    # --no-optional-locks: reading the status must not rewrite the checkout's index.
    status=$(git --no-optional-locks -C "$ROOT" status --porcelain 2>/dev/null || true)
    modified=$(grep -vc '^??' <<<"$status" || true)
    untracked=$(grep -c '^??' <<<"$status" || true)
    [[ -n $status ]] || modified=0 untracked=0
    if (( modified + untracked == 0 )); then echo "commit $commit, clean tree"
    else echo "commit $commit plus uncommitted changes ($modified modified, $untracked untracked paths: dirty tree)"; fi
}
# Time a copy: a build in the checkout while this runs must not swap the binary mid-way.
BIN=$WORK/sitemapgen
if [[ -n ${SITEMAPGEN_BIN:-} ]]; then
    [[ -x $SITEMAPGEN_BIN ]] || die "SITEMAPGEN_BIN=$SITEMAPGEN_BIN is not an executable"
    cp -- "$SITEMAPGEN_BIN" "$BIN"
    SOURCE="the binary SITEMAPGEN_BIN=$SITEMAPGEN_BIN (not built by this script; the checkout is at $(checkout_state), which need not be its source)"
else
    say "building sitemapgen (cargo build --release) ..."
    SOURCE=$(checkout_state)
    (cd "$ROOT" && cargo build --release --quiet) ||
        die "cargo build --release failed in $ROOT (SITEMAPGEN_BIN=path times a binary built elsewhere)"
    [[ -x $ROOT/target/release/sitemapgen ]] || die "$ROOT/target/release/sitemapgen was not built"
    cp -- "$ROOT/target/release/sitemapgen" "$BIN"
    [[ $(checkout_state) == "$SOURCE" ]] || SOURCE="$SOURCE (the checkout changed during the build: now $(checkout_state))"
    SOURCE="release build (cargo build --release, just before the runs) of $SOURCE"
fi
BIN_SUM=$(sha256sum "$BIN" | cut -c1-16)

# --- Peers -------------------------------------------------------------------------------
SKIPPED=()
NODE=${NODE22:-$(command -v node || true)}
NODE_OK=0 NODE_VERSION=
if [[ -z $NODE ]]; then
    SKIPPED+=("node peers: no node found (set NODE22 to a node >= 22)")
elif ! NODE_MAJOR=$("$NODE" -p 'process.versions.node.split(".")[0]' 2>/dev/null); then
    SKIPPED+=("node peers: $NODE does not run (set NODE22 to a node >= 22)")
elif (( NODE_MAJOR < 22 )); then
    SKIPPED+=("node peers: $NODE is node $("$NODE" --version), static-sitemap-cli needs >= 22 (set NODE22)")
else
    NODE_OK=1
    NODE_VERSION=$("$NODE" --version)
fi
peer_js() { # name env-var-name path: usable?
    if [[ -z $3 ]]; then SKIPPED+=("$1: $2 is not set"); return 1; fi
    if [[ ! -f $3 ]]; then SKIPPED+=("$1: $2=$3 is not a file"); return 1; fi
    if (( ! NODE_OK )); then SKIPPED+=("$1: no node >= 22 (NODE22)"); return 1; fi
}
SSCLI=${STATIC_SITEMAP_CLI:-}
SMJS=${SITEMAP_JS:-}
SFF=${SITEMAP_FROM_FILES:-}
HAVE_SSCLI=0 HAVE_SMJS=0 HAVE_SFF=0
if peer_js static-sitemap-cli STATIC_SITEMAP_CLI "$SSCLI"; then
    SSCLI_VERSION=$("$NODE" "$SSCLI" --version 2>/dev/null) && HAVE_SSCLI=1 ||
        SKIPPED+=("static-sitemap-cli: '$NODE $SSCLI --version' failed")
fi
if peer_js sitemap.js SITEMAP_JS "$SMJS"; then
    SMJS_VERSION=$("$NODE" "$SMJS" --version 2>/dev/null) && HAVE_SMJS=1 ||
        SKIPPED+=("sitemap.js: '$NODE $SMJS --version' failed")
fi
if [[ -z $SFF ]]; then SKIPPED+=("sitemap-from-files: SITEMAP_FROM_FILES is not set")
elif [[ ! -x $SFF ]]; then SKIPPED+=("sitemap-from-files: SITEMAP_FROM_FILES=$SFF is not executable")
elif (( PAGES > 50000 )); then SKIPPED+=("sitemap-from-files: the tree has $PAGES pages; it refuses more than 50,000 URLs")
else HAVE_SFF=1; fi
[[ -n $FD ]] || SKIPPED+=("fd floor: neither fdfind nor fd is on PATH (apt-get install fd-find)")

# --- The commands ------------------------------------------------------------------------
# Each row: name, kind (floor|mode|peer), summary, baseline row, prepare command, command,
# and the sitemap it writes (none for a floor).
NAMES=() KINDS=() SUMMARIES=() BASELINES=() PREPARES=() CMDS=() OUTPUTS=()
row() { NAMES+=("$1") KINDS+=("$2") SUMMARIES+=("$3") BASELINES+=("$4") PREPARES+=("$5") CMDS+=("$6") OUTPUTS+=("${7:-}"); }
D=$(q "$DIR")
HTML="-name '*.html'"
row "find -printf" floor "find DIR -type f -printf '%T@ %p\\n': one stat per file, serial" "" ":" \
    "find $D -type f -printf '%T@ %p\\n' > /dev/null"
if [[ -n $FD ]]; then
    # --changed-before makes fd stat every file, as find -printf does; it walks in parallel.
    row "fd" floor "$(basename "$FD") -t f -H -I --changed-before 2200-01-01: parallel walk, one stat per file" "" ":" \
        "$(q "$FD") -t f -H -I --changed-before 2200-01-01 . $D > /dev/null"
fi
row "cat, serial" floor "find DIR -name '*.html' -print0 | xargs -0 cat: every page read, one process at a time" "" ":" \
    "find $D $HTML -print0 | xargs -0 cat > /dev/null"
row "cat, parallel" floor "same, xargs -0 -P$NPROC -n 256 cat: $NPROC readers" "" ":" \
    "find $D $HTML -print0 | xargs -0 -P$NPROC -n 256 cat > /dev/null"

SG="$(q "$BIN") -q -b $BASE"
STATE1=$WORK/first.state STATE2=$WORK/unchanged.state STATE3=$WORK/run.state
STAMPLESS=$WORK/stampless.state BARE=$WORK/bare.state CHANGED=$WORK/changed.state
row "--no-html" mode "sitemapgen --no-html: walk, stat each page, write" "find -printf" ":" \
    "$SG -o $(q "$OUT/no-html.xml") --no-html $D" "$OUT/no-html.xml"
row "default" mode "sitemapgen: also reads every page's head" "cat, serial" ":" \
    "$SG -o $(q "$OUT/default.xml") $D" "$OUT/default.xml"
row "--gzip" mode "sitemapgen --gzip: default + gzip output" "default" ":" \
    "$SG -o $(q "$OUT/gzip.xml.gz") --gzip $D" "$OUT/gzip.xml.gz"
row "--images" mode "sitemapgen --images: default + every page read whole for its images" "default" ":" \
    "$SG -o $(q "$OUT/images.xml") --images $D" "$OUT/images.xml"
row "--state, first run" mode "sitemapgen --state S, S removed before each run: heads + digest of every page" "cat, serial" \
    "rm -f $(q "$STATE1")" "$SG -o $(q "$OUT/state-first.xml") --state $(q "$STATE1") $D" "$OUT/state-first.xml"
row "--state, unchanged" mode "sitemapgen --state S, S from an earlier run, no page changed" "cat, serial" ":" \
    "$SG -o $(q "$OUT/state-unchanged.xml") --state $(q "$STATE2") $D" "$OUT/state-unchanged.xml"
# A CI run: the site rebuilt in a fresh clone rewrites every page, so no stamp matches, and
# the bytes are the last deploy's, so the fingerprints do; only heads are tokenized. The
# state without its stamps gives that run on a tree this script must not touch; with 1% of
# its records' fingerprints and digests altered, the run where 1% of the pages changed
# (tokenized and re-dated); without the fingerprints too, the rebuilt run before them
# (every page tokenized for its digest).
row "--state, fresh CI" mode "sitemapgen --state S, S from an earlier run less its stamps (a fresh clone, rebuilt: every stamp new, the bytes the same)" "cat, serial" \
    "cp $(q "$STAMPLESS" "$STATE3")" "$SG -o $(q "$OUT/state-fresh.xml") --state $(q "$STATE3") $D" "$OUT/state-fresh.xml"
row "--state, fresh CI, 1% changed" mode "the same, 1% of the pages changed (their records' fingerprints and digests altered)" "cat, serial" \
    "cp $(q "$CHANGED" "$STATE3")" "$SG -o $(q "$OUT/state-changed.xml") --state $(q "$STATE3") $D" "$OUT/state-changed.xml"
row "--state, rebuilt" mode "sitemapgen --state S, S less its stamps and fingerprints (every page tokenized for its digest, as before fingerprints)" "cat, serial" \
    "cp $(q "$BARE" "$STATE3")" "$SG -o $(q "$OUT/state-rebuilt.xml") --state $(q "$STATE3") $D" "$OUT/state-rebuilt.xml"
GIT_NOTE=
if command -v git >/dev/null && [[ $(git -C "$DIR" rev-parse --is-inside-work-tree 2>/dev/null) == true ]]; then
    row "--lastmod git" mode "sitemapgen --lastmod git: default + git ls-tree and git log over the history" "cat, serial" ":" \
        "$SG -o $(q "$OUT/git.xml") --lastmod git $D" "$OUT/git.xml"
elif ! command -v git >/dev/null; then
    GIT_NOTE="--lastmod git: skipped, git is not on PATH"
elif (( SYNTHETIC )); then
    GIT_NOTE="--lastmod git: skipped, the synthetic tree is made a git repository only up to BENCH_GIT_MAX=$GIT_MAX pages"
else
    GIT_NOTE="--lastmod git: skipped, $DIR is not in a git work tree"
fi
if (( HAVE_SSCLI )); then
    row "static-sitemap-cli" peer "static-sitemap-cli $SSCLI_VERSION -f xml -o: fast-glob walk, reads heads for noindex" "default" ":" \
        "$(q "$NODE" "$SSCLI") -b $BASE -r $D -f xml -o > $(q "$PEER_OUT/sscli.xml")" "$PEER_OUT/sscli.xml"
    # Without the heads: it then keeps no file open (reading heads, 2.2.8 leaves each page's
    # file open, so it fails with EMFILE on trees of more pages than `ulimit -n`).
    row "static-sitemap-cli --no-robots" peer "static-sitemap-cli $SSCLI_VERSION --no-robots -f xml -o: fast-glob walk and stat, no heads" "--no-html" ":" \
        "$(q "$NODE" "$SSCLI") -b $BASE -r $D -f xml --no-robots -o > $(q "$PEER_OUT/sscli-no-robots.xml")" "$PEER_OUT/sscli-no-robots.xml"
fi
if (( HAVE_SMJS )); then
    row "sitemap.js" peer "find DIR -name '*.html' -printf '%P\\n' | sed (URLs) | sitemap $SMJS_VERSION: no lastmod, no heads" "--no-html" ":" \
        "find $D $HTML -printf '%P\\n' | sed -e 's#\\(^\\|/\\)index\\.html\$#\\1#' -e 's#^#$BASE#' | $(q "$NODE" "$SMJS") > $(q "$PEER_OUT/sitemap-js.xml")" \
        "$PEER_OUT/sitemap-js.xml"
fi
if (( HAVE_SFF )); then
    SFF_CONFIG=$WORK/run/sitemap-from-files.toml
    python3 - "$DIR" "$BASE" >"$SFF_CONFIG" <<'PY'
import json, sys
# TOML basic strings take JSON's escapes.
print(f"root_dir = {json.dumps(sys.argv[1])}\nroot_url = {json.dumps(sys.argv[2])}\n")
print("[[rule]]\nmatch = '\\.html$'\ninclude = true\ncheck_html_meta_robots = true\n")
print("[[rule]]\nmatch = '(^|/)index\\.html$'\nreplace = '$1'")
PY
    row "sitemap-from-files" peer "sitemap-from-files CONFIG -o: walk, parses every page for noindex (check_html_meta_robots)" "default" ":" \
        "$(q "$SFF" "$SFF_CONFIG") -o $(q "$PEER_OUT/sitemap-from-files.xml")" "$PEER_OUT/sitemap-from-files.xml"
fi

# --- Check runs: each command once, for its exit status, peak RSS and URL count ----------
LOG=$WORK/bench.log
JSON=$WORK/hyperfine.json
: >"$LOG"
cd "$WORK/run" # a neutral working directory (static-sitemap-cli looks for a config there)

say "reading the whole tree once to warm the page cache ..."
find "$DIR" -type f -print0 | xargs -0 cat >/dev/null 2>&1 || true
say "preparing the unchanged state ..."
rm -f -- "$STATE2"
sh -c "$SG -o $(q "$OUT/state-unchanged.xml") --state $(q "$STATE2") $D" 2>>"$LOG" ||
    die "sitemapgen --state failed, see $LOG"
# A record: key, lastmod, digest, stamp (SIZE:MTIME:CTIME:INODE or -), streak, fingerprint.
awk '/^\// { $4 = "-" } { print }' "$STATE2" >"$STAMPLESS"
awk '/^\// { $6 = "-" } { print }' "$STAMPLESS" >"$BARE"
awk '/^\// && ++n % 100 == 0 { $3 = sprintf("%064d", 0); $6 = sprintf("%015d", 0) } { print }' \
    "$STAMPLESS" >"$CHANGED"
grep -qE '^/[^ ]* [^ ]* [^ ]* [0-9-]+:' "$STAMPLESS" && die "$STAMPLESS still holds stamps"
grep -qE ' [0-9a-f]{15}$' "$BARE" && die "$BARE still holds fingerprints"

# The files that hold a sitemap's URLs: its shards, in order, when it is an index (they sit
# beside it, named after it), else itself.
sitemap_files() {
    local f=$1 cat=cat
    [[ $f == *.gz ]] && cat="gzip -dc"
    local start
    start=$($cat "$f" 2>/dev/null | head -c 4096 || true)
    if [[ $start == *'<sitemapindex'* ]]; then
        local stem=${f%.gz}; stem=${stem%.xml}
        local ext=.xml; [[ $f == *.gz ]] && ext=.xml.gz
        local s
        for s in "$stem"-[0-9]*"$ext"; do if [[ -f $s ]]; then echo "$s"; fi; done | sort -V
    else
        echo "$f"
    fi
}
# URLs in a sitemap (following an index to its shards).
count_urls() {
    local f=$1 cat=cat n=0 s
    [[ -f $f ]] || { echo "-"; return; }
    [[ $f == *.gz ]] && cat="gzip -dc"
    while read -r s; do
        n=$((n + $($cat "$s" | { grep -o '<loc>' || true; } | wc -l)))
    done < <(sitemap_files "$f")
    echo "$n"
}
max_rss() { awk -F': ' '/Maximum resident set size/ { print $2 }' "$1"; }
RSS=() URLS=()
KEEP=()
for i in "${!NAMES[@]}"; do
    say "check run: ${NAMES[i]}"
    sh -c "${PREPARES[i]}"
    tfile=$WORK/time.txt
    if /usr/bin/time -v -o "$tfile" sh -c "${CMDS[i]}" >/dev/null 2>"$WORK/stderr.txt"; then
        RSS+=("$(max_rss "$tfile")")
        if [[ -n ${OUTPUTS[i]} ]]; then URLS+=("$(count_urls "${OUTPUTS[i]}")"); else URLS+=("-"); fi
        KEEP+=("$i")
    else
        { echo "--- ${NAMES[i]} failed: ${CMDS[i]}"; cat "$WORK/stderr.txt"; } >>"$LOG"
        [[ ${KINDS[i]} == peer ]] || { tail -n 20 "$WORK/stderr.txt" >&2; die "${NAMES[i]} failed: ${CMDS[i]}"; }
        why=$(grep -m1 -E '^[A-Za-z]*Error|error:' "$WORK/stderr.txt" || tail -n1 "$WORK/stderr.txt")
        SKIPPED+=("${NAMES[i]}: failed on this tree: ${why:0:200} (exit status and full message in $LOG)")
        RSS+=("-") URLS+=("-")
    fi
done
# A rebuild that changed no content keeps every date: the same sitemap as the unchanged run
# (an index names its shards after the output, so their contents are compared).
same_sitemaps() {
    local a b
    mapfile -t a < <(sitemap_files "$1")
    mapfile -t b < <(sitemap_files "$2")
    local i
    (( ${#a[@]} == ${#b[@]} )) || return 1
    for i in "${!a[@]}"; do cmp -s "${a[i]}" "${b[i]}" || return 1; done
}
same_sitemaps "$OUT/state-rebuilt.xml" "$OUT/state-unchanged.xml" ||
    die "the --state rebuilt run wrote another sitemap than the unchanged run: $OUT/state-rebuilt.xml"
same_sitemaps "$OUT/state-fresh.xml" "$OUT/state-unchanged.xml" ||
    die "the --state fresh CI run wrote another sitemap than the unchanged run: $OUT/state-fresh.xml"
# time -v (and -f %M) report the largest single process of the command, not the sum over
# its processes: for --lastmod git, sitemapgen and the git processes it runs are also
# measured together.
GIT_RSS=
for i in "${KEEP[@]}"; do
    if [[ ${NAMES[i]} == "--lastmod git" ]]; then
        GIT_RSS=$(sh -c "exec python3 $(q "$ROOT/benches/tree_rss.py") ${CMDS[i]}") ||
            die "${NAMES[i]} failed under benches/tree_rss.py"
    fi
done
"$BIN" -b "$BASE" -o "$OUT/default.xml" "$DIR" >/dev/null 2>"$WORK/summary.txt" || true
SUMMARY_LINE=$(tail -n1 "$WORK/summary.txt")
WARNINGS=$(grep -c 'warning:' "$WORK/summary.txt" || true)

# --- Timing ------------------------------------------------------------------------------
# How much of the pages sits in the page cache (resident pages against the pages each page
# file spans), before and after the timed runs.
PAGESIZE=$(getconf PAGESIZE)
cached_pages() {
    command -v fincore >/dev/null || return 0
    find "$DIR" -type f \( -name '*.html' -o -name '*.htm' \) -print0 |
        xargs -0 fincore -b -n -r -o PAGES,SIZE 2>/dev/null |
        awk -v p="$PAGESIZE" '{ r += $1; s += int(($2 + p - 1) / p) }
            END { if (s > 0) printf "%.1f%%", 100 * r / s }' || true
}
CACHED_BEFORE=$(cached_pages)
# Reads from block devices (system-wide, KiB) logged before the timing and after each
# command's runs: hyperfine's --cleanup runs once after all runs of each command.
PGPGIN=$WORK/pgpgin.txt
grep '^pgpgin ' /proc/vmstat >"$PGPGIN"
# CPUs kept busy by other work: /proc/stat sampled for 5 s while this script does nothing.
others_busy() {
    local a b
    a=$(head -n1 /proc/stat); sleep 5; b=$(head -n1 /proc/stat)
    awk -v a="$a" -v b="$b" -v n="$NPROC" 'BEGIN {
        split(a, x); split(b, y); t = 0; i = 0
        for (k = 2; k <= 9; k++) { t += y[k] - x[k] }   # user nice system idle iowait irq softirq steal
        i = (y[5] - x[5]) + (y[6] - x[6])
        printf "%.2f", (t > 0 ? n * (t - i) / t : 0) }'
}
BUSY_BEFORE=$(others_busy)
LOAD_BEFORE=$(cut -d' ' -f1-3 /proc/loadavg)
HF=(hyperfine --style basic --warmup "$WARMUP" --runs "$RUNS" --export-json "$JSON"
    --cleanup "grep '^pgpgin ' /proc/vmstat >> $(q "$PGPGIN")")
for i in "${KEEP[@]}"; do HF+=(--prepare "${PREPARES[i]}"); done
for i in "${KEEP[@]}"; do HF+=("--command-name=${NAMES[i]}" "${CMDS[i]}"); done
say "timing ${#KEEP[@]} commands, $WARMUP warmup + $RUNS runs each, in one hyperfine run (log: $LOG) ..."
"${HF[@]}" 2>&1 | tee -a "$LOG" >&2
LOAD_AFTER=$(cut -d' ' -f1-3 /proc/loadavg)
BUSY_AFTER=$(others_busy)

CACHED_AFTER=$(cached_pages)
# Proactive reclaim: a DAMON scheme that pages out memory idle for a while evicts page
# cache that MemAvailable counts as available.
DAMON=
for k in /sys/kernel/mm/damon/admin/kdamonds/*/; do
    [[ -r $k/state && $(cat "$k/state") == on ]] || continue
    for sch in "$k"contexts/*/schemes/*/; do
        [[ -r $sch/action && $(cat "$sch/action") == pageout ]] || continue
        aggr=$(cat "$sch/../../monitoring_attrs/intervals/aggr_us" 2>/dev/null || echo 0)
        age=$(cat "$sch/access_pattern/age/min" 2>/dev/null || echo 0)
        DAMON="this kernel runs DAMON proactive reclaim (pageout of memory idle for about $((aggr * age / 1000000)) s, at most $(( $(cat "$sch/quotas/bytes" 2>/dev/null || echo 0) / 1048576 )) MiB per $(cat "$sch/quotas/reset_interval_ms" 2>/dev/null || echo '?') ms): cached pages read only once per run of a long command can be evicted while it runs, whatever MemAvailable says"
    done
done

# --- Report ------------------------------------------------------------------------------
mib() { awk -v b="$1" 'BEGIN { printf "%.1f MiB", b / 1048576 }'; }
gib() { awk -v b="$1" 'BEGIN { printf "%.1f GiB", b / 1073741824 }'; }
CPU=$(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -n1)
MEM_TOTAL=$(awk '/^MemTotal:/ { printf "%.0f", $2 * 1024 }' /proc/meminfo)
VIRT=$(systemd-detect-virt 2>/dev/null || true)
FS=$(df -PT "$DIR" | awk 'NR == 2 { print $2 " on " $1 }')
if (( TREE_BYTES < MEM_AVAIL / 2 )); then FITS="fits the page cache"
elif (( TREE_BYTES < MEM_AVAIL )); then FITS="fits the page cache, barely: runs may evict each other's pages"
else FITS="does NOT fit the page cache: runs that read pages partly read from disk"; fi
TSV=$WORK/rows.tsv
: >"$TSV"
for i in "${KEEP[@]}"; do
    rss=${RSS[i]}
    printf '%s\t%s\t%s\t%s\t%s\t%s\n' "${NAMES[i]}" "${KINDS[i]}" "${SUMMARIES[i]}" \
        "${BASELINES[i]}" "$rss" "${URLS[i]}" >>"$TSV"
done

cat <<EOF
## sitemapgen benchmark: $NAME

- tree: $DIR ($( ((SYNTHETIC)) && echo "synthetic, generator v$GEN_VERSION: $TREE_STATS, fixed mtimes" || echo "read-only; outputs and states go to $WORK"))
- tree size: $PAGES pages (.html/.htm, $(mib "$PAGE_BYTES")), $FILES files, $DIRS directories, $LINKS symlinks; $(mib "$TREE_BYTES") on disk
- page cache: MemAvailable $(gib "$MEM_AVAIL") before the runs: the tree $FITS$( [[ -n $CACHED_BEFORE ]] && echo "; resident pages' bytes (fincore): $CACHED_BEFORE before the timed runs, $CACHED_AFTER after them")${DAMON:+
- WARNING: $DAMON; the column "disk reads/run" shows what each command read from disk}
- machine: ${CPU:-unknown CPU}, $NPROC CPUs (nproc), $(gib "$MEM_TOTAL") RAM, Linux $(uname -r)${VIRT:+, virtualization: $VIRT}, open files limit (ulimit -n) $(ulimit -n); tree on $FS
- other work on the machine: it kept $BUSY_BEFORE of the $NPROC CPUs busy just before the timed runs and $BUSY_AFTER just after (/proc/stat over 5 s while this script was idle); load average $LOAD_BEFORE before, $LOAD_AFTER after (this one counts the benchmark's own commands too)$(
    awk -v l="$BUSY_BEFORE" -v m="$BUSY_AFTER" -v n="$NPROC" 'BEGIN { if (l > 0.25 || m > 0.25)
        printf "\n- WARNING: the machine was busy with other work (over a quarter of a CPU): every figure below is slowed by it, unevenly; rerun on an idle machine for figures to quote" }')
- sitemapgen: $("$BIN" --version), $SOURCE; timed as a copy, $BIN (sha256 $BIN_SUM…)
- tools: $(hyperfine --version), $(find --version | head -n1)${FD:+, $("$FD" --version)}${NODE_VERSION:+, node $NODE_VERSION ($NODE)}
- timing: one hyperfine run over all commands, $WARMUP warmup + $RUNS timed runs each, after one read of the whole tree; times are wall-clock medians
EOF
python3 - "$JSON" "$TSV" "$GIT_RSS" "$PGPGIN" "$((WARMUP + RUNS))" <<'PY'
import csv, json, sys

results = {r["command"]: r for r in json.load(open(sys.argv[1]))["results"]}
rows = list(csv.reader(open(sys.argv[2]), delimiter="\t"))
git_rss = sys.argv[3]
# pgpgin (KiB read from block devices, system-wide) before the timing and after each command.
pgpgin = [int(line.split()[1]) for line in open(sys.argv[4])]
reads = {row[0]: (pgpgin[k + 1] - pgpgin[k]) / int(sys.argv[5]) / 1024
         for k, row in enumerate(rows) if k + 1 < len(pgpgin)}

def ms(s):
    v = s * 1000
    return f"{v:,.0f} ms" if v >= 10 else f"{v:.1f} ms"

def mib(kb):
    return f"{int(kb) / 1024:.1f} MiB" if kb not in ("", "-") else "-"

def med(name):
    return results[name]["median"]

kinds = {row[0]: row[1] for row in rows}
baselines = {row[0]: row[3] for row in rows}

def parallel_floor(name):
    """The floor that uses every core for the work of the row's serial floor."""
    b = name
    while baselines.get(b):           # a peer's baseline is a mode, whose baseline is a floor
        b = baselines[b]
    p = {"find -printf": "fd", "cat, serial": "cat, parallel"}.get(b)
    return p if p in results else None

print()
print("| mode | what runs | median | min–max | CPU (user+sys) | baseline | ratio vs baseline | vs parallel floor | peak RSS | URLs | disk reads/run |")
print("|---|---|--:|--:|--:|---|--:|--:|--:|--:|--:|")
for name, kind, summary, baseline, rss, urls in rows:
    r = results[name]
    cpu = r["user"] + r["system"]
    base = f"{baseline} ({ms(med(baseline))})" if baseline else "— (floor)"
    ratio = f"{med(name) / med(baseline):.2f}x" if baseline else "—"
    p = parallel_floor(name) if kind != "floor" else None
    vs_p = f"{med(name) / med(p):.2f}x {p}" if p else "—"
    rss_s = mib(rss)
    if name == "--lastmod git" and git_rss:
        peak, bound = git_rss.split()
        rss_s += f"; with its git: {mib(peak)} (at most {mib(bound)})"
    urls_s = f"{int(urls):,}" if urls.isdigit() else urls
    label = f"**{name}**" if kind == "mode" else (f"peer: {name}" if kind == "peer" else f"floor: {name}")
    summary = summary.replace("|", "\\|")
    print(f"| {label} | {summary} | {ms(med(name))} | {ms(r['min'])}–{ms(r['max'])} | "
          f"{ms(cpu)} | {base} | {ratio} | {vs_p} | {rss_s} | {urls_s} | "
          + (f"{reads[name]:,.1f} MiB |" if name in reads else "? |"))
PY
cat <<EOF

How to read it:
- ratio vs baseline = median / the baseline's median. sitemapgen's modes are measured
  against the floor of the work they do (--no-html: listing and stat'ing the files as
  find -printf does; the modes that read pages: cat of every page, one process at a time;
  --gzip and --images against the default mode, to show what compressing and finding
  images add); a peer is measured
  against the sitemapgen mode that does the same job, so a peer's ratio above 1 means the
  peer is slower. "vs parallel floor" compares with the same floor done
  on every core: for work that reads pages, "cat, parallel" ($NPROC cat processes at once);
  for work that only lists and stats files, fd (a parallel walk).
- disk reads/run: what the whole machine read from block devices (/proc/vmstat pgpgin)
  during the command's warmup and timed runs, divided by their number; near 0 means the
  command ran from the page cache (other work on the machine counts here too).
- CPU (user+sys) is hyperfine's mean CPU time of the whole command (all its processes and
  threads); CPU above the median wall time means more than one core was busy.
- peak RSS is GNU time's maximum resident set size of one separate run: the largest single
  process of the command (for a pipeline, its largest member; for --lastmod git, the larger
  of sitemapgen and the git processes it runs one after another), not a sum. For --lastmod
  git, "with its git" is sitemapgen and its git processes together in another run
  (benches/tree_rss.py): the largest sum of their resident memory, sampled every 2 ms, and
  "at most" sitemapgen's own peak plus its largest git's (each as its last sample read
  it), which the sum cannot pass while one git runs at a time, as sitemapgen runs them.
- URLs counts the <loc> elements each tool wrote (a sitemapgen index is followed to its
  shards). sitemapgen leaves out noindex pages, redirect stubs and pages whose canonical URL
  is another page; --no-html and the peers leave out fewer (sitemap.js none). Past 50,000
  URLs sitemapgen writes an index and shards; the peers write one file whatever the count.
- sitemapgen writes its output to a temp file, fsyncs it and renames it (a few tens of ms
  on some disks, whatever the tree's size); the floors write nothing.
- sitemapgen's own summary of the default run: $SUMMARY_LINE
EOF
if (( WARNINGS > 0 )); then
    echo "- it printed $WARNINGS warnings (stderr, discarded in the timed runs), the first:"
    echo "  $(grep -m1 'warning:' "$WORK/summary.txt" | cut -c1-240)"
fi
(( SYNTHETIC )) && [[ -f $DIR/.git ]] &&
    echo "- the synthetic tree is a git work tree: DIR/.git is one extra small file in the find and fd floors"
for s in ${GIT_NOTE:+"$GIT_NOTE"} ${SKIPPED[@]+"${SKIPPED[@]}"}; do echo "- skipped: $s"; done
echo
echo "Commands as run (sh -c; DIR = $DIR):"
echo
echo '```'
for i in "${KEEP[@]}"; do
    cmd=${CMDS[i]//"$D "/DIR }
    cmd=${cmd//"$D/"/"DIR/"}
    [[ $cmd != *"$D" ]] || cmd=${cmd%"$D"}DIR
    [[ ${PREPARES[i]} == : ]] || cmd="${PREPARES[i]//"$WORK"/\$WORK}  # before each run, then:"$'\n'"    ${cmd}"
    printf '%-20s %s\n' "${NAMES[i]}" "${cmd//"$WORK"/\$WORK}"
done
echo '```'
echo "(\$WORK = $WORK; hyperfine's report: $LOG, its JSON: $JSON)"
