#!/usr/bin/env bash
# Installs what the project needs, idempotently: Go modules, the Go tools
# pinned in go.mod (GoNB, goimports, staticcheck) and tools/gopls (gopls),
# Jupyter's nbconvert, Chromium and selenium (the browser test), Slurm and
# munge (the Slurm test) from Debian, and the echarts JavaScript (npm) used
# to render charts offline.
#
#   scripts/setup.sh            everything
#   scripts/setup.sh go         Go modules and tools only
#   scripts/setup.sh reproduce  what bpinn reproduce needs: Go modules, echarts
set -euo pipefail
cd "$(dirname "$0")/.."
what="${1:-all}"

log() { printf 'setup: %s\n' "$*" >&2; }

need() {
	command -v "$1" >/dev/null 2>&1 || { log "missing '$1': $2"; exit 1; }
}

# echarts for offline charts (report.html, the notebooks): fetched from the
# npm registry, never committed.
ECHARTS_VERSION=5.6.0
fetch_echarts() {
	local version=$ECHARTS_VERSION dir="${BPINN_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/bpinn}" tmp
	[ -s "$dir/echarts.min.js" ] && return 0
	need npm "install Node.js and npm (apt-get install -y npm)"
	log "fetching echarts@$version from npm into $dir"
	tmp="$(mktemp -d)"
	(cd "$tmp" && npm pack --silent "echarts@$version" >/dev/null && tar xzf echarts-*.tgz)
	mkdir -p "$dir"
	cp "$tmp/package/dist/echarts.min.js" "$dir/echarts.min.js.tmp"
	mv "$dir/echarts.min.js.tmp" "$dir/echarts.min.js"
	rm -rf "$tmp"
}

need go "install Go 1.26 from https://go.dev/dl and put it on PATH"

GOBIN_DIR="$(go env GOPATH)/bin"
export PATH="$GOBIN_DIR:$PATH"

go mod download
if [ "$what" = reproduce ]; then
	fetch_echarts
	exit 0
fi
# GoNB and goimports are pinned as `tool` dependencies in go.mod.
if ! command -v gonb >/dev/null 2>&1 || ! command -v goimports >/dev/null 2>&1 ||
	[ go.mod -nt "$GOBIN_DIR/gonb" ]; then
	log "installing GoNB and goimports into $GOBIN_DIR"
	GOBIN="$GOBIN_DIR" go install tool
fi
# gopls (completion and inline help in the notebooks) is pinned in its own
# module, tools/gopls: it needs an older golang.org/x/tools than go.mod's.
gopls_version="$(cd tools/gopls && go list -m -f '{{.Version}}' golang.org/x/tools/gopls)"
if ! "$GOBIN_DIR/gopls" version 2>/dev/null | grep -qF "$gopls_version"; then
	log "installing gopls $gopls_version into $GOBIN_DIR"
	(cd tools/gopls && GOBIN="$GOBIN_DIR" go install tool)
fi
[ "$what" = go ] && exit 0

apt_install() {
	if [ "$(id -u)" != 0 ]; then
		log "need root to apt-get install $*; run: sudo apt-get install -y $*"
		exit 1
	fi
	if [ -z "$(find /var/lib/apt/lists -maxdepth 1 -name '*Packages*' -mmin -1440 2>/dev/null | head -1)" ]; then
		apt-get update -qq
	fi
	DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "$@" >/dev/null
}

# Any Jupyter with nbconvert will do (e.g. the conda one of docker/Dockerfile).
if ! jupyter nbconvert --version >/dev/null 2>&1 &&
	! /usr/bin/jupyter nbconvert --version >/dev/null 2>&1; then
	log "installing Jupyter nbconvert and the notebook server from Debian"
	apt_install jupyter-nbconvert python3-ipykernel jupyter-notebook
fi

# Headless Chromium, its WebDriver and selenium for the browser test
# (notebooks/browser_test.go). Only that test needs them, so without root
# (e.g. docker/Dockerfile) this says what to install and goes on; the test
# then skips, or fails in CI.
if ! command -v chromium >/dev/null 2>&1 || ! command -v chromedriver >/dev/null 2>&1 ||
	{ ! python3 -c 'import selenium' >/dev/null 2>&1 &&
		! /usr/bin/python3 -c 'import selenium' >/dev/null 2>&1; }; then
	if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
		log "installing Chromium, chromium-driver and python3-selenium from Debian (the browser test)"
		apt_install chromium chromium-driver python3-selenium
	else
		log "the browser test needs Debian's chromium, chromium-driver and python3-selenium: sudo apt-get install -y chromium chromium-driver python3-selenium"
	fi
fi

# Slurm and munge for the Slurm test (scripts/slurm/array_test.go), which
# starts a one-node cluster of its own. As with the browser test: without
# root this says what to install and goes on; the test then skips, or fails
# under CI=true.
slurm_missing=
for b in munged slurmctld slurmd slurmstepd sbatch squeue scontrol scancel sinfo; do
	# The daemons live in /usr/sbin, which a user's PATH may lack.
	command -v "$b" >/dev/null 2>&1 || [ -x "/usr/sbin/$b" ] || slurm_missing="$slurm_missing $b"
done
if [ -n "$slurm_missing" ]; then
	if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
		log "installing slurm-wlm and munge from Debian (the Slurm test)"
		apt_install slurm-wlm munge
	else
		log "the Slurm test needs Debian's slurm-wlm and munge: sudo apt-get install -y slurm-wlm munge"
	fi
fi

fetch_echarts
