#!/usr/bin/env bash
# Starts Jupyter on notebooks/ with the GoNB kernel, listening on 127.0.0.1
# only, behind a token: JupyterLab if installed, else the classic Notebook
# (Debian: jupyter-notebook; Debian has no JupyterLab package).
#
#   kernel/lab.sh                        port 8888, a fresh random token
#   BPINN_PORT=9999 BPINN_TOKEN=... kernel/lab.sh
#
# Run kernel/install.sh once first (make lab does both).
set -euo pipefail
cd "$(dirname "$0")/.."

name=lab
# shellcheck source=kernel/common.sh
. kernel/common.sh

data_dir="${JUPYTER_DATA_DIR:-$("$jupyter" --data-dir)}"
[ -s "$data_dir/kernels/gonb/kernel.json" ] ||
	die "the GoNB kernel is not installed in $data_dir: run kernel/install.sh"

if "$jupyter" lab --version >/dev/null 2>&1; then
	app=lab
elif "$jupyter" notebook --version >/dev/null 2>&1; then
	app=notebook
else
	die "neither 'jupyter lab' nor 'jupyter notebook' works: run scripts/setup.sh (Debian: apt-get install jupyter-notebook)"
fi

# The kernel inherits this PATH (kernel.json also prepends the Go dirs).
PATH="$(go env GOPATH)/bin:$(go env GOROOT)/bin:$PATH"
export PATH
port="${BPINN_PORT:-8888}"
# Both the classic Notebook and jupyter_server read the token from here.
export JUPYTER_TOKEN="${BPINN_TOKEN:-$(od -An -N24 -tx1 /dev/urandom | tr -d ' \n')}"
url="http://127.0.0.1:$port/?token=$JUPYTER_TOKEN"

cat >&2 <<MSG
kernel/lab: starting jupyter $app on notebooks/ (kernel "Go (gonb)")
  open:   $url
  remote: ssh -L $port:127.0.0.1:$port $(hostname 2>/dev/null || echo host)
          then open the URL above on your own machine
  stop:   Ctrl-C
MSG

extra=()
[ "$(id -u)" = 0 ] && extra+=(--allow-root)
cd notebooks
exec "$jupyter" "$app" --no-browser --ip=127.0.0.1 --port="$port" --port-retries=0 ${extra[@]+"${extra[@]}"}
