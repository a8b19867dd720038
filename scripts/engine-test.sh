#!/bin/sh
# Builds the test bundle and runs the engine's tests, under the shared build lock.
# (Builds the test product only, so an executable that fails to link elsewhere does not block.)
set -e
cd "$(dirname "$0")/.."
flock /tmp/swift-build.lock swift build --product FederatedSearchPackageTests "$@"
flock /tmp/swift-build.lock swift test --skip-build --filter FederatedSearchEngineTests
