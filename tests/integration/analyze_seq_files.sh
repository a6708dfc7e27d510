#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Sequence numbers count per per-CPU file, as blkparse keys them (issue #25 item 17): records
# whose CPU field is not their file's (blkgen --foreign-pct) are no gaps, in the reader's
# per-file count nor in the counts sink's per-device one; records really lost are counted
# exactly, foreign ones or not (blkgen's truth).
source "$SRCDIR/tests/integration/lib.bash"
cd "$TMP"

for drop in 0 3; do
	rm -rf t
	mkdir t
	"$TOOLS/blkgen" -o t --ios 6000 --seed 5 --cpus 3 --foreign-pct 10 --drop-pct "$drop" \
		--truth truth.json >/dev/null
	"$IOTAPE" analyze --json t/trace >a.json 2>err || fail "analyze"
	python3 - a.json truth.json <<'PY' || fail "drop $drop%: skips"
import json, sys
a = json.load(open(sys.argv[1]))
want = json.load(open(sys.argv[2]))["dropped"]
assert a["input"]["skips"] == want, (a["input"]["skips"], want)
assert sum(d["skips"]["records"] for d in a["devices"]) == want, a["devices"]
PY
	if [ "$drop" = 0 ]; then
		! grep -q "records missing" err || fail "foreign records reported missing: $(cat err)"
	fi
done
echo "PASS"
