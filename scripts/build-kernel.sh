#!/bin/bash
# Build one kernel variant into build/obj/<variant> (bzImage + modules), then the
# out-of-tree modules in module/ against it.
#   patched   build/src/linux (base + series), boot + test fragments
#   baseline  build/src/linux-base (base only), same fragments
#   debug     build/src/linux + kconfig/debug.config
#   patched-thp, baseline-thp
#             as patched and baseline + kconfig/thp.config (the THP guest)
# Holds build/obj/<variant>.lock for the whole build, so concurrent callers
# (the lead, the bench, make check) wait instead of clobbering each other.
#
# usage: scripts/build-kernel.sh patched|baseline|debug|patched-thp|baseline-thp
set -eu
. "$(dirname "$0")/lib.sh"

JOBS=${LAB_JOBS:-2}

# take_lock VARIANT: exclusive flock on build/obj/<variant>.lock (fd 9).
take_lock() {
	mkdir -p "$OBJ"
	exec 9>"$OBJ/$1.lock"
	if ! flock -n 9; then
		say "waiting for another build of $1 (build/obj/$1.lock)"
		flock 9
	fi
}

# progress LOG T0: every 30 s, say how many objects the build has compiled.
progress() {
	while sleep 30 >/dev/null 2>&1; do
		say "... $(grep -c '^  CC ' "$1" 2>/dev/null || true) files compiled, $(($(date +%s) - $2)) s"
	done
}

# make_logged LOG ARGS...: kmake with output in LOG and a progress ticker.
make_logged() {
	local log=$1 tick rc=0
	shift
	progress "$log" "$(date +%s)" &
	tick=$!
	# shellcheck disable=SC2064 # the ticker's pid is known now
	trap "kill $tick 2>/dev/null || true" EXIT
	kmake "$@" >"$log" 2>&1 || rc=$?
	kill "$tick" 2>/dev/null || true
	wait "$tick" 2>/dev/null || true
	if [ "$rc" -ne 0 ]; then
		die_if_full "$2" "the build" "$log"
		grep -E 'error|Error' "$log" | head -20 >&2 || true
		say "build failed; full log: $log"
	fi
	return "$rc"
}

# build_modules SRC OBJ: module/ sources copied next to the obj dir (kbuild in
# 6.12 writes objects beside the sources) and built against OBJ.
build_modules() {
	local src=$1 obj=$2 mdir=$2.modules
	[ -f "$LAB_ROOT/module/Makefile" ] || return 0
	mkdir -p "$mdir"
	rsync -a --exclude='*.o' --exclude='*.ko' --exclude='*.mod*' --exclude='.*' \
		"$LAB_ROOT/module/" "$mdir/"
	make_logged "$LOGS/build-$(basename "$obj")-modules.log" "$src" "$obj" -j"$JOBS" M="$mdir" modules
	say "modules: $(find "$mdir" -maxdepth 1 -name '*.ko' -printf '%f ')"
}

main() {
	local variant=${1:?usage: build-kernel.sh patched|baseline|debug|patched-thp|baseline-thp} src obj t0
	src=$(variant_src "$variant")
	obj=$OBJ/$variant
	[ -d "$src" ] || die "$src missing: run scripts/tree.sh first"
	need_space "$obj" 1024 "a kernel build in build/obj/$variant"
	mkdir -p "$LOGS"
	take_lock "$variant"
	t0=$(date +%s)
	timed "$variant: config" "$LAB_ROOT/scripts/kconfig.sh" "$variant"
	timed "$variant: make -j$JOBS (log: build/logs/build-$variant.log)" \
		make_logged "$LOGS/build-$variant.log" "$src" "$obj" -j"$JOBS" all
	timed "$variant: out-of-tree modules" build_modules "$src" "$obj"
	say "$variant: $(grep -c '^  CC ' "$LOGS/build-$variant.log" || true) files compiled;" \
		"kernel $(cat "$obj/include/config/kernel.release"); total $(($(date +%s) - t0)) s"
}

main "$@"
