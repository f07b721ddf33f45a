#!/usr/bin/env bash
# TLS figures (issue 17): handshakes/s and 1 KiB GETs/s over TLS, ConnectionKit's libcurl transport
# against raw URLSession, alternating rounds. See Benchmarks/Sources/TLSBench/main.swift.
#
#   Benchmarks/tls.sh [rounds] [requests-per-row]     (default 5 rounds, 1000 requests)
#
# Needs root (a private mount namespace, so raw URLSession trusts the test CA without touching the
# system's store), openssl and nginx. nginx and the temporary folder are removed on exit.
set -euo pipefail
cd "$(dirname "$0")"
rounds=${1:-5}
requests=${2:-1000}
work=$(mktemp -d)
nginx_pid=""
cleanup() {
    if [ -n "$nginx_pid" ]; then kill "$nginx_pid" 2>/dev/null || true; fi
    rm -rf "$work"
}
trap cleanup EXIT

echo "==> building TLSBench (release)" >&2
swift build -c release -Xswiftc -warnings-as-errors --product TLSBench >&2
bench=$(swift build -c release --show-bin-path)/TLSBench

echo "==> certificates" >&2
openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -keyout "$work/ca.key" -out "$work/ca.pem" \
    -days 2 -subj "/CN=TLSBench CA" -addext "keyUsage=critical,keyCertSign" 2>/dev/null
openssl req -new -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -keyout "$work/server.key" -out "$work/server.csr" \
    -subj "/CN=127.0.0.1" 2>/dev/null
printf 'subjectAltName=IP:127.0.0.1\nextendedKeyUsage=serverAuth\n' >"$work/ext"
openssl x509 -req -in "$work/server.csr" -CA "$work/ca.pem" -CAkey "$work/ca.key" -CAcreateserial -days 2 \
    -extfile "$work/ext" -out "$work/server.pem" 2>/dev/null
head -c 1024 /dev/urandom >"$work/1k.bin"
cat /etc/ssl/certs/ca-certificates.crt "$work/ca.pem" >"$work/bundle.pem"

port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }
close_port=$(port)
keep_port=$(port)
cat >"$work/nginx.conf" <<CONF
daemon off;
master_process off;

pid $work/nginx.pid;
error_log $work/error.log warn;
events { worker_connections 1024; }
http {
    access_log off;
    client_body_temp_path $work/body;
    proxy_temp_path $work/proxy;
    fastcgi_temp_path $work/fastcgi;
    uwsgi_temp_path $work/uwsgi;
    scgi_temp_path $work/scgi;
    ssl_certificate $work/server.pem;
    ssl_certificate_key $work/server.key;
    # Full handshakes only: no session resumption.
    ssl_session_cache off;
    ssl_session_tickets off;
    server { listen 127.0.0.1:$close_port ssl; keepalive_timeout 0; root $work; }
    server { listen 127.0.0.1:$keep_port ssl; keepalive_requests 1000000; keepalive_timeout 60s; root $work; }
}
CONF
nginx -e "$work/error.log" -p "$work" -c "$work/nginx.conf" &
nginx_pid=$!
for _ in $(seq 100); do
    curl -s --cacert "$work/ca.pem" -o /dev/null "https://127.0.0.1:$keep_port/1k.bin" && break
    sleep 0.1
done

echo "==> running (load before: $(cut -d' ' -f1-3 /proc/loadavg))" >&2
unshare -m sh -c "mount --bind '$work/bundle.pem' /etc/ssl/certs/ca-certificates.crt && exec '$bench' \
    'https://127.0.0.1:$close_port/1k.bin' 'https://127.0.0.1:$keep_port/1k.bin' $rounds $requests '$work/ca.pem'"
echo "==> load after: $(cut -d' ' -f1-3 /proc/loadavg)" >&2
