# SPDX-License-Identifier: MIT
# Sourced by integration tests: common helpers. Not a test itself (no .sh test of its own).
set -euo pipefail
# Under pipefail, `CMD | grep -q` fails when grep leaves at its first match while CMD still
# writes (CMD dies of SIGPIPE, as iotape and sed do): a slow CMD (ASan) makes it a race. Give
# grep the whole output (`grep PATTERN >/dev/null`), or keep the output in a file first.

: "${IOTAPE:?IOTAPE must point at the built binary}"
: "${TOOLS:?TOOLS must point at the tests build directory}"
: "${SRCDIR:?}"

TMP=$(mktemp -d /tmp/iotape-test.XXXXXX)
cleanup_hooks=()
on_exit() { for h in "${cleanup_hooks[@]}"; do eval "$h" || true; done; rm -rf "$TMP"; }
trap on_exit EXIT

# skip REASON: exit 77 (ctest SKIP_RETURN_CODE) unless IOTAPE_NO_SKIP is set, as in CI,
# where a skipped test is a failed test.
skip() {
	if [ -n "${IOTAPE_NO_SKIP:-}" ]; then
		echo "FAIL: would skip, but IOTAPE_NO_SKIP is set: $*" >&2
		exit 1
	fi
	echo "SKIP: $*" >&2
	exit 77
}

fail() { echo "FAIL: $*" >&2; exit 1; }

# Shell code for the start of a test's own mount namespace (capture_lib.bash, ganesha.bash):
# a new namespace copies every mount there is, and on this machine mounts do not propagate,
# so a copy of another test's mount of its loop device would keep that device busy after the
# other test unmounted it (mkfs then fails with EBUSY). Copies of mounts of loop devices and
# of anything under /tmp are dropped at once; the namespace needs none of them.
NS_DROP_FOREIGN_MOUNTS='findmnt -rn -o TARGET,SOURCE | awk '"'"'$1 ~ "^/tmp/" || $2 ~ "^/dev/loop" {print $1}'"'"' |
	sort -r | while read -r m; do umount -l "$(printf "%b" "$m")" 2>/dev/null; done'

need_root() { [ "$(id -u)" -eq 0 ] || skip "needs root"; }
need_cmd() { command -v "$1" >/dev/null 2>&1 || skip "needs $1"; }

# expect_eq WHAT GOT WANT
expect_eq() { [ "$2" = "$3" ] || fail "$1: got '$2', want '$3'"; }

# json PATH-EXPR FILE: read a value with python3's json module
json() { python3 -c 'import json,sys; d=json.load(open(sys.argv[2])); print(eval("d"+sys.argv[1]))' "$1" "$2"; }

# iotape_commands: the command table as `iotape --help` lists it, "NAME<TAB>summary" a line
iotape_commands() {
	"$IOTAPE" --help | sed -n '/^commands:$/,/^$/p' | sed -n 's/^   \([a-z][a-z0-9-]*\) \+\(.*\)$/\1\t\2/p'
}
