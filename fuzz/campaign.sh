#!/usr/bin/env bash
# Runs every fuzz target (or those named) for SECONDS each, two at a time, and prints how
# many inputs each ran. Needs cargo-fuzz and a nightly toolchain (doc/development.md, "Fuzzing").
#
#   fuzz/campaign.sh [SECONDS] [TARGET...]      (default: 600 seconds, every target)
#
# SANITIZER (default none) goes to cargo fuzz's --sanitizer: the code under test is safe Rust,
# and AddressSanitizer costs over two thirds of the inputs; `SANITIZER=address` adds it.
#
# Inputs found grow fuzz/corpus/TARGET (kept between campaigns, not committed); a finding
# stops its target and is saved under fuzz/artifacts/TARGET.
set -euo pipefail
cd "$(dirname "$0")"
seconds=${1:-600}
sanitizer=${SANITIZER:-none}
shift || true
targets=("$@")
if [ ${#targets[@]} -eq 0 ]; then
    mapfile -t targets < <(cargo +nightly fuzz list)
fi
cargo +nightly fuzz build --sanitizer "$sanitizer"

# Seeds: the heads of the fixtures' pages (after the two bytes that choose the read buffer's
# size), one valid state file, and a dictionary of the command line's options.
mkdir -p corpus/head corpus/state_file logs
for page in ../fixtures/heads/*.html ../fixtures/multilingual/*/index.html; do
    name=$(echo "$page" | tr / _)
    { printf '\000\001'; head -c 4096 "$page"; } > "corpus/head/seed$name"
done
digest=af1349b9f5f9a1a6a0404dea36dcc9499bcb25c9adc112b7cc9a93cae41f3262 # BLAKE3 of nothing
printf 'sitemapgen-state 1\ndigest blake3 ignore=-\n/ 2024-05-01 %s 10 1714550400\n/a.html - %s 0 -1\nend 2\n' \
    "$digest" "$digest" > corpus/state_file/seed-valid
{
    grep -o '\\-\\-[a-z]\([a-z]\|\\-\)*' ../man/sitemapgen.1 | sed 's/\\-/-/g' | sort -u
    printf '%s\n' -b -o -q -v . - https://example.com/ '*.html' drafts/ '*=0.5' '*=daily' \
        2024-05-01 git none txt base-url dir include exclude true false '[' '=' '"'
} | sed 's/["\\]/\\&/g; s/.*/"&"/' > logs/config.dict

run() {
    local target=$1 extra=()
    [ "$target" = config ] && extra=(-dict=logs/config.dict)
    mkdir -p "corpus/$target"
    if cargo +nightly fuzz run --sanitizer "$sanitizer" "$target" "corpus/$target" -- \
        -max_total_time="$seconds" \
        -print_final_stats=1 "${extra[@]}" > "logs/$target.log" 2>&1; then
        result="no finding"
    else
        result="FINDING (see fuzz/logs/$target.log)"
    fi
    runs=$(sed -n 's/^Done \([0-9]*\) runs in \([0-9]*\) second.*/\1 runs in \2 s/p' "logs/$target.log")
    echo "$target: ${runs:-?}: $result"
}
export -f run
export seconds sanitizer
printf '%s\n' "${targets[@]}" | xargs -P 2 -I{} bash -c 'run {}'
