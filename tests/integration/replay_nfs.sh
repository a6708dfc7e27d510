# SPDX-License-Identifier: MIT
# NFS replay (#13): a libnfs workload (a tree made, files written, read, renamed, truncated,
# hard- and soft-linked, removed; lookups of missing names) captured against nfs-ganesha in
# NFSv3 and NFSv4.0 replays afap onto directories on tmpfs, ext4, xfs and btrfs loop devices
# and onto a second ganesha export (its packets captured with --capture): each final tree (names, types, file sizes) equals the
# original export's, each procedure is replayed as often as captured, and every outcome,
# the failures included, is the capture's. A capture started mid-workload replays with
# placeholders for the handles it never saw named.
source "$SRCDIR/tests/integration/lib.bash"
source "$SRCDIR/tests/integration/ganesha.bash"
[ -e /dev/loop-control ] || skip "no loop devices (/dev/loop-control missing)"
for c in losetup mkfs.ext4 mkfs.xfs mkfs.btrfs; do require_cmd "$c"; done
ganesha_start

# tree DIR: what a replay must reproduce: names, types, file and link sizes (directories'
# sizes are the filesystem's own)
tree() {
	(cd "$1" && find . -mindepth 1 \( -type d -printf 'd %p\n' \) -o -printf '%y %s %p\n' |
		sort)
}

# the workloads, one capture each; the export's tree after each
capture_start "$TMP/v3.pcap"
"$TOOLS/nfsload" -v 3 -n 6 -s 65536 -b 16384 -x 127.0.0.1 "$GANESHA_EXPORT" /w3 >/dev/null
capture_stop
tree "$GANESHA_EXPORT/w3" >"$TMP/orig3.txt"
capture_start "$TMP/v4.pcap"
"$TOOLS/nfsload" -v 4 -n 4 -s 16384 -b 1024 -x 127.0.0.1 /export /w4 >/dev/null
capture_stop
tree "$GANESHA_EXPORT/w4" >"$TMP/orig4.txt"
grep -q '^l .*soft$' "$TMP/orig3.txt" || fail "the workload made no symbolic link"
"$IOTAPE" analyze --json "$TMP/v3.pcap" >"$TMP/cap3.json"

# check_json JSON: counts and outcomes equal the capture's; errors reproduced
check_json() {
	python3 - "$1" <<'PY' || fail "$1: the replay differs from the capture"
import json, sys
d = json.load(open(sys.argv[1]))
errs = 0
for p in d["procedures"]:
    name = "v%d %s" % (p["version"], p["name"])
    assert p["refused"] == 0, name + " refused"
    assert p["replayed"] + p["skipped"] == p["captured"], name + " counts"
    assert p["diverged"] == 0, name + " diverged"
    if p["replayed"]:
        assert p["skipped"] == 0, name
    errs += p["same_error"]
r = d["replay"]
assert r["diverged"] == 0 and r["refused"] == 0, r
assert r["same"] == r["calls"], r
assert errs >= 5, "errors reproduced: %d" % errs
assert d["capture"]["calls"] == r["calls"] + r["skipped"]
PY
}

# check_record REC: the recorded run, as analyze reads it, has the v3 capture's calls and
# errors per procedure (NULL is not replayed)
check_record() {
	"$IOTAPE" analyze --json "$1" >"$TMP/rec.json" || fail "analyze $1 failed"
	python3 - "$TMP/cap3.json" "$TMP/rec.json" "$2" <<'PY' || fail "$1: the record differs"
import json, sys
def procs(f):
    return {p["name"]: (p["calls"], p["errors"]) for p in json.load(open(f))["nfs"]["procedures"]
            if p["program"] == "NFS" and p["name"] != "NULL"}
cap, rec = procs(sys.argv[1]), procs(sys.argv[2])
assert cap == rec, (cap, rec)
PY
	python3 - "$1/manifest.json" "$2" <<'PY' || fail "$1: manifest"
import json, sys
m = json.load(open(sys.argv[1]))
assert m["kind"] == "replay" and m["filesystem"] == sys.argv[2], (m.get("filesystem"), sys.argv[2])
assert m["target"]["fstype"] == sys.argv[2] and m["target"]["options"], m["target"]
assert m["nfs_replay"]["replay"]["diverged"] == 0
assert m["host"]["kernel"]["release"] and "distro" in m["host"], m["host"]
PY
}

