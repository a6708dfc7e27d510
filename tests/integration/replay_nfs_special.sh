# SPDX-License-Identifier: MIT
# NFS replay touches only what it made (#25 items 2 and 3), on a synthetic NFSv3 capture
# (nfs_v3gen.py special): a FIFO and a socket the capture made are made, never opened for data
# (the WRITE and the READ of the FIFO are refused and counted, nothing blocks); a file the
# replay linked itself is written through either name. With --force onto a target where the
# capture's names already hold a FIFO (read by the capture, and prepared) and a file
# hard-linked to one outside the target: nothing blocks, the outside file keeps its content
# and mode (the WRITE and the SETATTR are refused and counted).
source "$SRCDIR/tests/integration/lib.bash"

python3 "$SRCDIR/tests/integration/nfs_v3gen.py" special "$TMP/s.pcap"
mkdir "$TMP/t"
timeout 20 "$IOTAPE" replay --timing afap --json "$TMP/s.pcap" --target "$TMP/t" \
	>"$TMP/r.json" 2>"$TMP/err" || fail "replay failed or blocked: $(cat "$TMP/err")"
python3 - "$TMP/r.json" <<'PY' || fail "counts"
import json, sys
d = json.load(open(sys.argv[1]))
s = d["safety"]
assert s["special_files"] == 2 and s["hard_links"] == 0, s
p = {x["name"]: x for x in d["procedures"]}
assert p["WRITE"]["refused"] == 1 and p["WRITE"]["replayed"] == 3, p["WRITE"]
assert p["READ"]["refused"] == 1, p["READ"]
assert p["MKNOD"]["replayed"] == 2 and p["MKNOD"]["diverged"] == 0, p["MKNOD"]
PY
[ -p "$TMP/t/p" ] || fail "the FIFO was not made"
[ -S "$TMP/t/sock" ] || fail "the socket was not made"
expect_eq "f and g: one file" "$(stat -c '%h %s' "$TMP/t/f") $(stat -c %i "$TMP/t/f")" \
	"2 32 $(stat -c %i "$TMP/t/g")"

# --force: a FIFO and a hard link to a file outside the target, at the capture's names
mkdir "$TMP/outside" "$TMP/t2"
printf 'precious' >"$TMP/outside/victim"
chmod 644 "$TMP/outside/victim"
ln "$TMP/outside/victim" "$TMP/t2/planted"
mkfifo "$TMP/t2/fifo2"
timeout 20 "$IOTAPE" replay --timing afap --json --force "$TMP/s.pcap" --target "$TMP/t2" \
	>"$TMP/r2.json" 2>"$TMP/err" || fail "--force replay failed or blocked: $(cat "$TMP/err")"
expect_eq "the outside file" "$(cat "$TMP/outside/victim") $(stat -c %a "$TMP/outside/victim")" \
	"precious 644"
python3 - "$TMP/r2.json" <<'PY' || fail "counts (--force)"
import json, sys
d = json.load(open(sys.argv[1]))
s = d["safety"]
assert s["special_files"] == 3 and s["hard_links"] == 2, s
p = {x["name"]: x for x in d["procedures"]}
assert p["SETATTR"]["refused"] == 1, p["SETATTR"]
PY
[ -p "$TMP/t2/fifo2" ] || fail "the FIFO in the target was replaced"
echo ok
