# SPDX-License-Identifier: MIT
# A throwaway single-host Ceph cluster from Debian's packages (ceph-mon, ceph-mgr, ceph-osd,
# ceph-common; no cephadm, no containers): one monitor, one manager and OSDs on loop devices,
# everything (configuration, monitor and manager data, OSD mount points, logs, sockets, pid
# files, images) under one directory instead of /var/lib/ceph, /var/log/ceph and /run/ceph.
#
# Sourced by tests/integration/ceph_osd.sh; also a program for trying iotape on Ceph by hand
# (docs/ceph.md), on a machine where nothing else runs a Ceph cluster:
#
#   bash tests/integration/ceph.bash up DIR [OSD...]   OSD: xfs, ext4, btrfs (filestore, the
#                                                      journal on a loop device of its own) or
#                                                      bluestore (ceph-volume on a loop device)
#   bash tests/integration/ceph.bash down DIR          stop the daemons, unmount, detach, remove
#
# With "up", `export CEPH_CONF=DIR/ceph.conf` makes ceph(8) and rados(8) talk to it. What was
# made is written down as it is made (DIR/state): "down" undoes exactly that, also after a
# failed "up". DIR/osds lists each OSD's devices: "ID DATA JOURNAL" (filestore), "ID BLOCK";
# DIR/dev/osdN-data, osdN-journal, osdN-block are links to them, the same whatever loop
# devices a cluster got (what a sweep gives capture: -d DIR/dev/osd0-data). Facts about Pacific on this machine: ../../../shared/ENVIRONMENT.md ("Ceph").

# ceph_log MSG: progress on stderr
ceph_log() { echo "ceph: $*" >&2; }

# ceph_note DIR KIND VALUE: remember something to undo (loop, mount, pid, pidfile)
ceph_note() { echo "$2 $3" >>"$1/state"; }

# ceph_cmd DIR ARGS...: the ceph CLI against the cluster in DIR (bounded: a cluster that is not
# up makes it wait for ever otherwise)
ceph_cmd() {
	local dir=$1
	shift
	timeout 60 ceph --conf "$dir/ceph.conf" --connect-timeout 30 "$@"
}

ceph_conf() {
	local dir=$1 fsid=$2 extra=""
	# btrfs under filestore is marked experimental in Pacific; asked for only when used (every
	# ceph command warns about it otherwise)
	[ "$3" = btrfs ] && extra="enable experimental unrecoverable data corrupting features = btrfs
"
	cat >"$dir/ceph.conf" <<EOF
[global]
fsid = $fsid
mon host = v2:127.0.0.1:3300/0,v1:127.0.0.1:6789/0
public addr = 127.0.0.1
ms bind ipv6 = false
auth cluster required = none
auth service required = none
auth client required = none
auth allow insecure global id reclaim = false
osd pool default size = 1
osd pool default min size = 1
osd pool default pg autoscale mode = off
mon allow pool size one = true
mon warn on pool no redundancy = false
osd crush chooseleaf type = 0
run dir = $dir/run
admin socket = $dir/run/\$cluster-\$name.asok
pid file = $dir/run/\$cluster-\$name.pid
log file = $dir/log/\$cluster-\$name.log
crash dir = $dir/crash
exporter sock dir = $dir/run
keyring = $dir/keyring
mon data = $dir/mon/\$cluster-\$id
mgr data = $dir/mgr/\$cluster-\$id
osd data = $dir/osd/\$cluster-\$id
osd journal = $dir/osd/\$cluster-\$id/journal
osd journal size = 0
osd max object name len = 256
osd max object namespace len = 64
${extra}mgr initial modules =
mon osd full ratio = .99
osd failsafe full ratio = .995
mon data avail warn = 1
mon data avail crit = 0
mon osd nearfull ratio = .98
mon osd backfillfull ratio = .985
osd memory target = 536870912
bluestore block create = false
EOF
}

# ceph_loop DIR NAME SIZE: a loop device over DIR/img/NAME.img, on stdout
ceph_loop() {
	local dir=$1 img=$1/img/$2.img dev
	truncate -s "$3" "$img"
	dev=$(losetup -f --show "$img") || return 1
	ceph_note "$dir" loop "$dev"
	echo "$dev"
}

