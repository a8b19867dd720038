# FederatedSearch: `make run` starts the daemon on the demo config, `make test` runs every test.
# Both install what is missing first (apt-get as root, or a message saying what to install).

SWIFT ?= swift
CONFIG ?= Configs/fedsearchd.json
BIN_DIR = $(shell $(SWIFT) build --show-bin-path 2>/dev/null)
RELEASE_BIN_DIR = $(shell $(SWIFT) build -c release --show-bin-path 2>/dev/null)

.PHONY: all deps build release run test bench bench-engine eval install clean

all: build

# System libraries the package links (see Package.swift's system-library targets).
deps:
	@./scripts/install-deps.sh

build: deps
	$(SWIFT) build

release: deps
	$(SWIFT) build -c release

# Start fedsearchd in the foreground on the demo config (products and movies).
# In another terminal: $(RELEASE_BIN_DIR)/fedsearch search "star wars" --index movies,products --facets genres
run: release
	$(RELEASE_BIN_DIR)/fedsearchd --config $(CONFIG)

# Unit tests for every module, then integration tests against the real daemon binaries.
test: deps
	$(SWIFT) build --build-tests
	FEDSEARCH_BIN_DIR=$(BIN_DIR) $(SWIFT) test --skip-build

# End-to-end benchmark over the socket (1, 4, 16 clients) against in-process calls.
bench: release
	$(RELEASE_BIN_DIR)/fedsearch-bench --bin-dir $(RELEASE_BIN_DIR) --config $(CONFIG)

# The engine side by side with tantivy, SQLite FTS5 and Typesense (../shared/bench).
bench-engine: release
	python3 ../shared/bench/compare.py --runs 3 -- $(RELEASE_BIN_DIR)/fedsearch-bench-engine

# Ranking quality on the Cranfield collection (nDCG@10, MAP@100, Recall@100).
eval: release
	$(RELEASE_BIN_DIR)/fedsearch-bench-engine --eval ../shared/datasets/cranfield

clean:
	$(SWIFT) package clean
