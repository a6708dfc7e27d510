#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# One rule for sizes (issue #24 item 3): every option that takes a SIZE reads bytes, or a
# number with a binary unit (4k = 4KiB = 4096), and a number without a unit is bytes, the same
# to every option; capture's per-CPU buffer, once --buffer-kb N in KiB, is --buffer SIZE.
source "$SRCDIR/tests/integration/lib.bash"

run=$SRCDIR/samples/ext4
refused() { # WANT COMMAND ARGS...: the command stops with a usage error saying WANT
	local want=$1 rc=0
	shift
	"$IOTAPE" "$@" >/dev/null 2>"$TMP/err" || rc=$?
	expect_eq "$*: exit status" "$rc" 2
	grep -qF -- "$want" "$TMP/err" || fail "$*: $(cat "$TMP/err")"
}

refused "--snaplen: '1q' is not a size" capture --snaplen 1q -o "$TMP/cap" -d /dev/null
refused "--snaplen: 32 is out of range" capture --snaplen 32 -o "$TMP/cap" -d /dev/null
refused "--snaplen: 1m is out of range" capture --snaplen 1m -o "$TMP/cap" -d /dev/null
refused "--buffer: 64 is not 64k to 4g" capture --buffer 64 -o "$TMP/cap" -d /dev/null
refused "--buffer: 65.5k is not 64k to 4g" capture --buffer 65.5k -o "$TMP/cap" -d /dev/null
refused "--offset: '0x100000' is not a size" replay --offset 0x100000 "$run" --target "$TMP/t"
refused "--offset: '1.5' is not a whole number of bytes" replay --offset 1.5 "$run" \
	--target "$TMP/t"
refused "--offset: '-1k' is not a size" replay --fio-client "localhost=$TMP/t" \
	--offset -1k "$run"

# the same offset written three ways is one offset; a bare number is bytes
truncate -s 64M "$TMP/target.img"
for v in 1048576 1m 1MiB; do
	"$IOTAPE" replay --engine null --timing afap --json --offset "$v" \
		--target "$TMP/target.img" "$run" >"$TMP/off.$v.json" || fail "replay --offset $v"
	expect_eq "--offset $v" "$(json "['options']['offset']" "$TMP/off.$v.json")" 1048576
done

# --help says what SIZE is, for a command with SIZE options only
for c in capture replay analyze; do "$IOTAPE" help "$c" >"$TMP/help.$c"; done
grep -q "SIZE is bytes" "$TMP/help.capture" || fail "capture --help does not say what SIZE is"
grep -q "a number without one is bytes" "$TMP/help.replay" || fail "replay --help: no SIZE note"
if grep -q "SIZE is" "$TMP/help.analyze"; then fail "analyze --help speaks of SIZE"; fi
echo "size_units: ok"