# ceph_wait_up DIR N: until N OSDs are up (at most 120 s)
ceph_wait_up() {
	local i up
	for i in $(seq 120); do
		up=$(ceph_cmd "$1" osd stat --format json 2>/dev/null |
			python3 -c 'import json,sys; print(json.load(sys.stdin)["num_up_osds"])' 2>/dev/null) || up=0
		[ "$up" = "$2" ] && return 0
		sleep 1
	done
	ceph_log "only $up of $2 OSDs came up"
	return 1
}

# ceph_osd_filestore DIR ID FS: a filestore OSD: FS on a loop device mounted at its data
# directory, its journal a symbolic link to a second loop device
ceph_osd_filestore() {
	local dir=$1 id=$2 fs=$3 data journal osd uuid
	osd=$dir/osd/ceph-$id
	data=$(ceph_loop "$dir" "osd$id-data" 8G) || return 1
	journal=$(ceph_loop "$dir" "osd$id-journal" 512M) || return 1
	case $fs in
	xfs) mkfs.xfs -q -f "$data" ;;
	ext4) mkfs.ext4 -q -F "$data" ;;
	btrfs) mkfs.btrfs -q -f "$data" >/dev/null ;;
	*) ceph_log "unknown filesystem $fs"; return 1 ;;
	esac || return 1
	mkdir -p "$osd"
	mount "$data" "$osd" || return 1
	ceph_note "$dir" mount "$osd"
	ln -s "$journal" "$osd/journal"
	uuid=$(cat /proc/sys/kernel/random/uuid)
	[ "$(ceph_cmd "$dir" osd new "$uuid" "$id")" = "$id" ] || return 1
	ceph-osd --conf "$dir/ceph.conf" -i "$id" --mkfs --osd-uuid "$uuid" \
		--osd-objectstore filestore >>"$dir/log/mkfs.log" 2>&1 || return 1
	ceph_note "$dir" pidfile "$dir/run/ceph-osd.$id.pid"
	ceph-osd --conf "$dir/ceph.conf" -i "$id" --osd-objectstore filestore \
		>>"$dir/log/start.log" 2>&1 || return 1
	echo "$id $data $journal" >>"$dir/osds"
	ln -s "$data" "$dir/dev/osd$id-data"
	ln -s "$journal" "$dir/dev/osd$id-journal"
	ceph_log "osd.$id: filestore on $fs $data, journal $journal"
}

# ceph_osd_bluestore DIR ID: a BlueStore OSD on a loop device, made by ceph-volume
ceph_osd_bluestore() {
	local dir=$1 id=$2 block osd uuid
	osd=$dir/osd/ceph-$id
	block=$(ceph_loop "$dir" "osd$id-block" 8G) || return 1
	mkdir -p "$osd"
	mount -t tmpfs tmpfs "$osd" || return 1
	ceph_note "$dir" mount "$osd"
	ln -s "$block" "$osd/block"
	uuid=$(cat /proc/sys/kernel/random/uuid)
	[ "$(ceph_cmd "$dir" osd new "$uuid" "$id")" = "$id" ] || return 1
	ceph-osd --conf "$dir/ceph.conf" -i "$id" --mkfs --osd-uuid "$uuid" \
		--osd-objectstore bluestore >>"$dir/log/mkfs.log" 2>&1 || return 1
	ceph_note "$dir" pidfile "$dir/run/ceph-osd.$id.pid"
	ceph-osd --conf "$dir/ceph.conf" -i "$id" --osd-objectstore bluestore \
		>>"$dir/log/start.log" 2>&1 || return 1
	echo "$id $block" >>"$dir/osds"
	ln -s "$block" "$dir/dev/osd$id-block"
	ceph_log "osd.$id: bluestore on $block"
}

