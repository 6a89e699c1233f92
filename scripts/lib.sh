# shellcheck shell=bash
# Common helpers for the host harness; sourced by scripts/*.sh, never run.

LAB_ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
# LAB_BUILD may point elsewhere (e.g. a scratch copy to test a fresh extract).
BUILD=${LAB_BUILD:-$LAB_ROOT/build}
SRC=$BUILD/src
# Patched tree (series applied as commits) and the pristine baseline worktree.
TREE=$SRC/linux
BASE_TREE=$SRC/linux-base
OBJ=$BUILD/obj
LOGS=$BUILD/logs
export LAB_ROOT BUILD SRC TREE BASE_TREE OBJ LOGS

# say MSG...: progress line on stderr, prefixed with the calling script's name.
say() {
	printf '[%s] %s\n' "$(basename "$0" .sh)" "$*" >&2
}

# die MSG...: one error line, exit 1.
die() {
	printf '%s: error: %s\n' "$(basename "$0" .sh)" "$*" >&2
	exit 1
}

# timed LABEL CMD...: run CMD, then report how long it took.
timed() {
	local label=$1 t0 rc=0
	shift
	t0=$(date +%s)
	say "$label ..."
	"$@" || rc=$?
	if [ "$rc" -eq 0 ]; then
		say "$label: done in $(($(date +%s) - t0)) s"
	else
		say "$label: FAILED (rc=$rc) after $(($(date +%s) - t0)) s"
	fi
	return "$rc"
}

# variant_src VARIANT: the source tree a kernel variant is built from.
variant_src() {
	case $1 in
	patched | debug) echo "$TREE" ;;
	baseline) echo "$BASE_TREE" ;;
	series) echo "$SRC/linux-series" ;;
	*) die "unknown variant '$1' (patched, baseline, debug or series)" ;;
	esac
}

# kmake SRC OBJ ARGS...: kernel make for an out-of-tree obj dir, through ccache.
# CCACHE_BASEDIR makes paths relative so the patched and baseline trees can
# share cache hits for files the series does not touch.
kmake() {
	local src=$1 obj=$2
	shift 2
	CCACHE_BASEDIR=$BUILD make -C "$src" O="$obj" CC="ccache gcc" "$@"
}
