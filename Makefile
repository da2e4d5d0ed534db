# Transponder. `make run` shows the pipeline; `make test` is what CI runs.
SPECS_DIR ?= $(if $(wildcard .specs/*.yaml),.specs,../shared/specs)
# Absolute: tests run in their package's directory.
override SPECS_DIR := $(abspath $(SPECS_DIR))
export SPECS_DIR

.PHONY: run test generate check-generated specs vet lint bench build-gen fuzz

# The main job (for now): regenerate the Go types from the pinned specs and
# show what the pipeline did.
run:
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
test: vet lint
	go test -count=1 ./...
	go test -run '^$$' -bench . -benchtime 1x ./codec/... ./mapping/... ./runtime/... > /dev/null

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

# Fuzz the codec's decoder and the stream checker, FUZZTIME each (the seeds
# also run in `make test`).
FUZZTIME ?= 2m
fuzz:
	go test -run '^$$' -fuzz FuzzDecode -fuzztime $(FUZZTIME) -fuzzminimizetime 2s ./codec
	go test -run '^$$' -fuzz FuzzChecker -fuzztime $(FUZZTIME) -fuzzminimizetime 2s ./runtime/conformance
	go test -run '^$$' -fuzz FuzzCheckStream -fuzztime $(FUZZTIME) -fuzzminimizetime 2s ./runtime/conformance
	go test -run '^$$' -fuzz FuzzResponsesToChat -fuzztime $(FUZZTIME) -fuzzminimizetime 2s ./mapping
	go test -run '^$$' -fuzz FuzzChatToResponses -fuzztime $(FUZZTIME) -fuzzminimizetime 2s ./runtime/translate
