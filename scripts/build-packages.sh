#!/usr/bin/env bash
# The Linux x86_64 wheel and npm packages from a checkout, before a release publishes them:
# built as .github/workflows/release.yml builds them (maturin and zig link a manylinux2014
# wheel against glibc 2.17; npm pack, with the binary in the linux-x64 package). The package
# tests (tests/packages) build theirs with this script.
#
#   scripts/build-packages.sh [OUT [wheel|npm]...]     (default: target/packages, both)
#
# OUT/wheels/sitemapgen_cli-VERSION-py3-none-manylinux2014_x86_64.whl, and
# OUT/npm/sitemapgen-cli-VERSION.tgz with OUT/npm/sitemapgen-cli-linux-x64-VERSION.tgz. The
# wheel needs maturin and ziglang (pip install maturin==1.16.0 ziglang==0.15.1), the npm
# packages npm and the wheel's build (the npm step takes its binary). The release's linux-x64
# npm package holds a static musl binary; this one holds the wheel's, which runs on glibc.
# PROFILE is the cargo profile (default release); CARGO_TARGET_DIR is honoured; OFFLINE=1
# builds with cargo's --offline.
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
out=$(realpath -m "${1:-$top/target/packages}")
[ $# -gt 0 ] && shift
steps=("$@")
[ ${#steps[@]} -gt 0 ] || steps=(wheel npm)
profile=${PROFILE:-release}
target=x86_64-unknown-linux-gnu
offline=()
[ "${OFFLINE:-}" = 1 ] && offline=(--offline)

for step in "${steps[@]}"; do
  case $step in
    wheel)
      rm -rf "$out/wheels"
      (cd "$top" && maturin build --zig --profile "$profile" --locked "${offline[@]}" \
        --target "$target" --compatibility manylinux2014 --out "$out/wheels")
      ;;
    npm)
      binary=${CARGO_TARGET_DIR:-$top/target}/$target/$profile/sitemapgen
      if [ ! -x "$binary" ]; then
        echo "build-packages.sh: no $binary: build the wheel first ($0 $out wheel npm)" >&2
        exit 1
      fi
      # Packed from copies, so that no binary is ever put into the checkout.
      rm -rf "$out/npm"
      mkdir -p "$out/npm/src"
      cp -R "$top/npm/sitemapgen-cli" "$top/npm/sitemapgen-cli-linux-x64" "$out/npm/src/"
      install -m 755 "$binary" "$out/npm/src/sitemapgen-cli-linux-x64/sitemapgen"
      for name in sitemapgen-cli sitemapgen-cli-linux-x64; do
        (cd "$out/npm" && npm pack "./src/$name" --cache "$out/npm/cache" --loglevel=error >/dev/null)
      done
      ;;
    *)
      echo "build-packages.sh: no step $step (wheel or npm)" >&2
      exit 2
      ;;
  esac
done
