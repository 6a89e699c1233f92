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

# shared_libs BIN: the shared libraries `ldd` lists for BIN and its loader,
# absolute paths, one per line, sorted; dies naming a library ldd cannot
# find. Used where a host program is copied into a guest (initramfs.sh,
# bench/run.sh).
shared_libs() {
	local out
	out=$(ldd "$1") || die "ldd $1 failed"
	! grep -q 'not found' <<<"$out" || die "$1: $(grep -m1 'not found' <<<"$out" | tr -s ' \t' ' ')"
	sed -n -e 's/.*=> \(\/[^ ]*\) .*/\1/p' -e 's/^[[:space:]]*\(\/[^ ]*\) .*/\1/p' <<<"$out" | sort -u
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
	patched | debug | patched-thp) echo "$TREE" ;;
	baseline | baseline-thp) echo "$BASE_TREE" ;;
	series) echo "$SRC/linux-series" ;;
	*) die "unknown variant '$1' (patched, baseline, debug, series, patched-thp or baseline-thp)" ;;
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

# free_mib DIR: MiB available on the filesystem that holds DIR (or would: the
# nearest existing parent).
free_mib() {
	local d=$1
	while [ ! -e "$d" ]; do d=$(dirname "$d"); done
	df -Pm "$d" | awk 'NR == 2 { print $4 }'
}

# need_space DIR MIB WHAT: die in one line unless DIR's filesystem has MIB MiB
# free for WHAT. LAB_BUILD can move the whole build folder to a bigger disk.
need_space() {
	local have
	have=$(free_mib "$1")
	[ "$have" -ge "$2" ] ||
		die "build folder full: ${1#"$LAB_ROOT"/} has $have MiB free, $3 needs about $2 MiB (free space there, or set LAB_BUILD to a folder on a bigger disk)"
}

# die_if_full DIR WHAT LOG: after a failed step whose log says ENOSPC, one
# line naming the full folder instead of the tool's own error lines.
die_if_full() {
	grep -qs 'No space left on device' "$3" || return 0
	die "build folder full: $2 ran out of space in ${1#"$LAB_ROOT"/} ($(free_mib "$1") MiB free now; log: ${3#"$LAB_ROOT"/})"
}

# Debian's python3: the packages deps.sh installs (python3-scipy, ...) live
# there, not in another python3 that may come first on PATH.
PYTHON=/usr/bin/python3
export PYTHON
