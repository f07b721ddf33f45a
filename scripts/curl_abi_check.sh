#!/usr/bin/env bash
# Checks every libcurl number written by hand in Sources/CCurlShim/ccurl_abi.h against libcurl's
# real headers. The headers come from Debian's libcurl4-openssl-dev, downloaded and unpacked into
# a temporary folder (nothing is installed). Fails, never skips, when they cannot be obtained.
set -euo pipefail
cd "$(dirname "$0")/.."

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# apt-get download writes to the current folder; as root it warns that it runs unsandboxed.
download() { (cd "$work" && apt-get download libcurl4-openssl-dev >/dev/null 2>"$work/apt.log"); }
# A fresh machine may have no package lists yet.
download || { apt-get update -qq >/dev/null 2>&1 || true; download; } || {
    cat "$work/apt.log" >&2
    echo "curl_abi_check: could not download libcurl4-openssl-dev" >&2
    exit 1
}
dpkg -x "$work"/libcurl4-openssl-dev_*.deb "$work/root"
header=$(find "$work/root" -path '*/curl/curl.h' | head -n 1)
if [ -z "$header" ]; then
    echo "curl_abi_check: the package has no curl/curl.h" >&2
    exit 1
fi
include=$(dirname "$(dirname "$header")")
version=$(sed -n 's/^#define LIBCURL_VERSION "\(.*\)"/\1/p' "$include/curl/curlver.h")

compiler=$(command -v clang || command -v cc || command -v gcc) || {
    echo "curl_abi_check: no C compiler" >&2
    exit 1
}
"$compiler" -std=c11 -fsyntax-only -Werror -I "$include" scripts/curl_abi_check.c
echo "curl_abi_check: every hand-written libcurl number matches libcurl $version's headers"
