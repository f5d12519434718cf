# The two commands a newcomer needs are `make reproduce` and `make test`;
# both install what is missing first (scripts/setup.sh is idempotent).
SHELL := /bin/bash
GOBIN := $(shell go env GOPATH)/bin
export PATH := $(GOBIN):$(PATH)
# A run's results.json names its commit when the build records one: in a
# git clone go run must be asked to (-buildvcs=true), elsewhere it cannot.
BUILDVCS := $(shell git rev-parse --is-inside-work-tree >/dev/null 2>&1 && echo true || echo false)

.PHONY: all setup build test test-short vet lint bench fuzz check-docs docs-figures reproduce reproduce-full lab clean

all: build

setup:
	scripts/setup.sh

build:
	go build ./...

vet:
	go vet ./...

## lint: go vet and staticcheck (pinned as a go.mod tool), with its doc
## comment checks (a package comment, comments on exported names).
lint: vet
	go tool staticcheck ./...
	go tool staticcheck -checks ST1000,ST1020,ST1021,ST1022 ./...

## test: installs what is missing, then vet, staticcheck and the whole test
## suite (the notebooks are executed headless by notebooks/notebooks_test.go).
test: setup
	go vet ./...
	go tool staticcheck ./...
	go tool staticcheck -checks ST1000,ST1020,ST1021,ST1022 ./...
	go test -count=1 -timeout 60m ./...

test-short:
	go vet ./...
	go test -short ./...

## bench: the benchmarks recorded in docs/benchmarks.md.
bench:
	go test -run '^$$' -bench . -benchmem ./pkg/...

## fuzz: the fuzz targets of docs/results-schema.md, 60 s each.
fuzz:
	go test -run '^$$' -fuzz '^FuzzReadResults$$' -fuzztime 60s ./pkg/record
	go test -run '^$$' -fuzz '^FuzzReadPoints$$' -fuzztime 60s ./pkg/datafile
	go test -run '^$$' -fuzz '^FuzzLoadNetwork$$' -fuzztime 60s ./cmd/bpinn
	go test -run '^$$' -fuzz '^FuzzEquation$$' -fuzztime 60s ./pkg/pde

## check-docs: runs the notebooks and reports each one's stated quick-mode
## time that is off by more than 2x (no test asserts a time);
## make check-docs ARGS=-w rewrites them, ARGS='-run 05' runs one.
check-docs: setup
	go run ./scripts/checkdocs $(ARGS)

## reproduce: the main job, every study of the paper in quick mode. It
## needs only Go's modules and echarts (scripts/setup.sh reproduce), not
## the test tools.
reproduce:
	scripts/setup.sh reproduce
	go run -buildvcs=$(BUILDVCS) ./cmd/bpinn reproduce --quick --out out/quick

reproduce-full:
	scripts/setup.sh reproduce
	go run -buildvcs=$(BUILDVCS) ./cmd/bpinn reproduce --out out/full

## docs-figures: rewrites every figure the README and docs/ quote from a
## run (its results.json, copied into docs/runs/) that differs from it;
## TestDocsMatchRuns (scripts/docfig) fails until then.
docs-figures:
	go run ./scripts/docfigs -w

## lab: JupyterLab/Notebook with the GoNB kernel on notebooks/.
lab: setup
	kernel/install.sh
	kernel/lab.sh

clean:
	rm -rf out .bin
