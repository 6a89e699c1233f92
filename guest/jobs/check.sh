# check: run every in-guest functional test, /lab/bin/*_test (TAP via
# kselftest.h), one after another, framed for the host by run_tap_all
# (guest/lib/tap.sh). The job fails if any program failed or none passed.
# lab.tests=a_test,b_test (boot.sh --append) runs only those, to try one
# test by hand; make check never passes it.

# shellcheck disable=SC1091 # /lab/lib/tap.sh is guest/lib/tap.sh
. /lab/lib/tap.sh
# shellcheck disable=SC1091 # /lab/lib/cmdline.sh is guest/lib/cmdline.sh
. /lab/lib/cmdline.sh

only=$(cmdline_arg lab.tests)
if [ -n "$only" ]; then
	# shellcheck disable=SC2046 # one word per test name
	run_tap_all $(echo "$only" | tr ',' '\n' | sed 's#^#/lab/bin/#')
else
	run_tap_all /lab/bin/*_test
fi
