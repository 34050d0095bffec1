#!/usr/bin/env bash
# Benchmark sitemapgen against the file-system floors it should sit on, on a synthetic
# static-site tree: `find -printf` (one stat per file) and `find | xargs cat` (every page read).
#
# Usage: benches/bench.sh N [WORKDIR]
#   N        number of HTML pages (e.g. 10000, 200000, 1000000)
#   WORKDIR  where the tree lives (default: ${TMPDIR:-/tmp}/sitemapgen-bench/N)
#
# Environment:
#   RUNS=k         hyperfine runs per command (default 10, or 5 when N > 200000)
#   BENCH_STRACE=1 also count syscalls of one run of each command with `strace -c -f`
#
# The tree holds N pages of ~3 KB (every directory has an index.html, which counts as a
# page) plus 0.3*N small assets (.css/.png/.js), ~20 entries per directory, deterministic
# names and one fixed mtime. It is built once and reused while its marker file matches.
# Needs: cargo, python3, hyperfine, GNU find, /usr/bin/time (and strace for BENCH_STRACE).
set -euo pipefail

die() { echo "bench.sh: $*" >&2; exit 1; }

[[ $# -ge 1 && $# -le 2 ]] || die "usage: $0 N [WORKDIR]"
N=$1
[[ $N =~ ^[1-9][0-9]*$ ]] || die "N must be a positive integer, not '$N'"
WORK=${2:-${TMPDIR:-/tmp}/sitemapgen-bench/$N}
SITE=$WORK/site            # the tree that both commands read
# sitemapgen's output gets its own dir. It must lie inside the tree: past 50,000 URLs the
# sitemap is split into an index plus shards, whose URLs are only known inside DIR. The
# generated tree is otherwise left unchanged (find lists these few .xml files too).
OUT=$SITE/_sitemap
MARKER=$WORK/site.complete # written last: the tree is complete
FIXED_MTIME=1714557600     # 2024-05-01T10:00:00Z, so every run writes the same sitemap
if (( N > 200000 )); then RUNS=${RUNS:-5}; else RUNS=${RUNS:-10}; fi

# --- Tools -------------------------------------------------------------------------------
command -v hyperfine >/dev/null || die "hyperfine not found: apt-get install hyperfine"
[[ -x /usr/bin/time ]] || die "/usr/bin/time not found: apt-get install time"
command -v python3 >/dev/null || die "python3 not found: apt-get install python3"
command -v cargo >/dev/null || die "cargo not found"
find --version 2>/dev/null | grep -q GNU || die "GNU find is needed (for -printf)"
if [[ ${BENCH_STRACE:-0} == 1 ]]; then
    command -v strace >/dev/null || die "strace not found: apt-get install strace"
fi

# --- The tree ----------------------------------------------------------------------------
# The marker records the generator's parameters; change GEN_VERSION when the layout changes.
GEN_VERSION=1
EXPECTED="sitemapgen-bench tree v$GEN_VERSION N=$N mtime=$FIXED_MTIME"
if [[ -f $MARKER && $(head -n1 "$MARKER") == "$EXPECTED" ]]; then
    echo "reusing the tree in $SITE ($(sed -n 2p "$MARKER"))"
else
    mkdir -p "$WORK"
    rm -f "$MARKER"
    if [[ -e $SITE ]]; then
        echo "removing the incomplete or outdated tree $SITE"
        rm -rf -- "$SITE"
    fi
    echo "building a tree of $N pages in $SITE ..."
    start=$SECONDS
    # One Python process writes every file (no process per file); prints the file count.
    files=$(python3 - "$N" "$SITE" "$FIXED_MTIME" <<'PY'
import os, sys

n, site, mtime = int(sys.argv[1]), sys.argv[2], int(sys.argv[3])
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

filler = ("<p>" + "Lorem ipsum dolor sit amet, consectetur adipiscing elit. " * 3 + "</p>\n") * 16
def page(title):
    return (f"<!doctype html>\n<html lang=\"en\">\n<head><meta charset=\"utf-8\">"
            f"<title>{title}</title></head>\n<body>\n<h1>{title}</h1>\n{filler}"
            "</body>\n</html>\n").encode()
ASSETS = [(".css", b"body{margin:0;font:16px/1.5 sans-serif}\n" * 5),
          (".png", b"\x89PNG\r\n\x1a\n" + bytes(range(120))),
          (".js", b"document.documentElement.classList.add('js');\n" * 3)]
FLAGS = os.O_WRONLY | os.O_CREAT | os.O_TRUNC | os.O_CLOEXEC
width = len(str(n))

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
        write(dfd, "index.html", page(f"Section /{rel}"))
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
            write(dfd, f"page-{page_no:0{width}d}.html", page(f"Page {page_no}"))
        count += 1
    os.close(dfd)
assert count == n + assets and page_no + dirs == n, (count, page_no, dirs)
print(count)
PY
)
    printf '%s\nfiles=%s dirs=%s\n' "$EXPECTED" "$files" \
        "$(find "$SITE" -type d | wc -l)" >"$MARKER"
    echo "built $files files in $((SECONDS - start)) s"
fi
FILES=$(sed -n 's/^files=\([0-9]*\).*/\1/p' "$MARKER")

# --- The binary --------------------------------------------------------------------------
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
(cd "$ROOT" && cargo build --release --quiet)
BIN=$ROOT/target/release/sitemapgen
COMMIT=$(git -C "$ROOT" rev-parse --short HEAD 2>/dev/null || echo "no commit")
git -C "$ROOT" diff --quiet HEAD 2>/dev/null || COMMIT="$COMMIT+changes"
[[ -x $BIN ]] || die "$BIN was not built"

# --- Timing ------------------------------------------------------------------------------
# Three pairs, each a sitemapgen mode and the baseline it must not be slower than:
#   --no-html (walk, one stat per page, write)  vs  find -printf (one stat per file)
#   default (also reads every page's head)      vs  find | xargs cat (reads every page)
#   --state on a first run (hashes every page)  vs  find | xargs cat
# All in one hyperfine invocation, so they share the machine's state.
rm -rf -- "$OUT"
mkdir -p "$OUT"
STATE=$WORK/bench.state
q() { printf '%q ' "$@"; }
SG=("$BIN" -q -b https://example.com/ -o "$OUT/sitemap.xml")
FIND_CMD="$(q find "$SITE" -type f -printf '%T@ %p\n')> /dev/null"
CAT_CMD="$(q find "$SITE" -name '*.html' -print0) | xargs -0 cat > /dev/null"
NOHTML_CMD=$(q "${SG[@]}" --no-html "$SITE")
DEFAULT_CMD=$(q "${SG[@]}" "$SITE")
STATE_CMD="rm -f $(q "$STATE"); $(q "${SG[@]}" --state "$STATE" "$SITE")"

echo "warming the cache ..."
for cmd in "$FIND_CMD" "$CAT_CMD" "$DEFAULT_CMD"; do sh -c "$cmd"; done

JSON=$(mktemp "${TMPDIR:-/tmp}/sitemapgen-bench.XXXXXX.json")
TIME_LOG=$(mktemp "${TMPDIR:-/tmp}/sitemapgen-bench.XXXXXX.time")
trap 'rm -f -- "$JSON" "$TIME_LOG"' EXIT
hyperfine --warmup 1 --runs "$RUNS" --export-json "$JSON" \
    --command-name find "$FIND_CMD" \
    --command-name no-html "$NOHTML_CMD" \
    --command-name cat "$CAT_CMD" \
    --command-name default "$DEFAULT_CMD" \
    --command-name state "$STATE_CMD"

median() {
    python3 - "$JSON" "$1" <<'PY'
import json, sys
results = {r["command"]: r for r in json.load(open(sys.argv[1]))["results"]}
print(f'{results[sys.argv[2]]["median"] * 1000:.0f}')
PY
}
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.2f", a / b }'; }
FIND_MED=$(median find) NOHTML_MED=$(median no-html) CAT_MED=$(median cat)
DEFAULT_MED=$(median default) STATE_MED=$(median state)

# --- Memory ------------------------------------------------------------------------------
rss() {
    /usr/bin/time -v -o "$TIME_LOG" sh -c "$1"
    awk '/Maximum resident set size/ { printf "%.1f", $NF / 1024 }' "$TIME_LOG"
}
NOHTML_RSS=$(rss "$NOHTML_CMD") DEFAULT_RSS=$(rss "$DEFAULT_CMD") STATE_RSS=$(rss "$STATE_CMD")
OUT_FILES=$(find "$OUT" -type f | wc -l)

# --- Syscalls (optional) -----------------------------------------------------------------
if [[ ${BENCH_STRACE:-0} == 1 ]]; then
    for name in find no-html default; do
        log=$WORK/strace-$name.txt
        case $name in
            find) strace -c -f -o "$log" sh -c "$FIND_CMD" ;;
            no-html) strace -c -f -o "$log" sh -c "$NOHTML_CMD" ;;
            default) strace -c -f -o "$log" sh -c "$DEFAULT_CMD" ;;
        esac
        echo "--- syscalls of $name (strace -c -f, full table in $log)"
        tail -n1 "$log"
        sed -n '3,$p' "$log" | grep -v -e '^-' -e 'total$' | sort -k4,4nr | head -n 10
    done
