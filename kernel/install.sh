#!/usr/bin/env bash
# Registers the GoNB kernel ("Go (gonb)", kernelspec name gonb) with Jupyter,
# idempotently: installs GoNB, goimports and gopls first (scripts/setup.sh go:
# the versions pinned in go.mod and tools/gopls), then `gonb --install` into
# $JUPYTER_DATA_DIR (default: `jupyter --data-dir`, ~/.local/share/jupyter).
#
#   kernel/install.sh                    the kernel users run in Jupyter
#   BPINN_RAW_ERROR=1 kernel/install.sh  errors as plain text (for nbconvert)
#
# The kernelspec gets env PATH=<GOPATH>/bin:<GOROOT>/bin:${PATH}, so the kernel
# finds go and goimports however Jupyter was started.
set -euo pipefail
cd "$(dirname "$0")/.."

name=install
# shellcheck source=kernel/common.sh
. kernel/common.sh
command -v python3 >/dev/null 2>&1 ||
	die "missing 'python3' (Jupyter needs it): run scripts/setup.sh"

scripts/setup.sh go

gobin="$(go env GOPATH)/bin"
gorootbin="$(go env GOROOT)/bin"
data_dir="${JUPYTER_DATA_DIR:-$("$jupyter" --data-dir)}"

# scripts/setup.sh go installs gopls (tools/gopls), which GoNB starts for
# completion (Tab) and inline help (Shift-Tab); --force_deps lets GoNB
# install even where gopls is not on this shell's PATH (the kernelspec's
# PATH below has it).
args=(--install --force_deps)
[ "${BPINN_RAW_ERROR:-0}" = 1 ] && args+=(--raw_error)
log="$(mktemp)"
trap 'rm -f "$log"' EXIT
JUPYTER_DATA_DIR="$data_dir" "$gobin/gonb" "${args[@]}" >"$log" 2>&1 ||
	{ cat "$log" >&2; die "gonb --install failed (log above)"; }

spec="$data_dir/kernels/gonb/kernel.json"
[ -s "$spec" ] || { cat "$log" >&2; die "gonb --install wrote no $spec"; }
# Jupyter (jupyter_client >= 7) substitutes ${PATH} with the server's PATH.
python3 - "$spec" "$gobin:$gorootbin:\${PATH}" <<'PY'
import json, sys
path, value = sys.argv[1], sys.argv[2]
with open(path) as f:
    spec = json.load(f)
spec.setdefault("env", {})["PATH"] = value
with open(path, "w") as f:
    json.dump(spec, f, indent=1)
    f.write("\n")
PY
printf 'kernel/install: Go (gonb) kernel in %s%s\n' "${spec%/kernel.json}" \
	"$([ "${BPINN_RAW_ERROR:-0}" = 1 ] && echo ' (raw errors)')" >&2