# replay V DIR ROOT [FS]: replay the vV capture into DIR (its workload's tree under DIR/ROOT),
# compare; with FS, also --record and check the record
replay_dir() {
	local v=$1 dir=$2 root=$3 fs=${4:-} rec=()
	[ -n "$fs" ] && rec=(--record "$TMP/rec-$fs")
	"$IOTAPE" replay --timing afap --json "$TMP/v$v.pcap" --target "$dir" "${rec[@]}" \
		>"$TMP/r.json" || fail "replay of v$v onto $dir failed"
	check_json "$TMP/r.json"
	tree "$dir/$root" >"$TMP/got.txt"
	diff "$TMP/orig$v.txt" "$TMP/got.txt" >&2 || fail "v$v onto $dir: the final tree differs"
	if [ -n "$fs" ]; then check_record "$TMP/rec-$fs" "$fs"; fi
}

mkdir -p "$TMP/tmpfs"
mount -t tmpfs iotape-test "$TMP/tmpfs"
cleanup_hooks+=("umount '$TMP/tmpfs'")
mkdir "$TMP/tmpfs/a" "$TMP/tmpfs/b"
replay_dir 3 "$TMP/tmpfs/a" w3 tmpfs
# v4 paths start at the server's pseudo root: /export/w4
replay_dir 4 "$TMP/tmpfs/b" export/w4
# --root-path: the v4 capture's /export is the target's root; what is outside is refused
mkdir "$TMP/tmpfs/c"
"$IOTAPE" replay --timing afap --json --root-path /export "$TMP/v4.pcap" --target "$TMP/tmpfs/c" \
	>"$TMP/r.json" || fail "--root-path replay failed"
check_json "$TMP/r.json"
tree "$TMP/tmpfs/c/w4" >"$TMP/got.txt"
diff "$TMP/orig4.txt" "$TMP/got.txt" >&2 || fail "--root-path: the final tree differs"
mkdir "$TMP/tmpfs/d"
"$IOTAPE" replay --timing afap --json --root-path /elsewhere "$TMP/v4.pcap" \
	--target "$TMP/tmpfs/d" >"$TMP/r.json" || fail "--root-path /elsewhere failed"
python3 - "$TMP/r.json" <<'PY' || fail "--root-path /elsewhere refused nothing"
import json, sys
d = json.load(open(sys.argv[1]))
assert d["safety"]["outside_root"] > 0 and d["replay"]["calls"] == 0, d["safety"]
PY
expect_eq "nothing outside --root-path replayed" "$(ls -A "$TMP/tmpfs/d")" ""

# a non-empty target needs --force
if "$IOTAPE" replay --timing afap "$TMP/v3.pcap" --target "$TMP/tmpfs/a" >/dev/null 2>"$TMP/err"; then
	fail "replayed into a non-empty directory without --force"
fi
grep -q "not empty" "$TMP/err" || fail "no reason given: $(cat "$TMP/err")"

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
	mkdir "$TMP/mnt-$fs/a" "$TMP/mnt-$fs/b"
	replay_dir 3 "$TMP/mnt-$fs/a" w3 "$fs"
	replay_dir 4 "$TMP/mnt-$fs/b" export/w4
done

# onto another server (the second export), in the capture's version
"$IOTAPE" replay --timing afap --json "$TMP/v3.pcap" --nfs "$NFS3_URL2" --capture "$TMP/capnfs" \
	>"$TMP/r.json" || fail "replay onto $NFS3_URL2 failed"
