#!/bin/sh
# bench-fastpath: cost of the ladder on the allocator fast path (issue 4 part 6).
#
# In one boot, alternates vm.watermark_ladder_order 0 (off) and 3 (on) and,
# for each, times ITERS GFP_KERNEL alloc+free pairs of order 0 and of order 3,
# and GFP_ATOMIC ones of order 3 (the requests the ladder's reserve is for,
# which its fast path counts), with the allocbench module; REPS rounds, ladder values interleaved so slow
# drift of the (TCG) clock hits both alike.  On a kernel without the knob the
# ladder column reads "none".  The host takes medians and the on/off ratio.
# Kernel command line: lab.reps=N (default 7), lab.iters=N (default 100000).
# Output on $RESULT: "fastpath: rep R ladder L order O ns_per_pair X", with
# "gfp atomic" after O for the GFP_ATOMIC pairs.
set -eu

RESULT=${RESULT:-/dev/ttyS1}
RUN=/sys/kernel/debug/allocbench/run
KNOB=/proc/sys/vm/watermark_ladder_order

# shellcheck disable=SC1091 # /lab/lib/cmdline.sh is guest/lib/cmdline.sh
. /lab/lib/cmdline.sh

reps=$(cmdline_arg lab.reps 7)
iters=$(cmdline_arg lab.iters 100000)
echo "fastpath: kernel $(uname -r) iters $iters reps $reps" >"$RESULT"

insmod /lab/modules/allocbench.ko
if [ -w "$KNOB" ]; then
	saved=$(cat "$KNOB")
	ladders="0 3"
else
	ladders="none"
fi

# Warm up the per-cpu lists and the code paths once.
echo "0 $iters" >"$RUN"
echo "3 $iters" >"$RUN"
echo "3 $iters atomic" >"$RUN"

rep=1
while [ "$rep" -le "$reps" ]; do
	for l in $ladders; do
		[ "$l" != none ] && echo "$l" >"$KNOB"
		for spec in 0 3 3:atomic; do
			o=${spec%%:*} gfp="" tag=""
			if [ "$spec" != "$o" ]; then
				gfp=" ${spec#*:}" tag=" gfp ${spec#*:}"
			fi
			echo "$o $iters$gfp" >"$RUN"
			ns=$(sed -n 's/^ns_per_pair //p' "$RUN")
			fails=$(sed -n 's/^failures //p' "$RUN")
			echo "fastpath: rep $rep ladder $l order $o$tag ns_per_pair $ns failures $fails" \
				| tee "$RESULT"
		done
	done
	rep=$((rep + 1))
done

[ "$ladders" != none ] && echo "$saved" >"$KNOB"
rmmod allocbench
echo "fastpath: done" >"$RESULT"
