# status: memory state at a glance (the `make run` job until the bench has one):
# /proc/buddyinfo, per-zone watermarks from /proc/zoneinfo (with the ladder
# lines if the series is in), and the ladder sysctls when present.

# show_buddyinfo: free blocks per order, per zone.
show_buddyinfo() {
	echo "== /proc/buddyinfo"
	cat /proc/buddyinfo
}

# show_watermarks: free pages, min/low/high (and ladder_o* lines) per zone.
show_watermarks() {
	echo "== watermarks (/proc/zoneinfo, pages)"
	awk '/^Node/ { zone = "node " $2 " " $4; sub(/,/, "", zone) }
	     $1 == "pages" && $2 == "free" { printf "%-16s free %s\n", zone, $3 }
	     $1 ~ /^(min|low|high)$/ && NF == 2 { printf "%-16s %-4s %s\n", zone, $1, $2 }
	     $1 ~ /^ladder_o/ { printf "%-16s %s\n", zone, $0 }' /proc/zoneinfo
}

# show_ladder_sysctls: vm.watermark_ladder_* if the kernel has them.
show_ladder_sysctls() {
	echo "== ladder sysctls"
	found=0
	for f in /proc/sys/vm/watermark_ladder_*; do
		[ -e "$f" ] || continue
		echo "vm.${f##*/} = $(cat "$f")"
		found=1
	done
	[ "$found" = 1 ] || echo "(none: kernel without the watermark ladder series)"
}

show_buddyinfo | tee -a "$RESULT"
show_watermarks | tee -a "$RESULT"
show_ladder_sysctls | tee -a "$RESULT"
