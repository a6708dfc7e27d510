# SPDX-License-Identifier: MIT
# Sourced by bench scripts: timing helpers. Set RUNS and out (a scratch directory) first.

# timed CMD...: run once, print "seconds maxrss_kib"; stop the script if CMD fails
timed() {
	/usr/bin/time -f "%e %M" -o "$out/time" "$@" >/dev/null 2>"$out/stderr" || {
		echo "bench: '$*' failed:" >&2
		cat "$out/stderr" >&2
		exit 1
	}
	cat "$out/time"
}

# median CMD...: run RUNS times, print "median_seconds max_rss_kib"
median() {
	local ts=() rss=0 t m
	for _ in $(seq "$RUNS"); do
		read -r t m < <(timed "$@")
		ts+=("$t")
		[ "$m" -gt "$rss" ] && rss=$m
	done
	printf '%s\n' "${ts[@]}" | sort -g | awk -v n="$RUNS" -v r="$rss" \
		'{a[NR]=$1} END {print a[int((n+1)/2)], r}'
}