fi

# --- Summary -----------------------------------------------------------------------------
CPU=$(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -n1)
MEM=$(awk '/^MemTotal:/ { printf "%.1f GiB", $2 / 1048576 }' /proc/meminfo)
cat <<EOF

===== sitemapgen benchmark =====
N (pages)   : $N, $FILES files in the tree ($(sed -n 's/.*\(dirs=[0-9]*\).*/\1/p' "$MARKER"))
machine     : $(nproc) CPUs, ${CPU:-unknown CPU}, $MEM RAM, $(uname -sr), fs $(stat -f -c %T "$SITE")
sitemapgen  : $("$BIN" --version) (built from $COMMIT), $OUT_FILES output file(s)
runs        : $RUNS (+1 warmup) each, hyperfine $(hyperfine --version | cut -d' ' -f2); medians

| pages | mode | sitemapgen | baseline | ratio | peak RSS |
|------:|------|-----------:|---------:|------:|---------:|
| $N | --no-html | $NOHTML_MED ms | find -printf $FIND_MED ms | $(ratio "$NOHTML_MED" "$FIND_MED")x | $NOHTML_RSS MiB |
| $N | default (heads) | $DEFAULT_MED ms | cat pages $CAT_MED ms | $(ratio "$DEFAULT_MED" "$CAT_MED")x | $DEFAULT_RSS MiB |
| $N | --state, first run | $STATE_MED ms | cat pages $CAT_MED ms | $(ratio "$STATE_MED" "$CAT_MED")x | $STATE_RSS MiB |
EOF
