#!/usr/bin/env bash
# The Windows build (x86_64-pc-windows-gnu), made and tested here without Windows: Debian
# sid's rustc with its matching rust-src (-Zbuild-std builds std for Windows), the mingw-w64
# linker and Wine, in a chroot made from the machine's Debian mirror and reused between runs
# (the first run takes minutes and ~5 GB; later ones seconds). Needs root (debootstrap,
# chroot, bind mounts); CI (.ci/run) runs it as root. Then:
#   - the .exe must write the Linux build's bytes for every real fixture site
#     (fixtures/real/*), each run on its own copy with the same arguments;
#   - the CLI suite runs against the .exe under Wine (the harness takes the program from
#     SITEMAPGEN_TEST_BIN), but the tests tests/cli/unix-only.txt names, with its reasons.
# Usage: scripts/windows.sh [all|setup|build|fixtures|tests [NAME...]|down] (default all);
# `tests NAME...` runs only the tests named (whole names, as `cargo test -- --exact` takes).
# SITEMAPGEN_WIN_CHROOT names the chroot's folder (default /opt/win-chroot).
set -euo pipefail
cd "$(dirname "$0")/.."
repo=$(pwd)
R=${SITEMAPGEN_WIN_CHROOT:-/opt/win-chroot}
# The Windows build's target folder lives in the chroot, so that it is reused like the chroot
# (CI keeps /opt between runs; a clean clone has no target/).
target=/var/cache/sitemapgen-win
exe=$target/x86_64-pc-windows-gnu/debug/sitemapgen.exe
wrapper=$R$target/sitemapgen-wine
# The machine's own Debian mirror, as its apt sources name it.
mirror=${WIN_MIRROR:-$(awk '/^URIs:/ {print $2; exit}' /etc/apt/sources.list.d/*.sources 2>/dev/null || true)}
tools="rustc cargo rust-src gcc-mingw-w64-x86-64 wine64 ca-certificates"

if [ "$(id -u)" != 0 ]; then
  echo "scripts/windows.sh: needs root (debootstrap, chroot, bind mounts)" >&2
  exit 1
fi

mount_all() {
  for m in proc sys dev dev/pts; do
    mountpoint -q "$R/$m" || mount --bind "/$m" "$R/$m"
  done
  # The checkout at its own path inside, so that a path means the same on both sides.
  mkdir -p "$R$repo"
  mountpoint -q "$R$repo" || mount --bind "$repo" "$R$repo"
}

down() {
  # Wine's server and services end first: they hold the chroot's /dev.
  chroot "$R" env WINEPREFIX=/tmp/wineprefix sh -c \
    '/usr/lib/x86_64-linux-gnu/wine/wineserver -k; /usr/lib/x86_64-linux-gnu/wine/wineserver -w' \
    2>/dev/null || true
  for m in "${repo#/}" dev/pts dev sys proc; do
    if mountpoint -q "$R/$m"; then umount "$R/$m"; fi
  done
}

setup() {
  if [ ! -e "$R/.win-base-ok" ]; then
    [ -n "$mirror" ] || { echo "scripts/windows.sh: no Debian mirror found; set WIN_MIRROR" >&2; exit 1; }
    command -v debootstrap >/dev/null ||
      DEBIAN_FRONTEND=noninteractive apt-get install -y -qq debootstrap >/dev/null
    down
    rm -rf --one-file-system "$R"
    debootstrap --variant=minbase sid "$R" "$mirror" >/dev/null
    touch "$R/.win-base-ok"
  fi
  # The mirror's sid InRelease can be past its Valid-Until: debootstrap does not check it, apt does.
  echo 'Acquire::Check-Valid-Until "false";' >"$R/etc/apt/apt.conf.d/99no-valid-until"
  cp /etc/resolv.conf "$R/etc/resolv.conf"
  # A local CA (a TLS-intercepting proxy) must be trusted inside too, or cargo cannot reach
  # crates.io.
  if ls /usr/local/share/ca-certificates/*.crt >/dev/null 2>&1; then
    mkdir -p "$R/usr/local/share/ca-certificates"
    cp /usr/local/share/ca-certificates/*.crt "$R/usr/local/share/ca-certificates/"
    if [ -x "$R/usr/sbin/update-ca-certificates" ]; then
      chroot "$R" update-ca-certificates >/dev/null
    fi
  fi
  mount_all
  if [ ! -e "$R/.win-tools-ok" ]; then
    chroot "$R" apt-get update -qq
    # shellcheck disable=SC2086 # one word per package
    chroot "$R" env DEBIAN_FRONTEND=noninteractive \
      apt-get install -y -qq --no-install-recommends $tools >/dev/null
    chroot "$R" apt-get clean
    chroot "$R" update-ca-certificates >/dev/null
    a=$(chroot "$R" dpkg-query -Wf '${Version}' rustc)
    b=$(chroot "$R" dpkg-query -Wf '${Version}' rust-src)
    [ "$a" = "$b" ] || { echo "scripts/windows.sh: rustc $a but rust-src $b" >&2; exit 1; }
    touch "$R/.win-tools-ok"
  fi
}

# cargo for Windows inside the chroot, on this checkout (its own target folder: the host's
# cargo and the chroot's are different versions).
win_cargo() {
  chroot "$R" env RUSTC_BOOTSTRAP=1 CARGO_TARGET_DIR="$target" \
    CARGO_TARGET_X86_64_PC_WINDOWS_GNU_LINKER=x86_64-w64-mingw32-gcc \
    sh -c 'cd "$1" && shift && exec cargo "$@"' sh "$repo" \
    "$@" -Zbuild-std=std,panic_abort --target x86_64-pc-windows-gnu
}

build() {
  # The debug profile: the same bytes as a release build, and a cold build in a fraction of
  # the time (-Zbuild-std builds std too).
  win_cargo build --locked
  # A Windows program as the tests run it: wine64 in the chroot, in the caller's folder (the
  # checkout, where the tests' temp dirs are, is at the same path inside), its status passed on.
  # The caller's environment goes in (the tests hand the program variables), but not the
  # tests' TMPDIR (with any TMPDIR set, this Wine aborts: "free(): invalid pointer"), nor cargo's
  # LD_LIBRARY_PATH of host libraries.
  cat >"$wrapper" <<WRAP
#!/bin/sh
exec chroot "$R" env -u LD_LIBRARY_PATH -u TMPDIR WINEPREFIX=/tmp/wineprefix WINEDEBUG=-all XDG_RUNTIME_DIR=/tmp \\
  sh -c 'cd "\$1" && shift && exec wine64 "\$@"' sh "\$PWD" "$exe" "\$@"
WRAP
  chmod +x "$wrapper"
  # One Wine server for every run that follows (each run would otherwise start its own); it
  # fails when one is already running, which is as good.
  chroot "$R" env WINEPREFIX=/tmp/wineprefix /usr/lib/x86_64-linux-gnu/wine/wineserver -p \
    </dev/null >/dev/null 2>&1 || true
  # The first run makes the Wine prefix, once here rather than by many tests at once, and
  # starts Wine's services, which outlive it: not on the caller's output, or a reader of it
  # waits for them.
  "$wrapper" --version </dev/null >/dev/null 2>&1 ||
    { echo "scripts/windows.sh: the Windows build does not run under Wine" >&2; exit 1; }
}

# The .exe against the Linux build on each real fixture site: a copy for each (mtimes kept),
# the same arguments, the same bytes in every file written, the same messages and status.
fixtures() {
  cargo build --quiet
  # Where that build went: CARGO_TARGET_DIR when set (a relative one from the checkout,
  # where cargo ran), else target/.
  local linux work
  linux=$(realpath -m "${CARGO_TARGET_DIR:-target}")/debug/sitemapgen
  # In the checkout, which the chroot sees at the same path, whatever CARGO_TARGET_DIR says.
  mkdir -p "$repo/target"
  work=$(mktemp -d "$repo/target/win-fixtures.XXXXXX")
  local failed=0 sites=0
  for site in fixtures/real/*/; do
    site=$(basename "$site")
    # Into the site, beside it with images, split in shards and gzipped.
    for args in "" "-o out/sitemap.xml --images" \
      "-o site/sitemap.xml.gz --max-urls 40 --clean-urls --gzip"; do
      for os in linux windows; do
        rm -rf "${work:?}/$os"
        mkdir -p "$work/$os/out"
        cp -a "fixtures/real/$site" "$work/$os/site"
        local bin=$linux
        [ $os = windows ] && bin=$wrapper
        # Its messages and status are compared too.
        # shellcheck disable=SC2086 # the arguments are words
        (cd "$work/$os" && "$bin" -q -b https://example.com/ $args site \
          2>stderr && echo 0 >status || echo $? >status)
      done
      if [ "$(cat "$work/linux/status")" != 0 ]; then
        echo "windows: $site ($args): the Linux build failed:" >&2
        cat "$work/linux/stderr" >&2
        failed=1
      elif diff -r "$work/linux" "$work/windows" >/dev/null; then
        echo "windows: $site ($args): the same bytes, messages and status"
      else
        echo "windows: $site ($args): the .exe wrote other bytes than the Linux build:" >&2
        diff -r "$work/linux" "$work/windows" | head -20 >&2
        failed=1
      fi
    done
    sites=$((sites + 1))
  done
  rm -rf "$work"
  [ $sites -gt 0 ] || { echo "scripts/windows.sh: no site under fixtures/real" >&2; return 1; }
  return $failed
}

# The CLI suite against the .exe, but the tests tests/cli/unix-only.txt names: the Windows
# build as the harness's program (SITEMAPGEN_TEST_BIN, SITEMAPGEN_TEST_OS), temp dirs in the
# checkout, which is at the same path inside.
tests() {
  local skips=()
  while read -r name _; do
    case $name in '' | '#'*) continue ;; esac
    skips+=(--skip "$name")
  done <tests/cli/unix-only.txt
  mkdir -p "$repo/target/wine-tmp"
  TMPDIR=$repo/target/wine-tmp SITEMAPGEN_TEST_OS=windows SITEMAPGEN_TEST_BIN=$wrapper \
    cargo test --test cli -- --exact "${skips[@]}" "$@"
}

case ${1:-all} in
  all) setup; build; trap down EXIT; fixtures; tests ;;
  setup) setup ;;
  build) setup; build ;;
  fixtures) setup; build; fixtures ;;
  tests) shift; setup; build; tests "$@" ;;
  down) down ;;
  *) echo "usage: scripts/windows.sh [all|setup|build|fixtures|tests [NAME...]|down]" >&2; exit 2 ;;
esac
