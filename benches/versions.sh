#!/usr/bin/env bash
# Memory with the number of builds under --sub-builds (doc/outputs.md, "Sub-builds"): a
# deploy root of BUILDS builds of PAGES pages each, every build with its own sitemap.xml
# (its pages dated), and 100 pages of the root's own; sitemapgen --sub-builds on it, under
# /usr/bin/time -v, for 5 builds and for 50. Peak RSS must not grow with the builds.
#
#   benches/versions.sh [PAGES]        # default 2000; SITEMAPGEN_BIN names the binary
set -euo pipefail
pages=${1:-2000}
bin=${SITEMAPGEN_BIN:-target/release/sitemapgen}
work=${TMPDIR:-/tmp}/sitemapgen-versions-bench
[ -x "$bin" ] || { echo "no $bin: cargo build --release first" >&2; exit 2; }

# build ROOT N: N builds of $pages pages under ROOT (built once, reused).
build() {
  local root=$1 builds=$2
  [ -e "$root/.built" ] && return
  rm -rf "$root"
  python3 - "$root" "$builds" "$pages" <<'PY'
import os, sys
root, builds, pages = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
head = "<!doctype html><html><head><meta charset=utf-8><title>Page {n}</title></head>"
def page(path, n):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w") as f:
        f.write(head.format(n=n) + "<body><main><p>" + "text " * 100 + "</p></main></body></html>")
for n in range(100):
    page(f"{root}/about/p{n}/index.html", n)
for b in range(builds):
    v = f"{b}.0"
    urls = []
    for n in range(pages):
        page(f"{root}/{v}/d{n // 100}/p{n}/index.html", n)
        urls.append(f"<url><loc>https://example.com/{v}/d{n // 100}/p{n}/</loc>"
                    f"<lastmod>2025-{1 + n % 12:02d}-{1 + b % 28:02d}</lastmod></url>\n")
    with open(f"{root}/{v}/sitemap.xml", "w") as f:
        f.write('<?xml version="1.0" encoding="UTF-8"?>\n'
                '<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">\n')
        f.writelines(urls)
        f.write("</urlset>\n")
PY
  touch "$root/.built"
}

echo "machine: $(nproc) CPUs, $(uname -r); binary $bin; $pages pages a build"
echo "| builds | URLs in their sitemaps | wall | peak RSS |"
echo "|--:|--:|--:|--:|"
for builds in 5 50; do
  root=$work/$builds
  build "$root" "$builds"
  "$bin" -q -b https://example.com/ --sub-builds --no-config "$root"  # warm the cache
  out=$( { /usr/bin/time -v "$bin" -q -b https://example.com/ --sub-builds --no-config "$root"; } 2>&1 )
  rss=$(sed -n 's/.*Maximum resident set size (kbytes): //p' <<<"$out")
  wall=$(sed -n 's/.*Elapsed (wall clock) time (h:mm:ss or m:ss): //p' <<<"$out")
  entries=$(grep -c '<sitemap>' "$root/sitemap.xml")
  [ "$entries" -eq $((builds + 1)) ] || { echo "the index lists $entries sitemaps" >&2; exit 1; }
  printf '| %d | %d | %s | %.1f MiB |\n' "$builds" $((builds * pages)) "$wall" "$(bc -l <<<"$rss / 1024")"
done
