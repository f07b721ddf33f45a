#!/usr/bin/env bash
# Builds the DocC documentation of every library product, .build/docc-archives/<Product>.doccarchive, and
# merges them into one static site, .build/docc-site (entry point: /documentation/). Fails on any DocC
# warning (an unresolved symbol or article link, a malformed directive, ...).
#
#   scripts/docc.sh            build .build/docc-site (run by .ci/run)
#   scripts/docc.sh --serve    build, then serve it on http://127.0.0.1:${DOCC_PORT:-8000}/documentation/
#
# The articles are the guides of docs/, turned into temporary catalogs by scripts/docc_catalog.py (see
# there); the landing pages are Sources/<Target>/<Target>.docc/<Target>.md. Symbol graphs come from
# `swift build -emit-symbol-graph` in a scratch folder of its own, so the main build stays valid.
# DOCC_HOSTING_BASE sets the path the site folder is served under (default: the server's root).
set -euo pipefail
cd "$(dirname "$0")/.."

scratch=.build/docc
catalogs=.build/docc-catalogs
archives=.build/docc-archives
site=.build/docc-site
base="${DOCC_HOSTING_BASE:-}"
base="${base%/}"
hosting=()
if [ -n "$base" ]; then
    hosting=(--hosting-base-path "$base")
fi
docc="$(command -v docc || true)"
if [ -z "$docc" ]; then
    docc="$(dirname "$(readlink -f "$(command -v swift)")")/docc"
fi

echo "Symbol graphs: swift build -emit-symbol-graph (scratch path $scratch)"
# The compiler writes a module's graph when it compiles the module, so the folder is kept between runs;
# when graphs are missing although the build is up to date, the scratch folder is built afresh.
graphs="$PWD/$scratch/symbol-graphs"
log="$(mktemp)"
trap 'rm -f "$log"' EXIT
build_graphs() {
    mkdir -p "$graphs"
    if ! swift build --scratch-path "$scratch" -Xswiftc -emit-symbol-graph -Xswiftc -emit-symbol-graph-dir \
        -Xswiftc "$graphs" -Xswiftc -symbol-graph-minimum-access-level -Xswiftc public \
        -Xswiftc -symbol-graph-skip-synthesized-members >"$log" 2>&1; then
        cat "$log"
        exit 1
    fi
}
build_graphs
if ! python3 scripts/docc_catalog.py --symbol-graphs "$graphs" >/dev/null 2>&1; then
    rm -rf "$scratch"
    build_graphs
fi

echo "Catalogs: the guides of docs/ as articles, into $catalogs"
products="$(python3 scripts/docc_catalog.py --symbol-graphs "$graphs" --output "$catalogs")"

# One archive per product, then one site: `docc merge` puts every product under one /documentation/, so
# that an article of one product can link to an article of another (separate sites could not: DocC's
# renderer prefixes its own hosting base to every site-absolute link).
rm -rf "$archives" "$site"
mkdir -p "$archives"
warnings=0
merged=()
while IFS=$'\t' read -r product catalog product_graphs; do
    echo "docc convert: $product -> $archives/$product.doccarchive"
    status=0
    "$docc" convert "$catalog" --additional-symbol-graph-dir "$product_graphs" \
        --output-path "$archives/$product.doccarchive" "${hosting[@]}" \
        --transform-for-static-hosting --warnings-as-errors >"$log" 2>&1 || status=$?
    count="$(grep -cE '^(warning|error):' "$log" || true)"
    warnings=$((warnings + count))
    if [ "$status" -ne 0 ] || [ "$count" -ne 0 ]; then
        cat "$log"
        echo "docc convert failed for $product: $count warning(s) or error(s), exit status $status" >&2
        exit 1
    fi
    merged+=("$archives/$product.doccarchive")
done <<<"$products"

echo "docc merge: ${#merged[@]} products -> $site"
if ! "$docc" merge "${merged[@]}" --output-path "$site" --synthesized-landing-page-name ConnectionKit \
    --synthesized-landing-page-kind Package >"$log" 2>&1 || grep -qE '^(warning|error):' "$log"; then
    cat "$log"
    exit 1
fi
echo "DocC warnings: $warnings. Open $base/documentation/ on a server of $site (scripts/docc.sh --serve)."

if [ "${1:-}" = "--serve" ]; then
    port="${DOCC_PORT:-8000}"
    if [ -n "$base" ]; then
        echo "--serve serves the site at the server's root: unset DOCC_HOSTING_BASE" >&2
        exit 1
    fi
    echo "Serving on http://127.0.0.1:$port/documentation/ (Ctrl-C stops)"
    exec python3 -m http.server --bind 127.0.0.1 --directory "$site" "$port"
fi
