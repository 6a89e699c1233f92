# shellcheck shell=sh
# Sourced by the guest jobs; it is /lab/lib/cmdline.sh in the initramfs.

# cmdline_arg NAME [DEFAULT]: the value of the last NAME=... on the kernel
# command line (boot.sh --append can override an earlier one), else DEFAULT.
cmdline_arg() {
	v=$(tr ' ' '\n' </proc/cmdline | sed -n "s/^$1=//p" | tail -n 1)
	echo "${v:-${2:-}}"
}
