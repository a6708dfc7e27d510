#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# One run, one answer (issue #24 item 2): analyze, report and compare get a run's figures
# through one library function (analyze/run_summary.h) with the same options, so they agree:
# a block run with --top and --idle-threshold, a run of block trace and packets whose manifest
# has clock pairs and the same without them (the trace's TIMESTAMP places the packets), a
# packet capture alone, and the hosts of a run set and of --hosts. one_answer.py and
# one_answer_hosts.py say what is checked.
source "$SRCDIR/tests/integration/lib.bash"
source "$SRCDIR/tests/integration/lib_runset.bash"

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

# --- hosts: a run set and --hosts (one_answer_hosts.py) ----------------------------------------
# idle_gen.py's hostA and hostB (busy in each other's gaps, clock pairs 7.5 s apart) as the
# run set h1, h2; net: packets and NFS calls with its block trace. Each host's pass is its run's
# alone (the same options, --top and --idle-threshold too), bar the explanations of its gaps,
# which the other hosts' devices and traffic join; report and compare of the set read it as
# analyze does (one pass, every host explaining each one's gaps): each host's figures and gap
# causes are those analyze gives it in the set.
HOSTS="python3 $SRCDIR/tests/integration/one_answer_hosts.py"
cd "$TMP"
for h in hostA hostB net; do python3 "$SRCDIR/tests/integration/idle_gen.py" $h $h; done
make_runset set h1=hostA h2=hostB
for opts in "" "--top 1 --idle-threshold 5ms"; do
	for r in hostA hostB net; do
		# shellcheck disable=SC2086
		"$IOTAPE" analyze --json $opts $r >$r.a.json || fail "analyze $opts $r"
	done
	# shellcheck disable=SC2086
	"$IOTAPE" analyze --json $opts set >set.a.json || fail "analyze $opts of the run set"
	$HOSTS same set.a.json h1 hostA.a.json || fail "analyze $opts: the set's h1 is not hostA"
	$HOSTS same set.a.json h2 hostB.a.json || fail "analyze $opts: the set's h2 is not hostB"
	# shellcheck disable=SC2086
	"$IOTAPE" analyze --json --hosts $opts hostA net >hosts.a.json || fail "analyze --hosts"
	$HOSTS same hosts.a.json hostA hostA.a.json || fail "--hosts $opts: hostA is not its run"
	$HOSTS same hosts.a.json synthetic net.a.json || fail "--hosts $opts: net is not its run"
	echo "analyze ${opts:-(defaults)}: each host of a run set and of --hosts has its run's figures"
done
"$IOTAPE" analyze --json set >set.a.json || fail "analyze of the run set"
"$IOTAPE" report set -o set.html || fail "report of the run set"
"$IOTAPE" compare set --format json >set.c.json || fail "compare of the run set"
for k in 0 1; do
	h=h$((k + 1))
	$HOSTS split set.a.json $k $h.a.json
	python3 "$SRCDIR/tests/integration/metrics_agree.py" $h.a.json - set.html $h $k ||
		fail "report of the run set: $h is not analyze's"
	"$IOTAPE" compare --format json $h.a.json >$h.c.json || fail "compare of $h's part"
	$HOSTS compare set.c.json $h $h.c.json ||
		fail "compare of the run set: $h is not analyze's $h of the set"
done
$HOSTS report set.a.json set.html || fail "report of the run set: its gaps' causes not analyze's"
# the set as a sweep's cell (sweep --host): a sweep of one run (no capture), its run given the
# set and the sweep made one that captured
"$IOTAPE" sweep -o sw --no-capture -p n=1 -- true 2>/dev/null || fail "sweep"
python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); d["capture"]=True
d["hosts"]=["h1", "h2"]; json.dump(d, open(sys.argv[1], "w"))' sw/sweep.json
cp -r set sw/n=1/rep-1/set
"$IOTAPE" compare sw --format json >sw.c.json || fail "compare of a sweep of the run set"
for h in h1 h2; do
	$HOSTS compare sw.c.json $h $h.c.json ||
		fail "compare of a sweep of the run set: $h is not analyze's $h of the set"
done
echo "report and compare of a run set: each host's figures and gap causes analyze's"
# a host without clock pairs: analyze cannot put the set on one clock and refuses it; report
# and compare read each host as a run of its own, as before
cp -r set apart
python3 -c 'import json,sys; m=json.load(open(sys.argv[1])); del m["clock"]
json.dump(m, open(sys.argv[1], "w"))' apart/h2/manifest.json
"$IOTAPE" analyze --json apart >/dev/null 2>&1 &&
	fail "analyze put a host without clock pairs on the set's clock"
"$IOTAPE" report apart -o apart.html || fail "report of a set analyze refuses"
"$IOTAPE" compare apart --format json >apart.c.json || fail "compare of a set analyze refuses"
"$IOTAPE" compare --format json hostB >hostB.c.json || fail "compare of hostB"
$HOSTS compare apart.c.json h2 hostB.c.json ||
	fail "compare of a set analyze refuses: h2 is not its run"
echo "a set analyze refuses: report and compare read its hosts apart"
echo "one answer for every run"
