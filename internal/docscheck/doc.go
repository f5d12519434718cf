// Package docscheck holds the test that keeps the names the docs give true:
// every `go test -run/-bench/-fuzz PATTERN ./pkg/...` in the Makefile,
// README.md, CONTRIBUTING.md and docs/ names functions the package has,
// every pkg/, internal/, cmd/, nb/, scripts/ and testsupport/ path they
// mention exists, and every `make TARGET` they show is a target of the
// Makefile.
package docscheck
