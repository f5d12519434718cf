// Package depcheck holds the test that keeps docs/dependencies.md true:
// every direct dependency and tool of go.mod, the gopls of tools/gopls and
// the echarts version scripts/setup.sh fetches is listed there, at the
// version the build uses, with its license.
package depcheck
