# check: run every in-guest functional test, /lab/bin/*_test (TAP via
# kselftest.h), one after another, framed for the host by run_tap_all
# (guest/lib/tap.sh). The job fails if any program failed or none passed.

# shellcheck disable=SC1091 # /lab/lib/tap.sh is guest/lib/tap.sh
. /lab/lib/tap.sh

run_tap_all /lab/bin/*_test
