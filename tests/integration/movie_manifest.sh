#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# iotape movie against a run whose manifest does not describe its trace (issue #25 item 15:
# devices named there but absent from the trace gave empty panels while the trace's own
# events went undrawn, and a range of one sector clamped every IO to the edge, all with exit 0
# and no word): it says so and takes the axes from a first pass over the trace, so the movie
# shows the trace's IO; a manifest that names the sets but not their device numbers is drawn
# as it says, with a warning counting what was not drawn.
source "$SRCDIR/tests/integration/lib.bash"
need_cmd ffmpeg
cd "$TMP"

mkdir run
"$TOOLS/blkgen" -o run -n sdb --ios 3000 --seed 3 --manifest >/dev/null
cp -a run good
"$IOTAPE" movie good -o good.mp4 --length 1s --fps 5 -q 2>err || { cat err >&2; fail "movie"; }
[ ! -s err ] || { cat err >&2; fail "a matching manifest gave warnings"; }

# edit NAME PYTHON: a copy of run whose manifest's devices[0] the code changes (d)
edit() {
	rm -rf "$1"
	cp -a run "$1"
	python3 - "$1/manifest.json" "$2" <<'PY'
import json, sys
m = json.load(open(sys.argv[1]))
d = m["devices"][0]
exec(sys.argv[2])
json.dump(m, open(sys.argv[1], "w"))
PY
}

# movie_of NAME WANT: the movie is made, and stderr says WANT
movie_of() {
	"$IOTAPE" movie "$1" -o "$1.mp4" --length 1s --fps 5 -q 2>err ||
		{ cat err >&2; fail "$1: movie"; }
	grep -q -- "$2" err || { cat err >&2; fail "$1: no '$2'"; }
	[ -s "$1.mp4" ] || fail "$1: no movie"
}

# a device the trace does not have, instead of its own
edit other 'd["name"] = "sdz"; d["files"] = "sdz.blktrace"; d["minor"] = 99'
movie_of other "does not name the trace's set 'sdb.blktrace'; the axes come from a first pass"
# a second device the trace does not have
edit extra 'm["devices"].append(dict(d, name="sdy", files="sdy.blktrace", minor=98))'
movie_of extra "device 'sdy' of the manifest ([0-9]* events) is not in the trace"
# one sector for every IO
edit narrow 'd["issued"]["end_sector"] = d["issued"]["lo_sector"] + 1'
movie_of narrow "a range of one sector for 3000 IOs"
# the right sets, the wrong device numbers: drawn from the manifest, what was not is counted
edit renumbered 'd["minor"] = 99'
movie_of renumbered "events of devices its manifest does not name were not drawn"
echo "PASS"
