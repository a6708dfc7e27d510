#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# One implementation of every block metric (issue #11): for every sample and for generated
# traces (several devices, long gaps, time near the clock's end, sectors across the u64
# range), the report's tables, compare's values and `iotape analyze --json` give the same
# numbers, and the report's idle shading covers exactly the gaps analyze lists
# (metrics_agree.py says what is checked).
source "$SRCDIR/tests/integration/lib.bash"

gen() { # DIR SEED ARGS...
	local d=$1 s=$2
	shift 2
	mkdir -p "$d"
	ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0" \
		"$TOOLS/blkgen" -o "$d" -n sdb --seed "$s" --truth "$d.truth.json" "$@" >/dev/null
}
agree() { # RUN-DIR
	local run=$1 name
	name=$(basename "$run")
	"$IOTAPE" analyze --json "$run" >"$TMP/$name.a.json" || fail "$name: analyze"
	"$IOTAPE" compare "$run" --by device --format json >"$TMP/$name.c.json" ||
		fail "$name: compare"
	"$IOTAPE" report "$run" -o "$TMP/$name.html" || fail "$name: report"
	python3 "$SRCDIR/tests/integration/metrics_agree.py" "$TMP/$name.a.json" \
		"$TMP/$name.c.json" "$TMP/$name.html" "$name" || fail "$name: the numbers differ"
	echo "$name: analyze, compare and report agree"
}
# a manifest naming the devices, so that compare makes a group of each
manifest() { # DIR NDEV
	python3 -c 'import json,sys
print(json.dumps({"format": "iotape-run", "devices": [{"name": "sdb%d" % i, "major": 7,
      "minor": i} for i in range(int(sys.argv[1]))]}))' "$2" >"$1/manifest.json"
}

for s in ext4 xfs btrfs nfs/run; do
	agree "$SRCDIR/samples/$s"
done

gen "$TMP/devices" 1 --ios 3000 --devices 3 --gaps 3 --gap-ms 30
manifest "$TMP/devices" 3
agree "$TMP/devices"
gen "$TMP/gaps" 2 --ios 3000 --gaps 4 --gap-ms 3000
agree "$TMP/gaps"
gen "$TMP/probe" 3 --ios 3000 --gaps 2 --gap-ms 20
start=$(python3 -c 'import json,sys; d=json.load(open(sys.argv[1]))["devices"][0]
print(2**64 - 50000 - d["last_ns"])' "$TMP/probe.truth.json")
gen "$TMP/late" 3 --ios 3000 --gaps 2 --gap-ms 20 --start-ns "$start"
agree "$TMP/late"
gen "$TMP/wide" 4 --ios 3000 --gaps 2 --gap-ms 20 --sector-max 0xfffffffffffff000
agree "$TMP/wide"
