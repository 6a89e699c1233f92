#!/bin/bash
# Check (and as root, install) what the lab needs on the host. For each
# requirement a command or a Debian package is tested; anything missing is
# installed with one `apt-get update` + `apt-get install --no-install-recommends`.
# When that is not possible, one line per missing tool:
#   missing: <tool> (apt-get install <package>)
# and a non-zero exit. LAB_NO_INSTALL=1 only reports (no apt-get).
# python3-ply and python3-git: checkpatch.pl runs scripts/spdxcheck.py.
# python3-scipy and python3-numpy: the statistics of bench/report.py, which
# runs with Debian's /usr/bin/python3 (where those packages live).
set -eu
. "$(dirname "$0")/lib.sh"

# "tool package" pairs: a command on PATH, or pkg:NAME for a package
# with no command of its own (headers, kernel source, static busybox).
REQUIREMENTS='
make make
gcc gcc
perl perl
python3 python3
git git
flex flex
bison bison
bc bc
cpio cpio
xz xz-utils
gzip gzip
rsync rsync
depmod kmod
flock util-linux
ccache ccache
qemu-system-x86_64 qemu-system-x86
gnuplot gnuplot-nox
mke2fs e2fsprogs
shellcheck shellcheck
iperf3 iperf3
stress-ng stress-ng
pkg:libelf-dev libelf-dev
pkg:libssl-dev libssl-dev
pkg:python3-ply python3-ply
pkg:python3-git python3-git
pkg:python3-scipy python3-scipy
pkg:python3-numpy python3-numpy
pkg:busybox-static busybox-static
pkg:linux-source-6.12 linux-source-6.12
'

# have TOOL: the command exists, or (pkg:NAME) the package is installed.
have() {
	case $1 in
	pkg:*) dpkg-query -W -f '${db:Status-Status}' "${1#pkg:}" 2>/dev/null | grep -qx installed ;;
	*) command -v "$1" >/dev/null 2>&1 ;;
	esac
}

# missing: "tool package" lines for every requirement not met.
missing() {
	local tool pkg
	while read -r tool pkg; do
		[ -n "$tool" ] || continue
		have "$tool" || echo "$tool $pkg"
	done <<<"$REQUIREMENTS"
}

main() {
	local todo pkgs
	todo=$(missing)
	if [ -z "$todo" ]; then
		say "all host tools present"
		return
	fi
	pkgs=$(cut -d' ' -f2 <<<"$todo" | sort -u | tr '\n' ' ')
	if [ "${LAB_NO_INSTALL:-0}" != 1 ] && [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
		say "installing: $pkgs"
		export DEBIAN_FRONTEND=noninteractive
		# shellcheck disable=SC2086 # a list of package names
		timed "apt-get update + install" sh -c "apt-get update -qq && apt-get install -y -qq --no-install-recommends $pkgs >/dev/null" || true
		todo=$(missing)
	fi
	[ -z "$todo" ] && return
	while read -r tool pkg; do
		echo "missing: ${tool#pkg:} (apt-get install $pkg)"
	done <<<"$todo"
	exit 1
}

main "$@"
