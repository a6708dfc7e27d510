# SPDX-License-Identifier: MIT
# Sourced by bench scripts: timing helpers. Set RUNS and out (a scratch directory) first.

# timed CMD...: run once, print "seconds maxrss_kib" (wall to the millisecond: GNU time's %e
# has only 10 ms, a twelfth of a 0.12 s run); stop the script if CMD fails
timed() {
	local t0 t1
	t0=$EPOCHREALTIME
	/usr/bin/time -f "%M" -o "$out/time" "$@" >/dev/null 2>"$out/stderr" || {
		echo "bench: '$*' failed:" >&2
		cat "$out/stderr" >&2
		exit 1
	}
	t1=$EPOCHREALTIME
	awk -v a="$t0" -v b="$t1" -v m="$(cat "$out/time")" 'BEGIN { printf "%.3f %s\n", b - a, m }'
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

# med SECONDS...: the median of its arguments
med() { printf '%s\n' "$@" | sort -g | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }
