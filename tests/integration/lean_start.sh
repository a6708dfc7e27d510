#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# What every command pays before it reads a byte: FFmpeg's libraries are not loaded (only
# `iotape movie` encodes, through the ffmpeg program), neither by the link (ldd), nor at start
# (`iotape --version` under the loader's LD_DEBUG), nor in a running analysis (its
# /proc/PID/maps); and a start stays small (peak RSS of --version, RSS of a waiting analysis).
source "$SRCDIR/tests/integration/lib.bash"

FFMPEG_LIBS='lib(avcodec|avformat|avutil|avfilter|avdevice|swscale|swresample|postproc)\.so'
# sanitizer builds carry shadow memory: the size bounds are for normal builds
asan=$(nm -D "$IOTAPE" 2>/dev/null | grep -c __asan_init || true)
START_KIB=$((16 * 1024)) # a start took 30 MiB with FFmpeg linked in, 6 MiB without

# linked: what the binary names, and what those name
ldd "$IOTAPE" >"$TMP/ldd" || fail "ldd $IOTAPE failed"
grep -q 'libc\.so' "$TMP/ldd" || fail "ldd names no libc: $(cat "$TMP/ldd")"
! grep -E "$FFMPEG_LIBS" "$TMP/ldd" || fail "the iotape binary links FFmpeg's libraries"

# loaded at run time, dlopen included
LD_DEBUG=files "$IOTAPE" --version >/dev/null 2>"$TMP/ld"
grep -q 'file=libc\.so' "$TMP/ld" || fail "LD_DEBUG=files said nothing: $(head -5 "$TMP/ld")"
! grep -E "file=$FFMPEG_LIBS" "$TMP/ld" || fail "iotape --version loads FFmpeg's libraries"

# (GNU time, not a fork of python3 whose size the child's peak would keep across exec)
/usr/bin/time -f %M -o "$TMP/time" "$IOTAPE" --version >/dev/null || fail "iotape --version"
base=$(tail -1 "$TMP/time")
[ "$asan" != 0 ] || [ "$base" -le "$START_KIB" ] ||
	fail "iotape --version: peak RSS $base KiB > $START_KIB KiB"

# a running analysis: it opens the FIFO for reading only in main, after the loader mapped
# every library it starts with; our open for writing returns then, and its maps are read
# before it gets a byte (60 s to open it, else the alarm fails the test)
mkfifo "$TMP/fifo"
"$IOTAPE" analyze "$TMP/fifo" >"$TMP/analyze.out" 2>"$TMP/analyze.err" &
pid=$!
cleanup_hooks+=("kill $pid 2>/dev/null")
rss=$(python3 - "$pid" "$TMP/fifo" "$TMP/maps" "$SRCDIR/samples/ext4/loop0.blktrace.0" <<'PY'
import os, shutil, signal, sys
pid, fifo, maps, trace = sys.argv[1:]
signal.alarm(60)
fd = os.open(fifo, os.O_WRONLY)
signal.alarm(0)
shutil.copyfile(f"/proc/{pid}/maps", maps)
print([l.split()[1] for l in open(f"/proc/{pid}/status") if l.startswith("VmRSS:")][0])
with open(trace, "rb") as t, os.fdopen(fd, "wb") as w:
    shutil.copyfileobj(t, w)
PY
) || fail "could not watch iotape analyze start: $(cat "$TMP/analyze.err")"
grep -q 'libc\.so' "$TMP/maps" || fail "no libc in iotape analyze's maps: $(head -5 "$TMP/maps")"
! grep -E "$FFMPEG_LIBS" "$TMP/maps" || fail "iotape analyze maps FFmpeg's libraries"
wait "$pid" || fail "iotape analyze of the FIFO failed: $(cat "$TMP/analyze.err")"
grep -q 'events' "$TMP/analyze.out" || fail "iotape analyze said: $(cat "$TMP/analyze.out")"
[ "$asan" != 0 ] || [ "$rss" -le "$START_KIB" ] ||
	fail "iotape analyze, started and waiting: RSS $rss KiB > $START_KIB KiB"
echo "lean_start: ok (--version peak $base KiB, a waiting analysis $rss KiB)"
