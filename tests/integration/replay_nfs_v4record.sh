#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# A recorded replay of an NFSv4 capture says, where its numbers are read, that its calls are
# recorded as NFSv3 procedures (issue #27 item 15): a v4 LOOKUP is a v3 GETATTR in the
# recording, so the summary line says so, and analyze of the recording indeed shows GETATTR.
# The capture is nfs_v42gen.py's synthetic NFSv4.1/4.2 session.
source "$SRCDIR/tests/integration/lib.bash"

cd "$TMP"
python3 "$SRCDIR/tests/integration/nfs_v42gen.py" w.pcap
mkdir t
"$IOTAPE" replay --timing afap w.pcap --target t --record rec >out.txt 2>err.txt ||
	fail "replay: $(cat err.txt)"
grep -q "v4 LOOKUP" out.txt || fail "no v4 LOOKUP replayed: $(cat out.txt)"
grep -q "recorded:.*as NFSv3.*v4 LOOKUP as a v3 GETATTR" out.txt ||
	fail "the summary does not say how v4 calls are recorded: $(cat out.txt)"
"$IOTAPE" analyze rec >rec.txt 2>/dev/null || fail "analyze the recording"
grep -Eq '^NFS +3 +GETATTR' rec.txt || fail "the recording has no v3 GETATTR: $(cat rec.txt)"
echo PASS
