#!/usr/bin/env bash
# Time sitemapgen's walk against the walker crates (walkdir, jwalk, ignore::WalkParallel) on
# the same tree: every file that is not a directory listed with its size and mtime, in the
# walk's order (ignore also unordered). The crates run in benches/walkers (a cargo project
# of its own, outside the main build); sitemapgen runs as
#   sitemapgen DIR -b URL --no-html --include '*' --no-default-excludes --hidden --ignore-disallow --format txt
# which lists the same files (the walk, one stat each) and also maps each to a URL and
# writes the sitemap: sitemapgen does a little more than the crates.
#
# Usage: benches/walkers.sh TREE...
#   TREE  N           the synthetic tree of N pages that benches/bench.sh N built
#                     ($BENCH_TREES/synthetic-N/site)
#         rust-doc    /usr/share/doc/rust-doc/html (Debian package rust-doc)
#         /some/dir   any other tree, read-only (so at most 50,000 files: past that,
#                     sitemapgen writes its shards inside DIR)
#
# Environment:
#   RUNS=k             timed rounds (default 10)
#   WARMUP=k           untimed rounds first (default 2)
#   SITEMAPGEN_BIN=F   time this binary instead of building the checkout (cargo build --release)
#   BENCH_TREES=DIR    where bench.sh keeps its trees (default ${TMPDIR:-/tmp}/sitemapgen-bench)
#
# First it checks, on a small tree built here, that every walker keeps a non-UTF-8 name's
# bytes, does not follow a symlink loop, and (but ignore) gives sitemapgen's order; then, on
# each TREE, that every walker lists what sitemapgen lists, in its order. A round runs every
# command once, each round starting one command further on (A B C D E, B C D E A, ...), so
# that a machine shared with other work slows each alike; the ratios to sitemapgen (wall
# clock, and CPU time: user+sys) are taken within each round, and their medians printed with
# their spread. On a machine whose every core is kept busy by other work, no walk can use a
# second core: the CPU ratio is then the figure to read. The report (markdown) goes to
# stdout. Needs cargo and python3.
set -euo pipefail

die() { echo "walkers.sh: $*" >&2; exit 1; }
say() { echo "walkers.sh: $*" >&2; }

case ${1:-} in
    '') die "usage: $0 N|rust-doc|DIR... (see --help)" ;;
    -h | --help) sed -n '2,/^set -euo/p' "${BASH_SOURCE[0]}" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
esac
RUNS=${RUNS:-10} WARMUP=${WARMUP:-2}
[[ $RUNS =~ ^[1-9][0-9]*$ ]] || die "RUNS must be a positive integer, not '$RUNS'"
[[ $WARMUP =~ ^[0-9]+$ ]] || die "WARMUP must be a whole number, not '$WARMUP'"
TREES=${BENCH_TREES:-${TMPDIR:-/tmp}/sitemapgen-bench}
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
ROOT=$(dirname "$HERE")
command -v python3 >/dev/null || die "python3 not found"

# Each tree, and where sitemapgen writes: past 50,000 URLs the shards need URLs under DIR,
# so inside a synthetic tree (bench.sh's, which it writes into too); outside any other.
DIRS=() OUTS=()
for tree in "$@"; do
    case $tree in
        rust-doc) DIRS+=(/usr/share/doc/rust-doc/html) OUTS+=(outside) ;;
        *[!0-9]*) DIRS+=("$tree") OUTS+=(outside) ;;
        *) DIRS+=("$TREES/synthetic-$tree/site") OUTS+=("$TREES/synthetic-$tree/site/_walkers")
           [[ -f $TREES/synthetic-$tree/site.complete ]] ||
               die "no complete tree in $TREES/synthetic-$tree: run benches/bench.sh $tree first" ;;
    esac
    [[ -d ${DIRS[-1]} ]] || die "${DIRS[-1]} is not a directory"
done

say "building benches/walkers ..."
cargo build --release --quiet --manifest-path "$HERE/walkers/Cargo.toml"
WALKERS=$(cargo metadata --format-version 1 --no-deps --manifest-path "$HERE/walkers/Cargo.toml" |
    python3 -c 'import json, sys; print(json.load(sys.stdin)["target_directory"])')/release/walkers
if [[ -n ${SITEMAPGEN_BIN:-} ]]; then
    BIN=$SITEMAPGEN_BIN
