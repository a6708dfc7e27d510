#!/bin/bash
# SPDX-License-Identifier: MIT
# No output is ever an input (issue #25 items 1 and 5): every command that writes refuses an
# output that is, holds or lies inside one of its inputs or its replay target, before it opens
# anything for writing, and leaves the input as it was: replay --record into the run being
# replayed (a SIGBUS and a 0-byte trace once), export onto its own trace, report and compare
# -o onto an input, analyze, movie and sweep. Outputs are written beside and renamed, so a
# failed command leaves the previous output whole.
source "$SRCDIR/tests/integration/lib.bash"
need_cmd sha256sum

gen="$TOOLS/replaygen"
"$gen" -o "$TMP/tr" -n sdb --ios 400 --seed 5 --gap-us 200 --lat-us 400 --read-pct 60 \
	--span-mb 30 >/dev/null
head -c $((32 << 20)) /dev/zero >"$TMP/target.img"
# a run directory holding a recorded replay (its set is called "file") and a manifest
"$IOTAPE" replay --timing afap --allow-writes --record "$TMP/run" --target "$TMP/target.img" \
	"$TMP/tr/sdb" >/dev/null

sums() { (cd "$1" && find . -type f | sort | xargs sha256sum); }

# refused CMD...: exit 2, "iotape: CMD: ..." naming the clash, and no input touched
refused() {
	local what=$1 want=$2 rc=0 before after
	shift 2
	before=$(sums "$TMP/tr"; sums "$TMP/run"; sha256sum "$TMP/a.json" "$TMP/target.img")
	"$@" >"$TMP/out" 2>"$TMP/err" || rc=$?
	after=$(sums "$TMP/tr"; sums "$TMP/run"; sha256sum "$TMP/a.json" "$TMP/target.img")
	[ "$rc" -eq 2 ] || { cat "$TMP/err" >&2; fail "$what: exit $rc, want 2"; }
	grep -q -- "$want" "$TMP/err" || { cat "$TMP/err" >&2; fail "$what: no '$want'"; }
	[ "$before" = "$after" ] || fail "$what: an input changed"
	! ls -a "$TMP/tr" "$TMP/run" | grep -q '\.tmp$' || fail "$what: a temporary was left"
}

"$IOTAPE" analyze --json "$TMP/tr" >"$TMP/a.json"
cp "$TMP/a.json" "$TMP/b.json"

# item 1: replay --record R where R is the run being replayed (its "file" set would be
# truncated while mapped: SIGBUS), or holds the replayed set; and a set of another name
# (its manifest was replaced, and analyze saw 3 devices for 2)
refused "replay --record the replayed run" "is the input" \
	"$IOTAPE" replay --timing afap --record "$TMP/run" --target "$TMP/target.img" "$TMP/run"
refused "replay --record the set's directory" "holds the input" \
	"$IOTAPE" replay --timing afap --record "$TMP/run" --target "$TMP/target.img" "$TMP/run/file"
refused "replay --record another set's directory" "is the input" \
	"$IOTAPE" replay --timing afap --record "$TMP/tr" --target "$TMP/target.img" "$TMP/tr"
refused "replay --record inside the run" "lies inside the input" \
	"$IOTAPE" replay --timing afap --record "$TMP/run/again" --target "$TMP/target.img" "$TMP/run"
refused "replay --record inside the target's directory" "the replay target" \
	"$IOTAPE" replay --timing afap --record "$TMP/target.img" --target "$TMP/target.img" "$TMP/tr"
mkdir "$TMP/linked"
ln "$TMP/tr/sdb.blktrace.0" "$TMP/linked/sdb.blktrace.0"
refused "replay --record a directory holding a hard link of the input" "holds the input" \
	"$IOTAPE" replay --timing afap --record "$TMP/linked" --target "$TMP/target.img" "$TMP/tr/sdb"
rm -r "$TMP/linked"
[ "$("$IOTAPE" analyze --json "$TMP/tr" | python3 -c 'import json,sys; print(len(json.load(sys.stdin)["devices"]))')" = 1 ] ||
	fail "the replayed run's devices changed"

