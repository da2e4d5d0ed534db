# Transponder. `make run` starts the gateway; `make test` is what CI runs.
SPECS_DIR ?= $(if $(wildcard .specs/*.yaml),.specs,../shared/specs)
# Absolute: tests run in their package's directory.
override SPECS_DIR := $(abspath $(SPECS_DIR))
export SPECS_DIR

.PHONY: run pipeline test generate check-generated specs vet lint bench abbench instructions hotcode build-gen fuzz node-deps e2e update-pinned soak

# The main job: the gateway, the Responses API on http://127.0.0.1:8080/v1.
# With OPENROUTER_API_KEY set it talks to OpenRouter; without, to the
# built-in replay upstream (recorded chat streams; TRANSPONDER_REPLAY
# scripts it). Stop it with Ctrl-C (streams in flight finish first).
run:
	go run ./cmd/transponder serve

# What the pipeline does: regenerate the Go types, the converters and the
# alignment matrix from the pinned specs, and show a conversion.
pipeline:
	go run ./cmd/transponder generate
	@for f in gen/openai/normalize_report.md gen/openrouter/normalize_report.md; do \
		echo "== $$f"; sed -n '/^| | schemas/,/^$$/p;/^Stale rules/p' $$f; done
	cd mapping && go run ../internal/cmd/mapgen
	@echo "== the alignment matrix (ALIGNMENT.md, alignment.json)"
	go run ./cmd/transponder matrix
	@echo "== a Responses request newer than the spec, decoded with the codec and the generated types"
	go run ./internal/cmd/demo
	@echo "== a Codex request with its tools, converted for OpenRouter (warnings on stderr)"
	go run ./cmd/transponder convert mapping/testdata/codex_tools/request.json

# All tests, vet, gofmt and staticcheck. (openapi's TestPipeline checks that
# gen/ equals a fresh run; CI also regenerates and diffs.)
test: vet lint node-deps
	go test -count=1 -timeout 45m ./...
	go test -run '^$$' -bench . -benchtime 1x ./codec/... ./mapping/... ./runtime/... > /dev/null

# The official openai Node SDK for runtime/gateway's TestNodeSDK (pinned in
# e2e/node/package-lock.json; skipped, with a note, where npm is missing).
node-deps:
	@if command -v npm >/dev/null; then cd e2e/node && npm ci --no-audit --no-fund --loglevel=error; \
	else echo "npm not found: TestNodeSDK will be skipped"; fi

# The Codex CLI (0.169.0, pinned in e2e/codex/package-lock.json; ~400 MB, runs
# offline) against the gateway over the replay upstream: exec_command, two
# parallel calls, the freeform apply_patch tool; each turn's effect on disk.
e2e:
	cd e2e/codex && npm ci --no-audit --no-fund --loglevel=error
	TRANSPONDER_E2E=1 go test -count=1 -run TestCodex -v ./e2e/

# staticcheck (pinned in go.mod's tool directives) on everything but gen/.
lint:
	go tool staticcheck $$(go list ./... | grep -v '/gen/')

vet:
	go vet $$(go list ./... | grep -v '/gen/')
	@test -z "$$(gofmt -l $$(git ls-files '*.go' | grep -v '^gen/'))" || { gofmt -l $$(git ls-files '*.go' | grep -v '^gen/'); echo "not gofmt-ed"; exit 1; }

# prune → overlay → normalize → ogen, into gen/; the codec's shape tables
# into codec/*_tables_gen.go; the alignment matrix into ALIGNMENT.md and
# alignment.json; the converters of mapping/*.yaml into mapping/*_gen.go.
generate:
	go generate ./...

# After a spec update: rewrite the goldens of the tests that depend on the
# pinned specs' content (TestPinnedSpec*); review the diff.
update-pinned:
	go test -count=1 -timeout 45m -run TestPinnedSpec ./codec ./gen ./runtime/conformance ./runtime/matrix ./internal/specupdate -update

# CI: regenerate and fail on any diff.
check-generated: generate
	git diff --exit-code -- gen/ codec/ mapping/ ALIGNMENT.md alignment.json && test -z "$$(git status --porcelain -- gen/ codec/ mapping/ ALIGNMENT.md alignment.json)"

# Download the pinned specs into .specs/ and verify their checksums.
specs:
	go run ./cmd/transponder specs -dir .specs

build-gen:
	go build ./gen/...

# Benchmarks as ratios to a same-run baseline (jsontext tokenize + copy):
# benchstat prints every implementation beside impl=baseline.
bench:
	go test -run '^$$' -bench . -benchmem -count 6 ./codec/... ./mapping/... ./runtime/... | tee bench.txt
	go tool benchstat -col /impl bench.txt

# Two revisions' benchmarks as ratios to their same-run baselines: BASE
# (a git revision) against the working tree, test binaries built at two
# function alignments (two layouts of the same code: the layout moves
# the baseline's own time, and a ratio, by up to 15%), run interleaved
# and pinned to one CPU
# (internal/cmd/abbench). The raw lines go to abbench.txt (benchstat).
#   make abbench BASE=HEAD~1 PKG=./runtime/translate BENCH='Stream/chunk=|Response/impl=(reused|baseline)$$'
BASE ?= HEAD
ROUNDS ?= 6
BENCHTIME ?= 150ms
abbench:
	@test -n "$(PKG)" -a -n "$(BENCH)" || { echo "set PKG and BENCH (and BASE)"; exit 2; }
	go run ./internal/cmd/abbench -base '$(BASE)' -pkg $(PKG) -bench '$(BENCH)' -rounds $(ROUNDS) -benchtime $(BENCHTIME)

# Instructions per op of one benchmark (BENCH selects one; PKG its
# package), counted by valgrind (apt-get install valgrind): the same from
# run to run where timings on a shared machine vary by ±50%, so a change's
# effect on the work done shows. It is not time: stalls and cache misses
# are not counted — but the misses of the instruction cache valgrind
# simulates (its L1i, this machine's 32 KB) are, and they are what kept
# the converters' hot paths from the speed their instruction counts allow
# (issue 23: a reasoning chunk ran 330 misses against the baseline's 0).
# The counts of INSTR_N and 3×INSTR_N iterations are subtracted (what is
# not per op cancels).
#   make instructions PKG=./runtime/translate BENCH='Stream/chunk=text/impl=translate'
INSTR_N ?= 20000
instructions:
	@test -n "$(PKG)" -a -n "$(BENCH)" || { echo "set PKG and BENCH"; exit 2; }
	@bin=$$(mktemp) && go test -c -o $$bin $(PKG) && cd $(PKG) && \
	for n in $(INSTR_N) $$((3 * $(INSTR_N))); do \
		GOMAXPROCS=1 GOGC=off valgrind --tool=cachegrind --cache-sim=yes --cachegrind-out-file=/dev/null \
			$$bin -test.run '^$$' -test.bench '$(BENCH)' -test.benchtime $${n}x 2>&1 | \
			sed -n 's/.*I *refs: *\([0-9,]*\).*/\1/p; s/.*I1  *misses: *\([0-9,]*\).*/\1/p' | tr -d , | tr '\n' ' '; echo; \
	done | { read a am; read b bm; rm -f $$bin; \
		echo "$(BENCH): $$(( (b - a) / (2 * $(INSTR_N)) )) instructions/op, $$(( (bm - am) / (2 * $(INSTR_N)) )) L1i misses/op"; }

# The code one benchmark runs on every iteration (PKG, BENCH as above): the
# 64-byte lines of instructions run at least 0.9 times an op, in all and by
# function (internal/cmd/hotcode, over callgrind's output). Beyond the 32 KB
# instruction cache, or near it, a hot path misses on every op.
#   make hotcode PKG=./runtime/translate BENCH='Response/impl=reused$$'
hotcode:
	@test -n "$(PKG)" -a -n "$(BENCH)" || { echo "set PKG and BENCH"; exit 2; }
	@bin=$$(mktemp) && out=$$(mktemp) && go test -c -o $$bin $(PKG) && (cd $(PKG) && \
		GODEBUG=asyncpreemptoff=1 GOMAXPROCS=1 GOGC=off valgrind --tool=callgrind --dump-instr=yes \
			--compress-pos=no --compress-strings=no --callgrind-out-file=$$out \
			$$bin -test.run '^$$' -test.bench '$(BENCH)' -test.benchtime $(INSTR_N)x >/dev/null 2>&1) && \
	go run ./internal/cmd/hotcode -n $(INSTR_N) $$out; rm -f $$bin $$out

# The load and soak test: the real `transponder serve` over a fast local
# upstream, SOAK_STREAMS streams at once for SOAK_DURATION on each store
# (SQLite, then PostgreSQL when TRANSPONDER_TEST_PG is set), 10% cancelled,
# 5% faulted; the figures on stdout and in soak.json (internal/cmd/soak).
SOAK_DURATION ?= 5m
SOAK_STREAMS ?= 1000
soak:
	go run ./internal/cmd/soak -duration $(SOAK_DURATION) -streams $(SOAK_STREAMS) -out soak.json

# Fuzz every target, FUZZTIME each (a duration, or N executions: 1000000x);
# the seeds also run in `make test`.
FUZZTIME ?= 2m
fuzz:
	go test -run '^$$' -fuzz FuzzDecode -fuzztime $(FUZZTIME) -fuzzminimizetime 2s ./codec
	go test -run '^$$' -fuzz FuzzValid -fuzztime $(FUZZTIME) -fuzzminimizetime 2s ./codec
	go test -run '^$$' -fuzz FuzzStr -fuzztime $(FUZZTIME) -fuzzminimizetime 2s ./codec
	go test -run '^$$' -fuzz FuzzReader -fuzztime $(FUZZTIME) -fuzzminimizetime 2s ./codec/sse
	go test -run '^$$' -fuzz FuzzChecker -fuzztime $(FUZZTIME) -fuzzminimizetime 2s ./runtime/conformance
	go test -run '^$$' -fuzz FuzzCheckStream -fuzztime $(FUZZTIME) -fuzzminimizetime 2s ./runtime/conformance
	go test -run '^$$' -fuzz FuzzChatChecker -fuzztime $(FUZZTIME) -fuzzminimizetime 2s ./runtime/conformance
	go test -run '^$$' -fuzz FuzzResponsesToChat -fuzztime $(FUZZTIME) -fuzzminimizetime 2s ./mapping
	go test -run '^$$' -fuzz 'FuzzChatToResponses$$' -fuzztime $(FUZZTIME) -fuzzminimizetime 2s ./mapping
	go test -run '^$$' -fuzz FuzzChatToResponses -fuzztime $(FUZZTIME) -fuzzminimizetime 2s ./runtime/translate
	go test -run '^$$' -fuzz FuzzUpstreamError -fuzztime $(FUZZTIME) -fuzzminimizetime 2s ./runtime/translate
	go test -run '^$$' -fuzz FuzzParser -fuzztime $(FUZZTIME) -fuzzminimizetime 2s ./runtime/reverse
	go test -run '^$$' -fuzz FuzzStoreInput -fuzztime $(FUZZTIME) -fuzzminimizetime 2s ./runtime/gateway
