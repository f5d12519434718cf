#!/usr/bin/env bash
# Times the README's two commands as a new user meets them: a fresh clone of
# this repository's HEAD into a temporary folder, then `make reproduce` and
# `make test` there, one after the other, setup included. Prints one table
# (wall and CPU time, exit status) with the commit, the date and the
# machine; the README quotes it. Each command's output goes to a log in the
# temporary folder, which is kept (its path is printed).
#
#   scripts/time-commands.sh                  the two commands
#   scripts/time-commands.sh --busy           with a CPU-bound process on each
#                                             core beside them (a busy machine)
#   scripts/time-commands.sh --dry-run        make -n for each: checks the
#                                             clone and the table in seconds
#   scripts/time-commands.sh -- make build    other commands instead
set -euo pipefail
cd "$(dirname "$0")/.."

usage() { sed -n '2,14s/^# \{0,1\}//p' "$0" >&2; exit 2; }
busy=0 dry=0
while [ $# -gt 0 ]; do
	case "$1" in
	--busy) busy=1 ;;
	--dry-run) dry=1 ;;
	--) shift; break ;;
	-h | --help) usage ;;
	*) printf 'time-commands: unknown argument %q\n' "$1" >&2; usage ;;
	esac
	shift
done
commands=("make reproduce" "make test")
[ $# -gt 0 ] && commands=("$*")

src="$(pwd)"
commit="$(git rev-parse --short HEAD)"
[ -z "$(git status --porcelain --untracked-files=no)" ] ||
	printf 'time-commands: the work tree has uncommitted changes; the clone has HEAD (%s) without them\n' "$commit" >&2
dir="$(mktemp -d "${TMPDIR:-/tmp}/bpinn-time-commands.XXXXXX")"
git clone --quiet "$src" "$dir/bpinn"
# CI lays shared/ (the PINNacle references some tests read) beside the
# clone: so does this, where the repository has it beside itself.
[ -d "$src/../shared" ] && ln -s "$(cd "$src/../shared" && pwd)" "$dir/shared"
mkdir "$dir/logs"

# --busy: one CPU-bound process per core, ended by pid when this script ends.
hogs=()
# They are waited for, so that none is left when the script has ended.
stop_hogs() {
	[ ${#hogs[@]} -eq 0 ] && return
	kill "${hogs[@]}" 2>/dev/null || true
	wait "${hogs[@]}" 2>/dev/null || true
}
trap stop_hogs EXIT
if [ "$busy" = 1 ]; then
	for _ in $(seq "$(nproc)"); do
		(while :; do :; done) </dev/null >/dev/null 2>&1 &
		hogs+=($!)
	done
fi

cores="$(nproc)"
model="$(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo 2>/dev/null | head -1)"
load="$(cut -d' ' -f1 /proc/loadavg 2>/dev/null || echo '?')"
started="$(date -u '+%Y-%m-%d %H:%M UTC')"

# fmt_s prints seconds as "12m 05s" (or "5.2s" under a minute).
fmt_s() { awk -v s="$1" 'BEGIN { if (s < 60) printf "%.1fs", s; else printf "%dm %02ds", int(s / 60), int(s % 60 + 0.5) }'; }

rows=()
status=0
for c in "${commands[@]}"; do
	run="$c"
	[ "$dry" = 1 ] && run="${c/#make /make -n }"
	log="$dir/logs/$(tr -c 'a-zA-Z0-9\n' '-' <<<"$c").log"
	printf 'time-commands: %s (log: %s)\n' "$run" "$log" >&2
	TIMEFORMAT='%R %U %S'
	rc=0
	# bash's time: wall, then the user and system CPU of the command and
	# every descendant it waited for.
	t="$( { time (cd "$dir/bpinn" && bash -c "$run" >"$log" 2>&1); } 2>&1)" || rc=$?
	[ "$rc" = 0 ] || status=1
	read -r wall user sys <<<"$t"
	rows+=("$(printf '%-20s %10s %10s %6s' "$run" "$(fmt_s "$wall")" "$(fmt_s "$(awk -v u="$user" -v s="$sys" 'BEGIN { print u + s }')")" "$rc")")
done

printf '\nFresh clone of %s at %s, %s; %s cores (%s), load %s at the start%s.\n' \
	"$(basename "$src")" "$commit" "$started" "$cores" "${model:-unknown CPU}" "$load" \
	"$([ "$busy" = 1 ] && echo ", with a CPU-bound process on each core")"
printf '%-20s %10s %10s %6s\n' command wall CPU status
printf '%s\n' "${rows[@]}"
printf '(scripts/time-commands.sh%s; logs and the clone in %s)\n' \
	"$([ "$busy" = 1 ] && echo ' --busy')$([ "$dry" = 1 ] && echo ' --dry-run')" "$dir"
exit "$status"
