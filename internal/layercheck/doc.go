// Package layercheck holds the test that keeps the repository's layers
// reading top-down (docs/architecture.md, "Layers"): outside its tests,
// each top-level tree of Go packages imports only the trees below it, so
// internal/ imports nothing of the module, pkg/ only internal/, and what
// imports the library (cmd/, nb/, scripts/, testsupport/) is imported by
// no library package.
package layercheck