check_json "$TMP/r.json"
# --capture: the replay's own packets, as the server saw them
"$IOTAPE" analyze --json "$TMP/capnfs" >"$TMP/capnfs.json" || fail "analyze of --capture failed"
python3 - "$TMP/cap3.json" "$TMP/capnfs.json" "$TMP/capnfs/manifest.json" <<'PY' || fail "--capture of the NFS replay"
import json, sys
m = json.load(open(sys.argv[3]))
drops = m["counts"]["packet_drops"]
lost = json.load(open(sys.argv[2]))["nfs"]["stream"]["lost_bytes"]
if drops or lost:
    # a loaded machine: the kernel dropped packets, and the capture says so
    print("note: the capture dropped %d packets (%d bytes lost)" % (drops, lost))
    sys.exit(0)
def calls(f, name):
    return sum(p["calls"] for p in json.load(open(f))["nfs"]["procedures"]
               if p["program"] == "NFS" and p["name"] == name)
for op in ("WRITE", "READ", "RENAME", "REMOVE", "SYMLINK", "LINK"):
    assert calls(sys.argv[2], op) >= calls(sys.argv[1], op), (op, calls(sys.argv[2], op), calls(sys.argv[1], op))
PY
tree "$GANESHA_EXPORT2/w3" >"$TMP/got.txt"
diff "$TMP/orig3.txt" "$TMP/got.txt" >&2 || fail "v3 onto $NFS3_URL2: the final tree differs"
# --root-path: the v4 capture's /export is the target's root
"$IOTAPE" replay --timing afap --json --force --root-path /export "$TMP/v4.pcap" \
	--nfs "$NFS4_URL2" >"$TMP/r.json" || fail "replay onto $NFS4_URL2 failed"
check_json "$TMP/r.json"
tree "$GANESHA_EXPORT2/w4" >"$TMP/got.txt"
diff "$TMP/orig4.txt" "$TMP/got.txt" >&2 || fail "v4 onto $NFS4_URL2: the final tree differs"

# the recorded replays side by side, labelled by their filesystems
"$IOTAPE" compare "$TMP/rec-ext4" "$TMP/rec-xfs" "$TMP/rec-btrfs" >"$TMP/cmp.txt" ||
	fail "compare of the recorded replays failed"
for fs in ext4 xfs btrfs; do
	grep -q "NFSv3 WRITE (ms) *$fs" "$TMP/cmp.txt" || fail "compare: no $fs row: $(cat "$TMP/cmp.txt")"
done

# a capture that starts mid-workload: the file nfsload holds open was named before it
mkfifo "$TMP/go"
: >"$TMP/load.err"
"$TOOLS/nfsload" -v 3 -n 3 -s 65536 -b 16384 -W "$TMP/go" 127.0.0.1 "$GANESHA_EXPORT" /mid \
	>/dev/null 2>"$TMP/load.err" &
load=$!
for ((i = 0; i < 300; i++)); do
	grep -q waiting "$TMP/load.err" && break
	sleep 0.1
done
grep -q waiting "$TMP/load.err" || fail "nfsload did not reach its pause"
capture_start "$TMP/mid.pcap"
echo go >"$TMP/go"
wait $load || fail "nfsload (mid-workload) failed"
capture_stop
mkdir "$TMP/tmpfs/mid"
"$IOTAPE" replay --timing afap --json "$TMP/mid.pcap" --target "$TMP/tmpfs/mid" \
	>"$TMP/mid.json" 2>"$TMP/mid.err" || fail "mid-workload replay failed: $(cat "$TMP/mid.err")"
python3 - "$TMP/mid.json" <<'PY' || fail "mid-workload replay"
import json, sys
d = json.load(open(sys.argv[1]))
r = d["replay"]
assert r["placeholders"] > 0, "no placeholders"
assert r["diverged"] == 0 and r["refused"] == 0, r
assert d["prepare"]["files"] >= 1, d["prepare"]
PY
[ -n "$(ls -A "$TMP/tmpfs/mid/.iotape-unnamed")" ] || fail "no placeholder in .iotape-unnamed"
[ -d "$TMP/tmpfs/mid/mid" ] || fail "the workload's directory was not prepared"
echo "ok"
