#!/usr/bin/env bash
# Time and memory of --add-urls with the size of its file (issue 44): a text file of LINES
# URLs (`https://e.com/D/N`, one in twenty with a date; 10,000,000 lines are 224 MiB, under
# the file's cap of 256 MiB), given to a site of
# one page; RUNS runs each of sitemapgen and of the baseline, GNU `sort` of the same file
# (what putting the lines in order costs at the least: sitemapgen lists them in the walk's
# order). Prints the medians, their ratio, sitemapgen's peak RSS and that peak per URL.
#
#   benches/added.sh [LINES...]     # default 100000 1000000 10000000; SITEMAPGEN_BIN, RUNS
set -euo pipefail
bin=${SITEMAPGEN_BIN:-target/release/sitemapgen}
runs=${RUNS:-3}
work=${TMPDIR:-/tmp}/sitemapgen-added-bench
[ -x "$bin" ] || { echo "no $bin: cargo build --release first" >&2; exit 2; }
[ $# -gt 0 ] || set -- 100000 1000000 10000000
mkdir -p "$work/site"
echo '<!doctype html><html><head><title>Home</title></head><body>Home</body></html>' \
  >"$work/site/index.html"

# The median of the numbers on stdin.
median() { sort -g | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }

echo "machine: $(nproc) CPUs, $(uname -r); binary $bin; $runs runs each"
echo "| URLs | file | sitemapgen (median) | sort (median) | ratio | peak RSS | RSS per URL |"
echo "|--:|--:|--:|--:|--:|--:|--:|"
for lines in "$@"; do
  file=$work/urls-$lines.txt
  [ -e "$file" ] || python3 - "$file" "$lines" <<'PY'
import sys
path, lines = sys.argv[1], int(sys.argv[2])
with open(path, "w") as f:
    for n in range(lines):
        date = f" 2025-{1 + n % 12:02d}-01" if n % 20 == 0 else ""
        f.write(f"https://e.com/{n // 1000}/{n % 1000}{date}\n")
PY
  ours=() base=() rss=()
  for _ in $(seq "$runs"); do
    out=$( { /usr/bin/time -f '%e %M' "$bin" -b https://e.com/ --no-config \
      --add-urls "$file" "$work/site"; } 2>&1 ) || { echo "$out" >&2; exit 1; }
    [ "$(sed -n 's/.*(\([0-9,]*\) from --add-urls).*/\1/p' <<<"$out" | tr -d ,)" = "$lines" ] ||
      { echo "sitemapgen did not list $lines added URLs: $out" >&2; exit 1; }
    read -r wall kb < <(tail -n1 <<<"$out")
    ours+=("$wall") rss+=("$kb")
    base+=("$( { /usr/bin/time -f '%e' sort "$file" >/dev/null; } 2>&1 | tail -n1)")
  done
  t=$(printf '%s\n' "${ours[@]}" | median)
  b=$(printf '%s\n' "${base[@]}" | median)
  kb=$(printf '%s\n' "${rss[@]}" | sort -g | tail -n1)
  printf "| %d | %.1f MiB | %.2f s | %.2f s | %.1fx | %.1f MiB | %.0f bytes |\n" "$lines" \
    "$(bc -l <<<"$(stat -c %s "$file") / 1048576")" "$t" "$b" "$(bc -l <<<"$t / $b")" \
    "$(bc -l <<<"$kb / 1024")" "$(bc -l <<<"$kb * 1024 / $lines")"
done