# item 5: export onto its own input (it was truncated before it was read: "Events: 0")
for fmt in blkparse csv; do
	refused "export $fmt onto its input" "is the input" \
		"$IOTAPE" export --format "$fmt" "$TMP/tr/sdb" -o "$TMP/tr/sdb.blktrace.0"
done
ln -s sdb.blktrace.0 "$TMP/tr/link"
refused "export through a symbolic link to its input" "is the input" \
	"$IOTAPE" export --format csv "$TMP/tr/sdb" -o "$TMP/tr/link"
rm "$TMP/tr/link"
refused "export fio-iolog into the run" "is the input" \
	"$IOTAPE" export --format fio-iolog "$TMP/tr" -o "$TMP/tr"
refused "export fio-iolog into the set's directory" "holds the input" \
	"$IOTAPE" export --format fio-iolog "$TMP/tr/sdb" -o "$TMP/tr"
refused "export inside the run" "lies inside the input" \
	"$IOTAPE" export --format csv "$TMP/run" -o "$TMP/run/events.csv"

# report, compare, analyze -o onto an input (each replaced it silently)
refused "report -o an input trace" "is the input" \
	"$IOTAPE" report "$TMP/tr/sdb.blktrace.0" -o "$TMP/tr/sdb.blktrace.0"
refused "report -o a summary it reads" "is the input" \
	"$IOTAPE" report "$TMP/tr" "$TMP/run" -o "$TMP/run/manifest.json"
refused "report --svg into an input" "lies inside the input" \
	"$IOTAPE" report "$TMP/tr" -o "$TMP/r.html" --svg "$TMP/tr/svg"
refused "compare -o an input" "is the input" \
	"$IOTAPE" compare "$TMP/a.json" "$TMP/b.json" -o "$TMP/a.json"
refused "analyze -o an input" "is the input" \
	"$IOTAPE" analyze --json "$TMP/a.json" "$TMP/tr" -o "$TMP/tr/sdb.blktrace.0"
refused "movie -o inside an input" "lies inside the input" \
	"$IOTAPE" movie "$TMP/tr" -o "$TMP/tr/m.mp4"
ln "$TMP/tr/sdb.blktrace.0" "$TMP/hard.mp4"
refused "movie -o a hard link of an input" "is the input" \
	"$IOTAPE" movie "$TMP/tr" -o "$TMP/hard.mp4"
rm "$TMP/hard.mp4"
printf '4k\n8k\n' >"$TMP/sizes"
refused "sweep -o a parameter file" "is the input" \
	"$IOTAPE" sweep --no-capture -o "$TMP/sizes" -p "bs=@$TMP/sizes" -- true

# the same commands with an output elsewhere work, and write beside then rename: a failed
# run leaves the previous output whole
"$IOTAPE" export --format csv "$TMP/tr" -o "$TMP/ev.csv"
old=$(sha256sum <"$TMP/ev.csv")
rc=0; "$IOTAPE" export --format csv "$TMP/nonexistent" -o "$TMP/ev.csv" 2>/dev/null || rc=$?
[ "$rc" -ne 0 ] || fail "export of a missing input succeeded"
expect_eq "export: the old output after a failure" "$(sha256sum <"$TMP/ev.csv")" "$old"
"$IOTAPE" compare "$TMP/a.json" "$TMP/b.json" -o "$TMP/cmp.txt"
[ -s "$TMP/cmp.txt" ] || fail "compare -o wrote nothing"
"$IOTAPE" report "$TMP/tr" -o "$TMP/r.html" >/dev/null
grep -q '</html>' "$TMP/r.html" || fail "report -o"
# standard output and /dev/null stay what they are
"$IOTAPE" export --format csv "$TMP/tr" -o /dev/null
[ -c /dev/null ] || fail "/dev/null replaced"
"$IOTAPE" export --format csv "$TMP/tr" -o - | sed -n 1p | grep '^time_ns,' >/dev/null || fail "export -o -"
! ls -a "$TMP" | grep -q '\.tmp$' || fail "a temporary was left in $TMP"
echo "PASS"