else
    say "building sitemapgen ..."
    cargo build --release --quiet --manifest-path "$ROOT/Cargo.toml"
    BIN=$(cargo metadata --format-version 1 --no-deps --manifest-path "$ROOT/Cargo.toml" |
        python3 -c 'import json, sys; print(json.load(sys.stdin)["target_directory"])')/release/sitemapgen
fi
[[ -x $BIN ]] || die "$BIN is not an executable"

WORK=$(mktemp -d "${TMPDIR:-/tmp}/walkers.XXXXXX")
INSIDE=()
trap 'rm -rf -- "$WORK" "${INSIDE[@]}"' EXIT

# --- The small tree: names, loops, order ---------------------------------------------------
M=$WORK/mini
mkdir -p "$M/a/b"
for f in index.html about.html a/index.htm a/index.html a/b/page.html style.css .hidden.html \
    "$(printf 'caf\xe9.html')"; do
    echo x >"$M/$f"
done
ln -s .. "$M/a/b/loop"
ln -s about.html "$M/link.html"
EXPECTED=$(printf '%s\n' index.html .hidden.html a/index.html a/index.htm a/b/page.html \
    about.html "$(printf 'caf\xe9.html')" link.html style.css)
for walker in walkdir jwalk ignore-sorted ignore; do
    got=$("$WALKERS" "$walker" "$M" | cut -f1) || die "$walker failed on the small tree"
    [[ $walker != ignore ]] || { got=$(sort <<<"$got"); want=$(sort <<<"$EXPECTED"); }
    [[ $got == "${want:-$EXPECTED}" ]] ||
        die "$walker lists the small tree otherwise:"$'\n'"$got"
done
"$BIN" "$M" -b https://example.com/ --no-html --include '*' --no-default-excludes --hidden \
    --ignore-disallow --format txt -q -o "$WORK/mini.txt" 2>/dev/null
[[ $(cat "$WORK/mini.txt") == "$(printf 'https://example.com/%s\n' '' .hidden.html a/ \
    a/b/page.html about.html caf%E9.html link.html style.css)" ]] ||
    die "sitemapgen lists the small tree otherwise: $(cat "$WORK/mini.txt")"
say "small tree: each walker keeps the non-UTF-8 name's bytes and does not follow the loop"

# --- The machine ---------------------------------------------------------------------------
busy() { # CPUs kept busy over 2 s, by /proc/stat
    python3 -c '
import time
def t():
    f = [int(x) for x in open("/proc/stat").readline().split()[1:]]
    return sum(f), f[3] + f[4]
a = t(); time.sleep(2); b = t()
import os
print(f"{(1 - (b[1] - a[1]) / (b[0] - a[0])) * os.cpu_count():.2f}")'
}
echo "- machine: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //'), $(nproc) CPUs (nproc), Linux $(uname -r)"
echo "- sitemapgen: $("$BIN" --version), $BIN; crates: $(cd "$HERE/walkers" && cargo tree --depth 1 --prefix none -e normal | tail -n +2 | sort | tr '\n' ',' | sed 's/,$//; s/,/, /g')"
echo "- timing: $WARMUP warmup + $RUNS timed rounds, each command once a round, the order rotated each round; wall-clock medians, CPU = user+sys"

# --- Each tree -----------------------------------------------------------------------------
for i in "${!DIRS[@]}"; do
    dir=${DIRS[i]} out=${OUTS[i]}
    if [[ $out == outside ]]; then
        out=$WORK/out
    else
        [[ ! -e $out ]] || die "$out is in the way"
        INSIDE+=("$out")
    fi
    say "checking what each walker lists in $dir ..."
    SG=("$BIN" "$dir" -b https://example.com/ --no-html --include '*' --no-default-excludes
        --hidden --ignore-disallow --format txt -q -o "$out/walkers.txt")
    rm -rf -- "$out" && mkdir "$out"
    "${SG[@]}" || die "sitemapgen failed on $dir"
    # The crates list sitemapgen's output, where it lies inside DIR; sitemapgen does not.
    for walker in walkdir jwalk ignore-sorted ignore; do
        "$WALKERS" "$walker" "$dir" | cut -f1 | grep -v '^_walkers/' >"$WORK/$walker.list" ||
            die "$walker failed on $dir"
    done
    cmp -s "$WORK/walkdir.list" "$WORK/jwalk.list" || die "jwalk's list differs from walkdir's"
    cmp -s "$WORK/walkdir.list" "$WORK/ignore-sorted.list" || die "ignore's sorted list differs from walkdir's"
    cmp -s <(sort "$WORK/walkdir.list") <(sort "$WORK/ignore.list") || die "ignore lists other files"
    # sitemapgen's URLs in its order, against the crates' paths mapped as it maps them
    # (a directory's index file to the directory; a second index file left out).
    # shellcheck disable=SC2046 # the shards' names hold no space
    python3 - "$WORK/walkdir.list" $(ls -v "$out"/walkers*.txt) <<'PY' || die "sitemapgen's list differs"
