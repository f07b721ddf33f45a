#!/usr/bin/env bash
# The offline queue's figures (docs/offline-queue.md, "Performance"): enqueue and drain rates from
# OfflineQueueBench, then the syncs (fsync + fdatasync) per acknowledged write, counted with strace.
#
#   Benchmarks/offline-queue.sh                 default counts, 3 rounds
#   Benchmarks/offline-queue.sh --rounds 1      any OfflineQueueBench option is passed on
#
# The queue lives in $TMPDIR (default /tmp): run it on the disk your app's queue would use.
set -euo pipefail
cd "$(dirname "$0")"
say() { printf '==> %s\n' "$*" >&2; }

say "building OfflineQueueBench (release)"
swift build -c release -Xswiftc -warnings-as-errors --product OfflineQueueBench >&2
BIN="$(swift build -c release --show-bin-path)/OfflineQueueBench"

"$BIN" "$@"

if ! command -v strace >/dev/null 2>&1; then
    say "strace not found: syncs per write not counted (apt-get install strace)"
    exit 0
fi
WRITES=2000
echo
echo "| row | syncs | acknowledged writes | syncs per write |"
echo "|---|---:|---:|---:|"
for producers in 1 16; do
    trace="$(mktemp)"
    strace -f -c -e trace=fsync,fdatasync -o "$trace" \
        "$BIN" --only enqueue --producers "$producers" --writes "$WRITES" --rounds 1 >/dev/null
    syncs="$(awk '$NF == "fsync" || $NF == "fdatasync" { total += $4 } END { print total + 0 }' "$trace")"
    rm -f "$trace"
    awk -v s="$syncs" -v w="$WRITES" -v p="$producers" \
        'BEGIN { printf "| enqueue, %d producer%s | %d | %d | %.2f |\n", p, (p == 1 ? "" : "s"), s, w, s / w }'
done
