#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# report, compare and movie read a run set (issue #30 item 3). The set is made here from
# idle_gen.py's hostA/hostB (synthetic runs: their manifests' clock pairs put hostB's bursts
# exactly in hostA's gaps, hostB's first 1 s after hostA's) with a runset.json as capture
# --host writes it, a third host failed: so the measured offsets are known, which a capture on
# one kernel (offset 0 within its error) cannot show. capture_hosts.sh and capture_on.sh read
# real sets.
source "$SRCDIR/tests/integration/lib.bash"
source "$SRCDIR/tests/integration/lib_runset.bash"

cd "$TMP"
for h in hostA hostB; do python3 "$SRCDIR/tests/integration/idle_gen.py" $h $h; done
# h1 = hostA, h2 = hostB with its measured clock offset, h3 failed
for set in set:0 set5:5000000000; do
	make_runset "${set%:*}" h1=hostA "h2=hostB@${set#*:}" \
		"h3!its capture did not start: the blk tracer is in use"
done

# t0s HTML: each host's start on the set's axis, "h1=0.000000000 h2=1.000000000"
t0s() {
	python3 - "$1" <<'EOF'
import re, sys
h = open(sys.argv[1]).read()
rows = re.findall(r'host ([^ <]+) of the run set: its graphs start <span class="host-t0" '
                  r'data-t0-s="([0-9.]+)"', h)
print(" ".join("%s=%s" % r for r in rows))
EOF
}

# --- analyze SET: the failed host named with its reason, as report, compare and movie name it
# (analyze said nothing of a host that brought no run back) -----------------------------------
"$IOTAPE" analyze set >a.txt 2>a.err || fail "analyze of a run set: $(cat a.err)"
grep -q "host h3 left out: its capture did not start: the blk tracer is in use" a.err ||
	fail "analyze: no warning for h3: $(cat a.err)"

# --- report SET: a row per host on one axis, devices keyed by host, the failed host named -----
"$IOTAPE" report set -o r.html 2>r.err || fail "report of a run set: $(cat r.err)"
grep -q "host h3 left out: its capture did not start" r.err || fail "report: no warning for h3"
expect_eq "report: the hosts' starts" "$(t0s r.html)" "h1=0.000000000 h2=1.000000000"
grep -q '<h2>Device 8,0: key h1:sda' r.html || fail "report: no section for h1's sda"
grep -q '<h2>Device 8,0: key h2:sda' r.html || fail "report: no section for h2's sda"
grep -q '<tr><td>h3</td><td>its capture did not start: the blk tracer is in use</td></tr>' \
	r.html || fail "report: the failed host is not named with its reason"
# h2's clock measured 5 s ahead: on the capturing host's clock it started 4 s before h1
"$IOTAPE" report set5 -o r5.html 2>/dev/null || fail "report of a run set, h2 5 s ahead"
expect_eq "report: offsets applied" "$(t0s r5.html)" "h1=4.000000000 h2=0.000000000"
# a run set is reported on its own
rc=0
"$IOTAPE" report set hostA -o x.html 2>x.err || rc=$?
expect_eq "report: a run set with a run" "$rc" 2
grep -q "'set' is a run set: report it on its own" x.err || fail "report: $(cat x.err)"

# --- compare SET1 SET2: host by host (a row per host, a column per set, each host against its
# own in the first set); a run of its own next to a set is a set of one host ------------------
cp -r set set2
"$IOTAPE" compare set set2 --metrics mbps --format json >c.json 2>c.err ||
	fail "compare of two run sets: $(cat c.err)"
python3 - c.json <<'EOF' || fail "compare of two run sets: $(cat c.json)"
import json, sys
d = json.load(open(sys.argv[1]))
g = {(x["params"]["host"], x["params"]["set"]): x for x in d["groups"]}
assert sorted(g) == [("h1", "set"), ("h1", "set2"), ("h2", "set"), ("h2", "set2")], list(g)
for h in ("h1", "h2"):
    assert g[(h, "set")]["col"] == "set" and g[(h, "set")]["row"] == h, g[(h, "set")]
    assert g[(h, "set2")]["baseline"] == g[(h, "set")]["label"], g[(h, "set2")]
    assert g[(h, "set")]["runs"] == ["set/" + h], g[(h, "set")]
EOF
"$IOTAPE" compare set hostA --metrics mbps --format json >c2.json 2>c2.err ||
	fail "compare of a run set and a run: $(cat c2.err)"
python3 - c2.json <<'EOF' || fail "compare of a run set and a run: $(cat c2.json)"
import json, sys
d = json.load(open(sys.argv[1]))
g = sorted((x["params"]["host"], x["params"]["set"]) for x in d["groups"])
assert g == [("h1", "set"), ("h2", "set"), ("hostA", "hostA")], g
EOF
rc=0
"$IOTAPE" compare set set2 --label a --label b 2>x.err || rc=$?
expect_eq "compare: --label with run sets" "$rc" 2

# --- movie SET: a panel per host, named by the set, on the set's clock --------------------------
if command -v ffmpeg >/dev/null && command -v ffprobe >/dev/null; then
	frame() {
		ffmpeg -v error -y -i "$1" -vf "select=eq(n\,$2)" -frames:v 1 -f rawvideo \
			-pix_fmt rgb24 "$3"
	}
	"$IOTAPE" movie set -o set.mp4 --fps 5 --length 2s --size 640x360 -q 2>m.err ||
		fail "movie of a run set: $(cat m.err)"
	grep -q "host h3 left out" m.err || fail "movie: no warning for h3"
	# the panels on the set's clock (runset_offsets.sh has the details): h2's first event is
	# 1 s after h1's, so at 0.4-0.8 s (10 frames over the set's 3.999 s) h1 reads and h2 has
	# not started
	"$TOOLS/movielayout" 640 360 1 1 >l2.json
	frame set.mp4 1 set1.rgb
	[ -s set1.rgb ] || fail "movie: no frame 1"
	python3 "$SRCDIR/tests/integration/movie_pixels.py" set1.rgb 640 360 l2.json 0 some-io ||
		fail "movie: h1's panel without IO at 0.4-0.8 s"
	python3 "$SRCDIR/tests/integration/movie_pixels.py" set1.rgb 640 360 l2.json 1 no-io ||
		fail "movie: h2's panel drawn before its start on the set's clock"
	rc=0
	"$IOTAPE" movie set hostA -o x.mp4 2>x.err || rc=$?
	expect_eq "movie: a run set with a run" "$rc" 2
else
	[ -z "${IOTAPE_NO_SKIP:-}" ] || fail "ffmpeg is missing: the movie of a run set is not checked"
	echo "no ffmpeg: the movie of a run set is not checked" >&2
fi

echo ok
