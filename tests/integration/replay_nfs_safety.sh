# SPDX-License-Identifier: MIT
# NFS replay safety (#13), on a synthetic NFSv3 capture (nfs_v3gen.py hostile): names that are
# '..', contain '/' or a NUL, or are empty are refused and counted; files created through a
# symbolic link to a directory outside the target, absolute or '../..', are refused (openat2
# RESOLVE_BENEATH) and counted; nothing is written outside the target; a non-empty target
# needs --force; --root-fh names the root; --record or --capture in the target (or the target
# itself, or around it) is refused before anything is written (#25 item 7).
source "$SRCDIR/tests/integration/lib.bash"

mkdir "$TMP/outside" "$TMP/t"
python3 "$SRCDIR/tests/integration/nfs_v3gen.py" hostile "$TMP/h.pcap" "$TMP/outside"
"$IOTAPE" replay --timing afap --json "$TMP/h.pcap" --target "$TMP/t" >"$TMP/h.json" \
	2>"$TMP/err" || fail "replay failed: $(cat "$TMP/err")"
grep -q "first unnamed directory handle" "$TMP/err" || fail "the root rule was not announced"
python3 - "$TMP/h.json" <<'PY' || fail "counts"
import json, sys
d = json.load(open(sys.argv[1]))
assert d["safety"] == {"hostile_names": 4, "escapes": 3, "outside_root": 0, "special_files": 0,
                     "hard_links": 0}, d["safety"]
r = d["replay"]
assert r["refused"] == 8 and r["diverged"] == 0, r
p = {x["name"]: x for x in d["procedures"]}
assert p["CREATE"]["refused"] == 4 and p["CREATE"]["replayed"] == 1, p["CREATE"]
assert p["RENAME"]["refused"] == 1 and p["LOOKUP"]["refused"] == 1
PY
expect_eq "outside" "$(ls -A "$TMP/outside")" ""
expect_eq "target" "$(ls -A "$TMP/t" | tr '\n' ' ')" "esc ok up "
expect_eq "ok's size" "$(stat -c %s "$TMP/t/ok")" 4

# non-empty: refused without --force, and nothing changed
if "$IOTAPE" replay --timing afap "$TMP/h.pcap" --target "$TMP/t" >/dev/null 2>"$TMP/err"; then
	fail "replayed into a non-empty directory"
fi
grep -q "is not empty" "$TMP/err" || fail "no reason: $(cat "$TMP/err")"
expect_eq "target untouched" "$(ls -A "$TMP/t" | tr '\n' ' ')" "esc ok up "

# --root-fh: the root handle given, no rule announced
mkdir "$TMP/t2"
"$IOTAPE" replay --timing afap --no-prepare --root-fh "$(python3 -c 'print(b"fh000000".hex())')" \
	"$TMP/h.pcap" --target "$TMP/t2" >/dev/null 2>"$TMP/err" || fail "--root-fh: $(cat "$TMP/err")"
grep -q "first unnamed" "$TMP/err" && fail "--root-fh: the rule was used anyway"
expect_eq "target (--root-fh)" "$(ls -A "$TMP/t2" | tr '\n' ' ')" "esc ok up "
if "$IOTAPE" replay --root-fh xyz "$TMP/h.pcap" --target "$TMP/t2" 2>/dev/null; then
	fail "a bad --root-fh was taken"
fi
# from a pipe: --prepare needs the file, --no-prepare reads it once
mkdir "$TMP/t3"
if "$IOTAPE" replay --timing afap - --target "$TMP/t3" <"$TMP/h.pcap" >/dev/null 2>"$TMP/err"; then
	fail "--prepare read a pipe twice"
fi
grep -q "no-prepare" "$TMP/err" || fail "no hint: $(cat "$TMP/err")"
"$IOTAPE" replay --timing afap --no-prepare - --target "$TMP/t3" <"$TMP/h.pcap" >/dev/null \
	2>&1 || fail "--no-prepare from a pipe"
expect_eq "outside" "$(ls -A "$TMP/outside")" ""

# --record inside the target: the workload's own calls would truncate or remove it
mkdir "$TMP/t4"
ln -s "$TMP/t4" "$TMP/t4link"
for rec in "$TMP/t4/rec" "$TMP/t4" "$TMP/t4link/a/b" "$TMP"; do
	rc=0
	"$IOTAPE" replay --timing afap "$TMP/h.pcap" --target "$TMP/t4" --record "$rec" \
		>/dev/null 2>"$TMP/err" || rc=$?
	expect_eq "exit status of --record $rec" "$rc" 2
	grep -q -- "--record '$rec' \(is in\|contains\) the replay's target" "$TMP/err" ||
		fail "--record $rec: no reason: $(cat "$TMP/err")"
	expect_eq "target after --record $rec" "$(ls -A "$TMP/t4")" ""
done
rc=0
"$IOTAPE" replay --timing afap "$TMP/h.pcap" --target "$TMP/t4" --capture "$TMP/t4/cap" \
	>/dev/null 2>"$TMP/err" || rc=$?
expect_eq "exit status of --capture in the target" "$rc" 2
grep -q -- "--capture '$TMP/t4/cap' is in the replay's target" "$TMP/err" ||
	fail "--capture: no reason: $(cat "$TMP/err")"
expect_eq "target after --capture" "$(ls -A "$TMP/t4")" ""
"$IOTAPE" replay --timing afap "$TMP/h.pcap" --target "$TMP/t4" --record "$TMP/t4rec" \
	>/dev/null 2>&1 || fail "--record beside the target was refused"
[ -s "$TMP/t4rec/net.pcap" ] || fail "no record beside the target"
echo ok