import sys, urllib.parse
seen, want = set(), []
for line in open(sys.argv[1], "rb").read().splitlines():
    for index in (b"index.html", b"index.htm"):
        if line == index or line.endswith(b"/" + index):
            line = line[: -len(index)]
            break
    url = "https://example.com/" + urllib.parse.quote(line, safe="/!$&'()*+,;=:@-._~")
    if url not in seen:
        seen.add(url)
        want.append(url)
got = [u for f in sys.argv[2:] for u in open(f).read().split()]
if got != want:
    first = next((i for i, (a, b) in enumerate(zip(got, want)) if a != b), min(len(got), len(want)))
    sys.exit(f"{len(got)} URLs from sitemapgen, {len(want)} from the crates; first difference at {first}")
print(f"walkers.sh: {len(want)} URLs, the same in the same order", file=sys.stderr)
PY
    files=$(wc -l <"$WORK/walkdir.list")
    echo
    echo "**$dir** ($files files; other work kept $(busy) of $(nproc) CPUs busy just before):"
    echo
    python3 - "$RUNS" "$WARMUP" "$WORK" "$WALKERS" "$dir" "${SG[@]}" <<'PY'
import os, statistics, subprocess, sys, time

runs, warmup, work, walkers, tree = int(sys.argv[1]), int(sys.argv[2]), *sys.argv[3:6]
sg = sys.argv[6:]
commands = [
    ("sitemapgen", "sitemapgen --no-html --include '*' --no-default-excludes --hidden --ignore-disallow --format txt: "
     "its walk on -j 2 threads (names sorted per directory, a stat through the directory's "
     "descriptor), mapped to URLs, written", sg),
    ("walkdir", "walkdir 2, sort_by the walk's order, one thread; a stat by path", [walkers, "walkdir", tree]),
    ("jwalk", "jwalk, its default rayon pool (2 threads); process_read_dir sorts and stats", [walkers, "jwalk", tree]),
    ("ignore, sorted", "ignore::WalkParallel (2 threads, no filters), collected, sorted into the walk's order", [walkers, "ignore-sorted", tree]),
    ("ignore, unordered", "the same, written in the order found (not sitemapgen's order)", [walkers, "ignore", tree]),
]
times = {name: [] for name, _, _ in commands}
cpu = {name: [] for name, _, _ in commands}
for round in range(warmup + runs):
    for k in range(len(commands)):
        name, _, argv = commands[(round + k) % len(commands)]
        with open(os.path.join(work, "out.list"), "wb") as out:
            start = time.perf_counter()
            child = subprocess.Popen(argv, stdout=out, stderr=subprocess.DEVNULL)
            _, status, usage = os.wait4(child.pid, 0)
            wall = time.perf_counter() - start
        child.returncode = os.waitstatus_to_exitcode(status)
        if child.returncode != 0:
            sys.exit(f"{name} exited {child.returncode}")
        if round >= warmup:
            times[name].append(wall)
            cpu[name].append(usage.ru_utime + usage.ru_stime)

ms = lambda s: f"{s * 1000:,.0f} ms"
def ratio(of, name):
    """The median of the rounds' ratios to sitemapgen, and their spread."""
    if name == "sitemapgen":
        return "—"
    r = [a / b for a, b in zip(of[name], of["sitemapgen"])]
    return f"{statistics.median(r):.2f}x ({min(r):.2f}–{max(r):.2f})"

print("| walker | what runs | median | min–max | CPU (user+sys) | wall ratio to sitemapgen (min–max) | CPU ratio (min–max) |")
print("|---|---|--:|--:|--:|--:|--:|")
for name, what, _ in commands:
    t = times[name]
    print(f"| {name} | {what} | {ms(statistics.median(t))} | {ms(min(t))}–{ms(max(t))} "
          f"| {ms(statistics.median(cpu[name]))} | {ratio(times, name)} | {ratio(cpu, name)} |")
PY
    echo
    echo "(other work kept $(busy) of $(nproc) CPUs busy just after)"
done
