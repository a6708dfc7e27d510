#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# One run, one answer (issue #24 item 2): analyze, report and compare get a run's figures
# through one library function (analyze/run_summary.h) with the same options, so they agree:
# a block run with --top and --idle-threshold, a run of block trace and packets whose manifest
# has clock pairs and the same without them (the trace's TIMESTAMP places the packets), and a
# packet capture alone. one_answer.py says what is checked.
source "$SRCDIR/tests/integration/lib.bash"

agree() { # NAME RUN TOP [OPTION...]: OPTIONs to all three (the idle threshold)
	local name=$1 run=$2 top=$3
	shift 3
	"$IOTAPE" analyze --json --top "$top" "$@" "$run" >"$TMP/$name.a.json" ||
		fail "$name: analyze"
	"$IOTAPE" compare --format json "$@" "$run" >"$TMP/$name.cr.json" ||
		fail "$name: compare of the run"
	"$IOTAPE" compare --format json "$@" "$TMP/$name.a.json" >"$TMP/$name.cd.json" ||
		fail "$name: compare of analyze's document"
	"$IOTAPE" report "$@" "$run" -o "$TMP/$name.html" || fail "$name: report"
	python3 "$SRCDIR/tests/integration/one_answer.py" "$TMP/$name.a.json" \
		"$TMP/$name.cr.json" "$TMP/$name.cd.json" "$TMP/$name.html" "$top" ||
		fail "$name: the figures differ"
	echo "$name: analyze (--top $top${*:+ $*}), compare and report agree"
}

nfsrun=$SRCDIR/samples/nfs/run
python3 -c 'import json,sys; assert json.load(open(sys.argv[1]))["clock"]' \
	"$nfsrun/manifest.json" || fail "samples/nfs/run's manifest has no clock pairs"
# the same run, its manifest without clock pairs
mkdir "$TMP/noclock"
cp "$nfsrun"/* "$TMP/noclock/"
python3 -c 'import json,sys; m=json.load(open(sys.argv[1])); del m["clock"]
json.dump(m, open(sys.argv[1], "w"))' "$TMP/noclock/manifest.json"

agree ext4 "$SRCDIR/samples/ext4" 10
agree ext4-top3 "$SRCDIR/samples/ext4" 3
agree xfs-idle "$SRCDIR/samples/xfs" 10 --idle-threshold 2ms
agree nfsrun "$nfsrun" 10
agree nfsrun-top2 "$nfsrun" 2
agree noclock "$TMP/noclock" 10
agree noclock-top3 "$TMP/noclock" 3 --idle-threshold 5ms
agree pcap "$nfsrun/net.pcap" 10
agree pcap-top1 "$nfsrun/net.pcap" 1

# the two clocks place the packets differently: each run was checked on its own clock
cmp -s "$TMP/nfsrun.a.json" "$TMP/noclock.a.json" &&
	fail "the clock pairs made no difference: the runs test one clock only"
echo "one answer for every run"
