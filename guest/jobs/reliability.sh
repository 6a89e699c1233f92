#!/bin/sh
# reliability: the long in-guest reliability tests of issue 5, one after
# another, each a static TAP program (guest/tests/rel_*.c; the short one,
# rel_modparam_test, runs in the `check` job instead):
#   rel_unreachable  kswapd gives up on an unreachable ladder (2 x lab.rel_secs)
#   rel_oom          no extra OOM kills at the edge of memory (4 rounds)
#   rel_knobflip     knobs flipped 100/s under rxring + fragmenter
#   rel_integrity    file set bit-identical under reclaim + compaction
# run_tap_all (guest/lib/tap.sh) frames each program's TAP for
# scripts/tap-results.sh, as in check.sh.
# Boot with a disk: scripts/boot.sh --job reliability --disk IMG.
# lab.rel=NAME[,NAME] on the kernel command line runs only those programs.
# The job fails if any program failed or none passed.

ALL="rel_unreachable rel_oom rel_knobflip rel_integrity"

# shellcheck disable=SC1091 # /lab/lib/cmdline.sh is guest/lib/cmdline.sh
. /lab/lib/cmdline.sh

# shellcheck disable=SC1091 # /lab/lib/tap.sh is guest/lib/tap.sh
. /lab/lib/tap.sh

tests=$(cmdline_arg lab.rel | tr ',' ' ')
set --
for name in ${tests:-$ALL}; do
	set -- "$@" "/lab/bin/$name"
done
run_tap_all "$@"
