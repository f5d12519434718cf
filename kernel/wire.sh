#!/usr/bin/env bash
# Wires a GoNB notebook to this working tree. The first cell of every notebook
# (kernel/setup-cell.txt) runs it with `!*`, that is inside the kernel's
# temporary Go module ($GONB_TMP_DIR), where GoNB compiles the cells:
#
#   - require github.com/evidence-pinn/bpinn and replace it by this directory,
#     so `import "github.com/evidence-pinn/bpinn/nb"` (and `.../pkg/...`)
#     compiles the files as they are on disk now (edit them, re-run the cell);
#   - through that requirement, every module pinned in this go.mod (gonum,
#     GoNB's gonbui, go-echarts, ...) enters the notebook's module graph at the
#     same version, so GoNB's automatic `go get` resolves the cells' imports
#     from the module cache (filled by `go mod download`) without the network;
#   - merge this go.sum into the notebook's, so the checksums are ours too.
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
module=github.com/evidence-pinn/bpinn

# Editing any other go.mod (e.g. this module's own) would be a mistake.
if [ -z "${GONB_TMP_DIR:-}" ] || [ "$PWD" != "$GONB_TMP_DIR" ] || [ ! -f go.mod ]; then
	echo "kernel/wire.sh: run it from a notebook cell with '!*' (GoNB's temporary module), not from a shell" >&2
	exit 1
fi

go mod edit -require="$module@v0.0.0" -replace="$module=$root"
touch go.sum
sort -u -o go.sum go.sum "$root/go.sum"
echo "bpinn: $module => $root"
