# SPDX-License-Identifier: MIT
# NFS replay reproduces the tree exactly (#28): captures made here, against nfs-ganesha, of
# tests/tools/nfswork (what tar -x, cp -rp, git clone and a shell's chmod/link/rename/symlink/
# truncate/rm mix do) over NFSv3, over NFSv4.0, and over both to one export (tar and git over
# v3, cp of the v3 tree and the mix over v4: one tree) are replayed onto ext4, xfs and btrfs
# under umask 022, and --verify finds each replayed tree equal to the export ganesha wrote:
# names, types, sizes, modes, link counts, symbolic link targets and content. Every outcome is
# the capture's; the mixed capture's v4 pseudo path is mapped onto the v3 export, and said.
source "$SRCDIR/tests/integration/lib.bash"
source "$SRCDIR/tests/integration/ganesha.bash"
[ -e /dev/loop-control ] || skip "no loop devices (/dev/loop-control missing)"
for c in losetup mkfs.ext4 mkfs.xfs mkfs.btrfs; do require_cmd "$c"; done
ganesha_start

# complete captures: the whole of this namespace's traffic (the MOUNT protocol's port too)
captured() {
	capture_stop
	grep -q "^0 packets dropped by kernel" "$TMP/tcpdump.err" ||
		fail "tcpdump dropped packets: $(cat "$TMP/tcpdump.err")"
}
capture_start "$TMP/v3.pcap" tcp
"$TOOLS/nfswork" -v 3 127.0.0.1 "$GANESHA_EXPORT" /w tar cp git mix || fail "nfswork v3"
captured
capture_start "$TMP/v4.pcap" tcp
"$TOOLS/nfswork" -v 4 127.0.0.1 /export2 /w tar cp git mix || fail "nfswork v4"
captured
capture_start "$TMP/mixed.pcap" tcp
"$TOOLS/nfswork" -v 3 -s 7 127.0.0.1 "$GANESHA_EXPORT3" /w tar git || fail "nfswork v3 (mixed)"
"$TOOLS/nfswork" -v 4 -s 9 127.0.0.1 /export3 /w cp mix || fail "nfswork v4 (mixed)"
captured
[ "$(find "$GANESHA_EXPORT/w" | wc -l)" -gt 150 ] || fail "the v3 workload made too little"
# analyze's count of each procedure: the replay's table must be the same (v3 and v4 numbers
# kept apart in the mixed capture: NFSv3's LOOKUP is 3, so is NFSv4's ACCESS)
for c in v3 v4 mixed; do
	"$IOTAPE" analyze --json "$TMP/$c.pcap" >"$TMP/$c-analyze.json" || fail "analyze $c"
done

# replay C DIR REF [ARGS]: replay capture C into DIR, checked against REF
replay() {
	local c=$1 dir=$2 ref=$3
	shift 3
	"$IOTAPE" replay --timing afap --json "$@" "$TMP/$c.pcap" --target "$dir" --verify "$ref" \
		>"$TMP/r.json" 2>"$TMP/err" || fail "replay of $c onto $dir: $(cat "$TMP/err")
$(python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); print(d.get("verify"), d["divergences"])' "$TMP/r.json" 2>&1)"
	python3 - "$TMP/r.json" "$c" "$TMP/$c-analyze.json" <<'PY' || fail "replay of $c onto $dir"
import json, sys
d, c = json.load(open(sys.argv[1])), sys.argv[2]
a = json.load(open(sys.argv[3]))["nfs"]["procedures"]
want = {(int(p["version"][0]), p["name"]): p["calls"] for p in a if p["program"] == "NFS"}
got = {(p["version"], p["name"]): p["captured"] for p in d["procedures"]}
assert got == want, sorted(set(got.items()) ^ set(want.items()))
r, v = d["replay"], d["verify"]
assert r["diverged"] == 0 and r["refused"] == 0 and r["calls"] > 1500, r
assert v["differences"] == 0 and v["entries"] > 150, v
assert d["capture"]["write_payloads_cut"] == 0, d["capture"]
assert r["v4_export_path"] == ("export3" if c == "mixed" else None), r["v4_export_path"]
PY
	if [ "$c" = mixed ]; then
		grep -q "NFSv4 path /export3 is the export the NFSv3 calls use" "$TMP/err" ||
			fail "the mapping was not said: $(cat "$TMP/err")"
	fi
}

t_captures=$SECONDS
umask 022
# the reference read over NFS (libnfs, as --verify reads an nfs:// URL), the replay on /tmp
mkdir "$TMP/plain"
replay v4 "$TMP/plain" "nfs://127.0.0.1$GANESHA_EXPORT2" --root-path /export2
# the server is done: stopped, and its lock let go before the loop devices' is taken
kill "$GANESHA_PID" "$GANESHA_RPCBIND_PID"
wait "$GANESHA_PID" "$GANESHA_RPCBIND_PID" 2>/dev/null || true
exec 8>&-

# Loop devices: one test at a time takes them (as the capture tests do)
exec 9>/tmp/iotape-capture-tests.lock
flock 9
t_locked=$SECONDS
for fs in ext4 xfs btrfs; do
	truncate -s 320M "$TMP/$fs.img"
	loop=$(losetup -f --show "$TMP/$fs.img") || skip "losetup -f failed: no free loop device"
	cleanup_hooks+=("losetup -d $loop")
	case $fs in
	ext4) mkfs.ext4 -q -F "$loop" ;;
	xfs) mkfs.xfs -q -f "$loop" ;;
	btrfs) mkfs.btrfs -q -f "$loop" >/dev/null ;;
	esac
	mkdir -p "$TMP/mnt-$fs"
	mount "$loop" "$TMP/mnt-$fs"
	cleanup_hooks+=("umount '$TMP/mnt-$fs'")
	mkdir "$TMP/mnt-$fs/v3" "$TMP/mnt-$fs/v4" "$TMP/mnt-$fs/mixed"
	replay v3 "$TMP/mnt-$fs/v3" "$GANESHA_EXPORT"
	replay v4 "$TMP/mnt-$fs/v4" "$GANESHA_EXPORT2" --root-path /export2
	replay mixed "$TMP/mnt-$fs/mixed" "$GANESHA_EXPORT3"
done
echo "ok: captures $t_captures s, replays $((SECONDS - t_locked)) s (and $((t_locked - t_captures)) s before the loop devices' lock)"
