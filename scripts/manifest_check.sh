#!/usr/bin/env bash
# The manifest that README.md and docs/getting-started.md tell a user to write compiles: one form in both
# (the check fails when they differ), built in a scratch package that depends on this checkout by path.
#
#     scripts/manifest_check.sh
#
# The README's `.package(url: …, from: …)` becomes `.package(path: <this checkout>)`, and each
# `package: "ConnectionKit"` becomes `package: "<this checkout's folder name>"`: what the README says a path
# dependency needs (SwiftPM names a path dependency after its folder). The scratch package has the README's
# App target (one file that imports ConnectionKit and declares an endpoint class) and AppTests target;
# `swift build --build-tests` builds both, in a temporary folder removed afterwards. Builds ConnectionKit
# from nothing (its own .build): a few minutes on 2 cores.
set -euo pipefail
cd "$(dirname "$0")/.."
checkout=$(pwd)

manifest_block() {  # the first `swift package-manifest` block of $1
    awk '/^```swift package-manifest$/ { inside = 1; next } inside && /^```$/ { exit } inside { print }' "$1"
}
readme=$(manifest_block README.md)
guide=$(manifest_block docs/getting-started.md)
if [ "$readme" != "$guide" ]; then
    echo "FAIL: README.md and docs/getting-started.md show different manifests:" >&2
    diff <(echo "$readme") <(echo "$guide") >&2 || true
    exit 1
fi
grep -q '\.package(url: "[^"]*", from: "2\.0\.0")' <<<"$readme" || {
    echo "FAIL: the README's manifest does not name version 2.0.0 (DefaultHeaders.connectionKitVersion is 2.0)" >&2
    exit 1
}
grep -q 'connectionKitVersion = "2.0"' Sources/ConnectionKit/Client/DefaultHeaders.swift || {
    echo "FAIL: DefaultHeaders.connectionKitVersion is not the 2.0 the README names" >&2
    exit 1
}

scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
folder=$(basename "$checkout")
body=$(sed -e "s|\.package(url: \"[^\"]*\", from: \"[^\"]*\")|.package(path: \"$checkout\")|" \
    -e "s|package: \"ConnectionKit\"|package: \"$folder\"|g" <<<"$readme")
mkdir -p "$scratch/Sources/App" "$scratch/Tests/AppTests"
cat >"$scratch/Package.swift" <<MANIFEST
// swift-tools-version:6.0
import PackageDescription

let package = Package(
    name: "ManifestCheck",
    platforms: [.macOS(.v13), .iOS(.v16), .tvOS(.v16), .watchOS(.v9)],
$body
)
MANIFEST
cat >"$scratch/Sources/App/Endpoints.swift" <<'SWIFT'
import ConnectionKit
import Foundation

final class FetchEvents: ConnectionRequest<Data>, @unchecked Sendable {
    override var url: URL? { URL(string: "https://api.example.com/events.json") }
}
SWIFT
cat >"$scratch/Tests/AppTests/AppTests.swift" <<'SWIFT'
import ConnectionKitTesting

let server: TestServer.Type = TestServer.self
SWIFT
echo "==> the README's manifest, as a path dependency on $checkout (package: \"$folder\"):"
sed -n '/^let package/,$p' "$scratch/Package.swift"
swift build --package-path "$scratch" --build-tests 2>&1 | tee "$scratch/build.log"
if grep -q "warning:" "$scratch/build.log"; then
    echo "FAIL: the README's manifest builds with a warning" >&2
    exit 1
fi
echo "PASS: the README's manifest builds against this checkout"
