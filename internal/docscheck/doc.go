// Package docscheck holds the tests that keep the names the docs give true:
// every `go test -run/-bench/-fuzz PATTERN ./pkg/...` in the Makefile,
// README.md, CONTRIBUTING.md and docs/, and every run of a compiled test
// binary (`./record.test -test.bench PATTERN`), names functions its
// package has; every Test, Benchmark, Fuzz or Example function they name
// in prose exists; every `bpinn COMMAND --flag` they show is a command
// and flag of bpinn (its --help); every pkg/, internal/, cmd/, nb/,
// scripts/ and testsupport/ path they mention exists; and every `make
// TARGET` they show is a target of the Makefile. docs/journal.md, the
// history, keeps the names of its time and is left out of the name and
// command checks.
package docscheck
