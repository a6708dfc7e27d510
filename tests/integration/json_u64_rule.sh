#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Unsigned 64-bit numbers reach JSON through json_u64() (common/jsonint.h) only: a cast to
# json_int_t turns a time or sector at or past 2^63 into a negative number. The product's
# sources may not write json_integer((json_int_t)...) anywhere but common/jsonint.c.
source "$SRCDIR/tests/integration/lib.bash"
cd "$SRCDIR"
hits=$(git ls-files '*.c' '*.h' | grep -vE '^(tests|bench)/|^common/jsonint\.[ch]$' |
	xargs grep -nE 'json_integer\(\s*\(json_int_t\)' || true)
[ -z "$hits" ] || fail "json_integer of a cast, use json_u64():
$hits"
echo "json_u64_rule: ok"
