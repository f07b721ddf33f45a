#!/usr/bin/env bash
# Fuzzes ConnectionKit's parsers of untrusted bytes with libFuzzer under AddressSanitizer.
#
#   scripts/fuzz.sh [seconds-per-target] [target ...]
#
# Builds the Fuzz/ package (its own .build, so the root's build is untouched), then runs each target
# for the given time (default 30 s), starting from its seeds in Fuzz/Corpus/<target>/. New inputs go
# to Fuzz/.build/corpus/<target>/ (not into the repository); a crash, a hang over 10 s or a run over
# 2 GiB is written to Fuzz/.build/crashes/<target>-*, and the script then fails after the last target.
# Reproduce one with: FUZZ_TARGET=<target> Fuzz/.build/debug/ConnectionKitFuzz <file>
# To keep a crash as a regression, fix it and copy the file into Fuzz/Corpus/<target>/.
set -euo pipefail
cd "$(dirname "$0")/.."

seconds="${1:-30}"
shift || true

# Every target (FuzzTarget.swift has one case per name; Fuzz/Corpus/<name>/ holds its seeds).
all_targets=(
    json
    http-date
    resume
    url-composition
    multipart
    credential-file
    offline-queue-entry
    request-reader
    inspector-request-reader
    request-validator
    curl-command
    sse-retry
    set-cookie
    http-cache-entry
)
if [ $# -gt 0 ]; then targets=("$@"); else targets=("${all_targets[@]}"); fi

# `--sanitize=fuzzer` makes SwiftPM link the executable for libFuzzer (which supplies `main`). The
# compiler flag is given again combined with address: swiftc keeps only the last `-sanitize=` it is
# given, and SwiftPM passes `-sanitize=fuzzer -sanitize=address` as two flags, which drops the
# coverage instrumentation without a word (the fuzzer then runs blind).
echo "==> Building Fuzz/ under libFuzzer and AddressSanitizer"
swift build --package-path Fuzz --sanitize=fuzzer -Xswiftc -sanitize=fuzzer,address
binary="Fuzz/.build/debug/ConnectionKitFuzz"

# Leak detection is off as in the ASan test step: Foundation keeps caches that LeakSanitizer reports.
export ASAN_OPTIONS="detect_leaks=0:${ASAN_OPTIONS:-}"
# Swift's own crash handler reads the crashed process's memory, which ASan reports as a second,
# unrelated error; libFuzzer's report of the first one is what counts.
export SWIFT_BACKTRACE="enable=no"
mkdir -p Fuzz/.build/crashes Fuzz/.build/logs
failed=()
summary=()
for target in "${targets[@]}"; do
    seeds="Fuzz/Corpus/$target"
    work="Fuzz/.build/corpus/$target"
    log="Fuzz/.build/logs/$target.log"
    if [ ! -d "$seeds" ]; then
        echo "no seeds for '$target' in $seeds" >&2
        exit 2
    fi
    mkdir -p "$work"
    echo "==> $target: ${seconds} s"
    status=0
    FUZZ_TARGET="$target" "$binary" "$work" "$seeds" \
        -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 -max_len=8192 \
        -print_final_stats=1 -artifact_prefix="Fuzz/.build/crashes/$target-" >"$log" 2>&1 || status=$?
    runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log")
    rate=$(sed -n 's/^stat::average_exec_per_sec: *//p' "$log")
    coverage=$(grep -o 'cov: [0-9]*' "$log" | tail -1 || true)
    line=$(printf '%-20s %12s runs %8s exec/s  %s' "$target" "${runs:-?}" "${rate:-?}" "${coverage:-}")
    if [ "$status" -ne 0 ]; then
        failed+=("$target")
        line="$line  FAILED (exit $status)"
        tail -40 "$log"
    fi
    echo "$line"
    summary+=("$line")
done

echo
echo "==> Fuzzing summary (${seconds} s per target)"
printf '%s\n' "${summary[@]}"
if [ ${#failed[@]} -gt 0 ]; then
    echo "crashes in: ${failed[*]} (inputs in Fuzz/.build/crashes/, logs in Fuzz/.build/logs/)" >&2
    exit 1
fi
