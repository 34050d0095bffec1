#!/usr/bin/env bash
# The install figures in README.md ("## Install"): the sizes of the Linux x86_64 wheel and
# npm packages as the release builds them (`--release`, manylinux2014 by zig), and the time
# from installing each (pip from the built wheel, npm from the packed packages, both
# offline) to the first sitemap of the quick-start site. With INSTALL_BENCH_CARGO=1, also a
# cold `cargo install --path . --locked` (a fresh target folder: every crate compiled).
# Needs maturin and ziglang (as .ci/run installs them), python3, node and npm.
set -euo pipefail
cd "$(dirname "$0")/.."

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
target_dir=${CARGO_TARGET_DIR:-$PWD/target}/install-bench
site="$work/site"
cp -r fixtures/hugo "$site"

now() { date +%s.%N; }
# seconds since $1, with one decimal
since() { awk -v start="$1" -v end="$(now)" 'BEGIN { printf "%.1f", end - start }'; }

echo "machine: $(nproc) cores, $(uname -m), $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | xargs)"
echo "version: $(git describe --always --dirty 2>/dev/null || echo unknown)"

CARGO_TARGET_DIR="$target_dir/wheel" maturin build --release --locked --zig \
  --target x86_64-unknown-linux-gnu --compatibility manylinux2014 --out "$work/wheels" \
  >"$work/maturin.log" 2>&1 || { cat "$work/maturin.log"; exit 1; }
wheel=$(echo "$work"/wheels/*.whl)
binary="$target_dir/wheel/x86_64-unknown-linux-gnu/release/sitemapgen"
echo "wheel: $(basename "$wheel"): $(stat -c %s "$wheel") bytes"

mkdir -p "$work/npm"
cp -r npm/sitemapgen-cli npm/sitemapgen-cli-linux-x64 "$work/npm/"
install -m 755 "$binary" "$work/npm/sitemapgen-cli-linux-x64/sitemapgen"
for package in sitemapgen-cli sitemapgen-cli-linux-x64; do
  tarball=$(cd "$work" && npm pack --silent --cache "$work/npm-cache" "./npm/$package")
  echo "npm: $tarball: $(stat -c %s "$work/$tarball") bytes"
done

# The venv and the npm project exist before the clock starts: what is timed is the install
# and the first run.
python3 -m venv "$work/venv"
start=$(now)
"$work/venv/bin/pip" install -q --no-index --no-deps --disable-pip-version-check "$wheel"
"$work/venv/bin/sitemapgen" -q -b https://example.com/ "$site"
echo "pip install of the wheel to the first sitemap: $(since "$start") s"
rm "$site/sitemap.xml"

mkdir "$work/project"
echo '{ "name": "a-site", "private": true }' >"$work/project/package.json"
start=$(now)
(cd "$work/project" \
  && npm install -s --ignore-scripts --offline --no-audit --no-fund \
    --registry http://127.0.0.1:9/ --cache "$work/npm-cache" \
    "$work/sitemapgen-cli-"*.tgz \
  && npx --offline sitemapgen -q -b https://example.com/ "$site")
echo "npm install of the packages to the first sitemap: $(since "$start") s"

if [ "${INSTALL_BENCH_CARGO:-}" = 1 ]; then
  rm -rf "$target_dir/cargo-install"
  start=$(now)
  CARGO_TARGET_DIR="$target_dir/cargo-install" cargo install -q --locked --path . \
    --root "$work/cargo-root"
  "$work/cargo-root/bin/sitemapgen" -q -b https://example.com/ "$site"
  echo "cargo install (cold) to the first sitemap: $(since "$start") s"
fi
