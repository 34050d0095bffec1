#!/usr/bin/env bash
# A sanity figure for the Windows build, not a promise: the .exe that scripts/windows.sh
# cross-builds, run under Wine, against the Linux build of the same (debug) profile, on the
# synthetic tree that benches/bench.sh builds. What differs is Wine (each Windows call made
# of Unix calls and requests to its server) and the Windows walk (std's directory reads and
# a stat through each file's handle, where Unix reads through directory descriptors with
# rustix). A real Windows machine is neither; the figure says only that nothing in the
# Windows path grows out of proportion.
#
# Usage: benches/windows.sh N
#   N  the synthetic tree of N pages (e.g. 200000) that benches/bench.sh N built under this
#      checkout, which the chroot sees at the same path:
#        BENCH_TREES=$PWD/target/sitemapgen-bench benches/bench.sh --quick N
#
# Environment:
#   RUNS=k          timed rounds (default 5); a round runs each command once, the two builds
#                   in turns, so that a machine shared with other work slows each alike
#   BENCH_TREES=DIR where bench.sh keeps its trees (default target/sitemapgen-bench)
#
# Needs root (scripts/windows.sh) and python3. The report (markdown) goes to stdout: for
# each command, the median wall-clock time of each build and the median of the rounds'
# ratios, with their spread.
set -euo pipefail

die() { echo "windows.sh: $*" >&2; exit 1; }
say() { echo "windows.sh: $*" >&2; }

case ${1:-} in
    '') die "usage: $0 N (see --help)" ;;
    -h | --help) sed -n '2,/^set -euo/p' "${BASH_SOURCE[0]}" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
esac
N=$1
[[ $N =~ ^[0-9]+$ ]] || die "N must be a whole number, not '$N'"
RUNS=${RUNS:-5}
[[ $RUNS =~ ^[1-9][0-9]*$ ]] || die "RUNS must be a whole number above 0, not '$RUNS'"
cd "$(dirname "$0")/.."
repo=$(pwd)
trees=$(realpath -m "${BENCH_TREES:-$repo/target/sitemapgen-bench}")
case $trees/ in
    "$repo"/*) ;;
    *) die "BENCH_TREES ($trees) must be under this checkout, which the chroot sees" ;;
esac
site=$trees/synthetic-$N/site
[[ -f $trees/synthetic-$N/site.complete ]] ||
    die "no tree of $N pages in $trees: build it with BENCH_TREES=$trees benches/bench.sh --quick $N"

cargo build --quiet
# Where that build went: CARGO_TARGET_DIR when set (a relative one from the checkout), else
# target/.
linux=$(realpath -m "${CARGO_TARGET_DIR:-target}")/debug/sitemapgen
scripts/windows.sh build >&2
trap 'scripts/windows.sh down' EXIT
wine=${SITEMAPGEN_WIN_CHROOT:-/opt/win-chroot}/var/cache/sitemapgen-win/sitemapgen-wine
# The sitemap inside DIR, as bench.sh writes it: past 50,000 URLs the shards need URLs under
# DIR. Emptied before each run, removed at the end.
out=$site/_winbench
results=$repo/target/win-bench.times
mkdir -p "$out"
trap 'rm -rf "$out" "$results"; scripts/windows.sh down' EXIT

# name|arguments
commands=(
    "--no-html|--no-html"
    "default|"
)

# Seconds one run takes; a failed run ends the benchmark.
timed() {
    local bin=$1 args=$2 start end
    rm -rf "${out:?}"/*
    start=$(date +%s.%N)
    # shellcheck disable=SC2086 # the arguments are words
    "$bin" -q -b https://example.com/ -o "$out/sitemap.xml" $args "$site" </dev/null >/dev/null ||
        die "$bin $args failed"
    end=$(date +%s.%N)
    awk -v a="$start" -v b="$end" 'BEGIN { printf "%.3f\n", b - a }'
}

: >"$results"
for round in $(seq "$RUNS"); do
    for command in "${commands[@]}"; do
        name=${command%%|*} args=${command#*|}
        # The builds take turns at going first.
        if (( round % 2 )); then order="linux windows"; else order="windows linux"; fi
        declare -A took=()
        for build in $order; do
            bin=$linux
            [[ $build == windows ]] && bin=$wine
            took[$build]=$(timed "$bin" "$args")
        done
        say "round $round, $name: Linux ${took[linux]} s, Windows under Wine ${took[windows]} s"
        echo "$name ${took[linux]} ${took[windows]}" >>"$results"
    done
done

echo "Windows build under Wine against the Linux build, both debug, synthetic tree of $N pages, $RUNS rounds:"
echo
python3 - "$results" <<'PY'
import statistics, sys

rows = {}
for line in open(sys.argv[1]):
    name, linux, windows = line.split()
    rows.setdefault(name, []).append((float(linux), float(windows)))
print("| command | Linux (median) | Windows under Wine (median) | ratio (median) | ratio (range) |")
print("|---|---|---|---|---|")
for name, runs in rows.items():
    ratios = [w / l for l, w in runs]
    print(f"| {name} | {statistics.median(l for l, _ in runs):.2f} s "
          f"| {statistics.median(w for _, w in runs):.2f} s "
          f"| {statistics.median(ratios):.1f}x | {min(ratios):.1f}x–{max(ratios):.1f}x |")
PY
