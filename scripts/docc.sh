#!/usr/bin/env bash
# Builds the DocC documentation of every library product as a static site, .build/docc-site/<product>,
# and fails on any DocC warning (an unresolved symbol or article link, a malformed directive, ...).
#
#   scripts/docc.sh            build .build/docc-site (run by .ci/run)
#   scripts/docc.sh --serve    build, then serve it on http://127.0.0.1:${DOCC_PORT:-8000}/ until Ctrl-C
#
# The articles are the guides of docs/, turned into temporary catalogs by scripts/docc_catalog.py (see
# there); the landing pages are Sources/<Target>/<Target>.docc/<Target>.md. Symbol graphs come from
# `swift build -emit-symbol-graph` in a scratch folder of its own, so the main build stays valid.
# DOCC_HOSTING_BASE sets the path the site folder is served under (default: the server's root).
set -euo pipefail
cd "$(dirname "$0")/.."

scratch=.build/docc
catalogs=.build/docc-catalogs
site=.build/docc-site
base="${DOCC_HOSTING_BASE:-}"
base="${base%/}"
docc="$(command -v docc || true)"
if [ -z "$docc" ]; then
    docc="$(dirname "$(readlink -f "$(command -v swift)")")/docc"
fi

echo "Symbol graphs: swift build -emit-symbol-graph (scratch path $scratch)"
graphs="$PWD/$scratch/symbol-graphs"
rm -rf "$graphs"
mkdir -p "$graphs"
log="$(mktemp)"
trap 'rm -f "$log"' EXIT
if ! swift build --scratch-path "$scratch" -Xswiftc -emit-symbol-graph -Xswiftc -emit-symbol-graph-dir \
    -Xswiftc "$graphs" -Xswiftc -symbol-graph-minimum-access-level -Xswiftc public \
    -Xswiftc -symbol-graph-skip-synthesized-members >"$log" 2>&1; then
    cat "$log"
    exit 1
fi

echo "Catalogs: the guides of docs/ as articles, into $catalogs"
products="$(python3 scripts/docc_catalog.py --symbol-graphs "$graphs" --output "$catalogs" --hosting-base "$base")"

rm -rf "$site"
mkdir -p "$site"
warnings=0
index=""
while IFS=$'\t' read -r product catalog product_graphs; do
    target="$(basename "$catalog" .docc)"
    echo "docc convert: $product -> $site/$product"
    status=0
    "$docc" convert "$catalog" --additional-symbol-graph-dir "$product_graphs" \
        --output-path "$site/$product" --hosting-base-path "$base/$product" \
        --transform-for-static-hosting --warnings-as-errors >"$log" 2>&1 || status=$?
    count="$(grep -cE '^(warning|error):' "$log" || true)"
    warnings=$((warnings + count))
    if [ "$status" -ne 0 ] || [ "$count" -ne 0 ]; then
        cat "$log"
        echo "docc convert failed for $product: $count warning(s) or error(s), exit status $status" >&2
        exit 1
    fi
    page="$base/$product/documentation/$(echo "$target" | tr '[:upper:]' '[:lower:]')/"
    index+="<li><a href=\"$page\">$product</a></li>"
done <<<"$products"

# The site folder's own page: one link per product (each product is a DocC site of its own).
cat >"$site/index.html" <<EOF
<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>ConnectionKit documentation</title></head>
<body><h1>ConnectionKit documentation</h1><ul>$index</ul></body></html>
EOF
echo "DocC warnings: $warnings. Site: $site/index.html"

if [ "${1:-}" = "--serve" ]; then
    port="${DOCC_PORT:-8000}"
    echo "Serving on http://127.0.0.1:$port$base/ (Ctrl-C stops)"
    if [ -n "$base" ]; then
        echo "note: DOCC_HOSTING_BASE is set, so the pages expect to be served under $base/" >&2
    fi
    exec python3 -m http.server --bind 127.0.0.1 --directory "$site" "$port"
fi
