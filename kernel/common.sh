# shellcheck shell=bash
# Sourced by kernel/install.sh and kernel/lab.sh: the checks both need.
# Sets $jupyter to the jupyter command; die() prefixes messages with $name.

die() { printf 'kernel/%s: %s\n' "${name:?}" "$*" >&2; exit 1; }

command -v go >/dev/null 2>&1 ||
	die "missing 'go': install Go 1.26 (https://go.dev/dl) and put it on PATH"
jupyter="$(command -v jupyter 2>/dev/null || true)"
[ -n "$jupyter" ] || { [ -x /usr/bin/jupyter ] && jupyter=/usr/bin/jupyter; } ||
	die "missing 'jupyter': run scripts/setup.sh (as root: installs it from Debian), or pip install notebook"
