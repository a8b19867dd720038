#!/bin/sh
# `make test`'s guard on the escape hatches of Swift's concurrency checking: `@unchecked
# Sendable` and the `unsafe` keyword are allowed only where C libraries are wrapped (the files
# listed here), and each `@unchecked Sendable` must state its invariant in the comment above it.
# Prints what is wrong and exits 1; a new wrapper is added to ALLOWED with its reason.
set -eu
cd "$(dirname "$0")/.."
ALLOWED="
Sources/FederatedSearchEventLoop/LoopInbox.swift
Sources/FederatedSearchEventLoop/LoopBound.swift
Sources/FederatedSearchEventLoop/EventHTTPLoop.swift
Sources/FederatedSearchPostgres/ConnectionPool.swift
"
status=0
for hit in $(grep -rln --include='*.swift' -e '@unchecked Sendable' -e '[^A-Za-z_]unsafe ' Sources Examples | sort); do
    # Only declarations count, not comments that mention the words.
    grep -n -e '@unchecked Sendable' -e '[^A-Za-z_]unsafe ' "$hit" | grep -v '^[0-9]*:[[:space:]]*///' | grep -v '^[0-9]*:[[:space:]]*//' >/dev/null || continue
    case "$ALLOWED" in
    *"$hit"*) ;;
    *) echo "check-unchecked-sendable: $hit uses @unchecked Sendable or unsafe outside the C wrappers"; status=1 ;;
    esac
done
for hit in $(grep -rn --include='*.swift' '@unchecked Sendable' Sources Examples | grep -v ':[[:space:]]*//' | cut -d: -f1,2); do
    file=${hit%%:*}
    line=${hit#*:}
    start=$((line > 8 ? line - 8 : 1))
    if ! sed -n "${start},${line}p" "$file" | grep -qi -e 'invariant' -e 'is safe'; then
        echo "check-unchecked-sendable: $file:$line: @unchecked Sendable without its invariant in the comment above it"
        status=1
    fi
done
exit $status
