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
