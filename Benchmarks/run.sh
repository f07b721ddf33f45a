#!/usr/bin/env bash
# Benchmarks: raw URLSession against ConnectionKit on URLSession and on libcurl (see docs/benchmarks.md).
#
#   Benchmarks/run.sh            the full run (several minutes; 1 GiB files)
#   Benchmarks/run.sh --quick    a short run (small counts, one round, 64 MiB), as .ci/run does
#   Benchmarks/run.sh --only json   only the benchmarks whose name contains "json"
#   Benchmarks/run.sh --only inspector-soak   only the inspector soak (InspectorSoak: 1,000 idle and 100
#                                             abusive connections beside 10,000 app requests)
#   BENCH_VARIANT=curl Benchmarks/run.sh --only cpu   one column only (raw, ck or curl = ConnectionKit on libcurl)
#   BENCH_WRAPPER="valgrind --tool=callgrind --callgrind-out-file=/tmp/cg.%p" Benchmarks/run.sh --quick --only cpu
#
# On a fresh Debian machine it installs nginx, curl and wrk (apt-get, as root) when missing, writes its
# own nginx config and files under Benchmarks/.work, starts nginx on a free loopback port, builds and
# runs the benchmarks in release, stops nginx (also on failure or Ctrl-C) and prints one table.
set -euo pipefail
cd "$(dirname "$0")"
BENCH_DIR="$(pwd)"
WORK="$BENCH_DIR/.work"

say() { printf '==> %s\n' "$*" >&2; }

# 1. Tools.
missing=()
command -v nginx >/dev/null 2>&1 || [ -x /usr/sbin/nginx ] || missing+=(nginx)
command -v curl >/dev/null 2>&1 || missing+=(curl)
command -v wrk >/dev/null 2>&1 || missing+=(wrk)
if [ ${#missing[@]} -gt 0 ]; then
    say "installing ${missing[*]}"
    if [ "$(id -u)" -ne 0 ]; then
        echo "run.sh: ${missing[*]} missing and not root; install them with apt-get" >&2
        exit 1
    fi
    # Package lists are absent on a fresh image: update once, then install.
    export DEBIAN_FRONTEND=noninteractive
    apt-get install -y --no-install-recommends "${missing[@]}" >/dev/null 2>&1 ||
        { apt-get update -qq >/dev/null && apt-get install -y --no-install-recommends "${missing[@]}" >/dev/null; }
fi
NGINX="$(command -v nginx || echo /usr/sbin/nginx)"

# 2. Build (release): the slow part on a shared machine, done before nginx starts.
say "building the benchmarks (release)"
swift build -c release -Xswiftc -warnings-as-errors --package-path "$BENCH_DIR" >&2
BIN="$(swift build -c release --package-path "$BENCH_DIR" --show-bin-path)/ConnectionKitBenchmarks"

# 3. Files and nginx config.
mkdir -p "$WORK/www" "$WORK/downloads" "$WORK/tmp" "$WORK/nginx"
"$BIN" prepare --work "$WORK" "$@"
PORT="$("$BIN" free-port)"
USER_LINE=""
[ "$(id -u)" -eq 0 ] && USER_LINE="user root;"
cat >"$WORK/nginx/nginx.conf" <<CONF
# Written by Benchmarks/run.sh; rewritten on every run.
$USER_LINE
worker_processes 1;
pid $WORK/nginx/nginx.pid;
error_log $WORK/nginx/error.log warn;
events { worker_connections 1024; }
http {
    access_log off;
    sendfile on;
    tcp_nopush on;
    keepalive_requests 1000000;
    keepalive_timeout 120s;
    client_body_temp_path $WORK/nginx/body;
    proxy_temp_path $WORK/nginx/proxy;
    fastcgi_temp_path $WORK/nginx/fastcgi;
    uwsgi_temp_path $WORK/nginx/uwsgi;
    scgi_temp_path $WORK/nginx/scgi;
    types { application/json json; }
    default_type application/octet-stream;
    server {
        listen 127.0.0.1:$PORT;
        root $WORK/www;
    }
}
CONF

# 4. nginx, stopped however this script ends.
stop_nginx() {
    if [ -f "$WORK/nginx/nginx.pid" ]; then
        kill "$(cat "$WORK/nginx/nginx.pid")" 2>/dev/null || true
        rm -f "$WORK/nginx/nginx.pid"
    fi
    rm -rf "$WORK/downloads" "$WORK/tmp"
}
trap stop_nginx EXIT
"$NGINX" -c "$WORK/nginx/nginx.conf" -p "$WORK/nginx" -e "$WORK/nginx/error.log"
for _ in $(seq 50); do
    curl --silent --fail --output /dev/null "http://127.0.0.1:$PORT/1k.bin" && break
    sleep 0.1
done
say "nginx $("$NGINX" -v 2>&1 | sed 's/.*nginx\///') on 127.0.0.1:$PORT"

# 5. Run. URLSession's download tasks write to $TMPDIR: keep them on the same disk as the destination.
mkdir -p "$WORK/downloads" "$WORK/tmp"
# BENCH_WRAPPER prefixes the run, e.g. BENCH_WRAPPER="valgrind --tool=callgrind" to profile it.
TMPDIR="$WORK/tmp" ${BENCH_WRAPPER:-} "$BIN" run --base-url "http://127.0.0.1:$PORT" --work "$WORK" "$@"

# 6. The inspector under attack beside app requests to the same nginx (its own table; --quick: small
# counts; --only inspector-soak runs it alone). It raises its descriptor limit to ~1,600 itself.
say "inspector soak"
"$(dirname "$BIN")/InspectorSoak" --base-url "http://127.0.0.1:$PORT" "$@"