# ceph_up DIR OSD...: the cluster, its OSDs up and a pool "bench" (size 1) ready
ceph_up() {
	local dir=$1 fsid id=0 kind
	shift
	mkdir -p "$dir"/{run,log,crash,img,mon,mgr,osd,dev}
	: >"$dir/state"
	fsid=$(cat /proc/sys/kernel/random/uuid)
	ceph_conf "$dir" "$fsid" "$(printf '%s\n' "$@" | grep -x btrfs | head -1)"
	ceph-authtool --create-keyring "$dir/keyring" --gen-key -n mon. --cap mon 'allow *' \
		>/dev/null || return 1
	monmaptool --create --fsid "$fsid" --addv a '[v2:127.0.0.1:3300,v1:127.0.0.1:6789]' \
		"$dir/monmap" >/dev/null || return 1
	ceph-mon --conf "$dir/ceph.conf" --mkfs -i a --monmap "$dir/monmap" \
		--keyring "$dir/keyring" >>"$dir/log/mkfs.log" 2>&1 || return 1
	ceph_note "$dir" pidfile "$dir/run/ceph-mon.a.pid"
	ceph-mon --conf "$dir/ceph.conf" -i a >>"$dir/log/start.log" 2>&1 || return 1
	mkdir -p "$dir/mgr/ceph-x"
	ceph_note "$dir" pidfile "$dir/run/ceph-mgr.x.pid"
	ceph-mgr --conf "$dir/ceph.conf" -i x >>"$dir/log/start.log" 2>&1 || return 1
	for kind in "$@"; do
		case $kind in
		bluestore) ceph_osd_bluestore "$dir" "$id" || return 1 ;;
		*) ceph_osd_filestore "$dir" "$id" "$kind" || return 1 ;;
		esac
		id=$((id + 1))
	done
	ceph_wait_up "$dir" "$id" || return 1
	ceph_cmd "$dir" osd pool create bench 16 16 >/dev/null 2>&1 || return 1
	ceph_cmd "$dir" osd pool set bench size 1 --yes-i-really-mean-it >/dev/null 2>&1 || return 1
	ceph_cmd "$dir" osd pool application enable bench rados >/dev/null 2>&1 || return 1
	ceph_log "up: $id OSDs in $dir"
}

# ceph_down DIR: stop every daemon, unmount, detach the loop devices, remove DIR (also after a
# failed ceph_up: it undoes what DIR/state lists)
ceph_down() {
	local dir=$1 kind what pid i pids=()
	[ -f "$dir/state" ] || return 0
	while read -r kind what; do
		[ "$kind" = pidfile ] && [ -f "$what" ] && pid=$(cat "$what") &&
			kill -0 "$pid" 2>/dev/null && kill -TERM "$pid" && pids+=("$pid")
	done <"$dir/state"
	for i in $(seq 100); do
		for pid in "${pids[@]}"; do kill -0 "$pid" 2>/dev/null && break; done
		kill -0 "$pid" 2>/dev/null || break
		sleep 0.1
	done
	for pid in "${pids[@]}"; do kill -KILL "$pid" 2>/dev/null || true; done
	tac "$dir/state" | while read -r kind what; do
		case $kind in
		mount) umount "$what" 2>/dev/null || umount -l "$what" ;;
		loop) losetup -d "$what" ;;
		esac
	done
	rm -rf "$dir"
}

if [ "${BASH_SOURCE[0]}" = "$0" ]; then
	set -euo pipefail
	case ${1:-} in
	up)
		[ $# -ge 2 ] || { echo "usage: $0 up DIR [xfs|ext4|btrfs|bluestore]..." >&2; exit 2; }
		dir=$(realpath -m "$2")
		shift 2
		[ $# -gt 0 ] || set -- xfs xfs
		ceph_up "$dir" "$@" || { ceph_log "failed; logs in $dir/log (ceph.bash down $dir undoes it)"; exit 1; }
		echo "export CEPH_CONF=$dir/ceph.conf"
		;;
	down)
		[ $# -eq 2 ] || { echo "usage: $0 down DIR" >&2; exit 2; }
		ceph_down "$(realpath -m "$2")"
		;;
	*)
		echo "usage: $0 up DIR [xfs|ext4|btrfs|bluestore]... | down DIR" >&2
		exit 2
		;;
	esac
fi
