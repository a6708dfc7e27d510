# SPDX-License-Identifier: MIT
# Run sets made from saved runs, for the tests that read a set without capturing one (no root,
# no hosts): each host's run copied into SET/HOST and a runset.json as `iotape capture --host`
# writes it (docs/capture.md), with the clock offsets the test chooses.

# make_runset SET SPEC...: SET made, SPEC one host each, in order:
#   NAME=RUN[@OFFSET_NS]  RUN (a run directory) copied into SET/NAME, its measured clock
#                         offset OFFSET_NS (default 0)
#   NAME!REASON           a host that failed, with its reason (the set is then not complete)
make_runset() {
	local set=$1 spec name run off hosts="" complete=true
	shift
	mkdir -p "$set"
	for spec in "$@"; do
		if [[ "$spec" == *'!'* ]]; then
			name=${spec%%!*}
			complete=false
			hosts+=" {\"name\": \"$name\", \"run\": null, \"status\": \"failed\",
  \"reason\": $(python3 -c 'import json,sys; print(json.dumps(sys.argv[1]))' "${spec#*!}"),
  \"clock\": {\"offset_ns\": 0, \"rtt_ns\": 0, \"error_ns\": 0}},"
			continue
		fi
		name=${spec%%=*}
		run=${spec#*=}
		off=0
		if [[ "$run" == *@* ]]; then
			off=${run##*@}
			run=${run%@*}
		fi
		cp -r "$run" "$set/$name"
		hosts+=" {\"name\": \"$name\", \"run\": \"$name\", \"status\": \"ok\", \"reason\": null,
  \"clock\": {\"offset_ns\": $off, \"rtt_ns\": 2000, \"error_ns\": 1000}},"
	done
	printf '{"kind": "iotape-runset", "complete": %s, "alignment_error_ns": 2000, "hosts": [\n%s]}\n' \
		"$complete" "${hosts%,}" >"$set/runset.json"
}

# packets_only RUN DIR: DIR made a run of RUN's packets alone (net.pcap, its manifest without
# devices): a host that captured packets but no block trace
packets_only() {
	mkdir -p "$2"
	cp "$1/net.pcap" "$2/"
	python3 -c 'import json, sys
m = json.load(open(sys.argv[1]))
m["devices"] = []
json.dump(m, open(sys.argv[2], "w"), indent=1)' "$1/manifest.json" "$2/manifest.json"
}

# movie_h1_h4 MOVIE: MOVIE (--fps 10 --speed 1 --window 500ms --size 640x360) of a set of
# idle_gen.py's hostA as h1 (offset 0) and again as h4 (offset -1.5 s), two panels: h4's panel
# starts 1.5 s into the movie, each panel idle in its own host's gaps, the movie to h4's end
movie_h1_h4() {
	local pix="$SRCDIR/tests/integration/movie_pixels.py" n
	frame() {
		ffmpeg -v error -y -i "$1" -vf "select=eq(n\,$2)" -frames:v 1 -f rawvideo \
			-pix_fmt rgb24 "$3"
	}
	"$TOOLS/movielayout" 640 360 1 1 >h1h4.json
	# 100 ms of the set's time a frame: frame k shows up to (k + 1) x 100 ms
	# frame 7 (0.3-0.8 s): h1 reads its first burst, h4 has not started
	frame "$1" 7 f7.rgb
	python3 "$pix" f7.rgb 640 360 h1h4.json 0 some-io || fail "frame 7: h1 without IO"
	python3 "$pix" f7.rgb 640 360 h1h4.json 1 no-io || fail "frame 7: h4 drawn before its start"
	# frame 19 (1.5-2.0 s): h1 in its gap 1-2 s, h4 in its first burst (1.5-2.5 s)
	frame "$1" 19 f19.rgb
	python3 "$pix" f19.rgb 640 360 h1h4.json 0 idle || fail "frame 19: h1 not idle"
	python3 "$pix" f19.rgb 640 360 h1h4.json 1 some-io || fail "frame 19: h4 without IO"
	# frame 34 (3.0-3.5 s): h1's last IO was at 3 s, h4 in its gap 2.5-3.5 s
	frame "$1" 34 f34.rgb
	python3 "$pix" f34.rgb 640 360 h1h4.json 1 idle || fail "frame 34: h4 not idle"
	# the movie runs to h4's end: 1.5 s + its 2.999 s
	n=$(ffprobe -v error -count_frames -select_streams v:0 -show_entries stream=nb_read_frames \
		-of csv=p=0 "$1")
	expect_eq "movie: frames to the last host's end" "$n" 45
}
