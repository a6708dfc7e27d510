#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Every command in README.md and docs/*.md runs as written (issue #27, item 11 and its class):
# docs_commands.py takes each page's shell blocks (```sh, or a transcript's "$ " lines) and
# this runs them in order, in a scratch directory of the page's own standing for the top of the
# source tree (its samples/ and tests/ linked there), where `iotape` is this build's and the
# test tools (nfsload, ...) are on PATH. A block that
# cannot run here says why in the page (<!-- not run: REASON -->); one that looks like
# commands without being labelled, or fails, fails the test.
#
# What the pages state in prose and not as commands is set up here: docs/replay-nfs.md's
# nfs-ganesha export at /srv/export (ganesha.bash, in this test's own network and mount
# namespace, /srv a tmpfs of that namespace), root, loop devices and tracefs (under the
# capture lock, as capture_lib.bash takes it).
source "$SRCDIR/tests/integration/lib.bash"
source "$SRCDIR/tests/integration/ganesha.bash"
[ -e /dev/loop-control ] || skip "no loop devices (/dev/loop-control missing)"
for c in losetup mkfs.ext4 mkfs.xfs mkfs.btrfs findmnt; do require_cmd "$c"; done

# the pages' blocks, checked before anything runs
mkdir -p "$TMP/scripts"
(cd "$SRCDIR" && python3 tests/integration/docs_commands.py "$TMP/scripts" README.md docs/*.md) \
	>"$TMP/blocks.txt" || fail "docs: blocks that are neither run nor marked (above)"
cat "$TMP/blocks.txt"
# the check itself: a ./scripts/ command, indented or in an unlabelled block, is named
mkdir -p "$TMP/probe"
printf 'Set up:\n\n    ./scripts/demo.sh\n\n```\n./scripts/build.sh release\n```\n' >"$TMP/probe/p.md"
if python3 "$SRCDIR/tests/integration/docs_commands.py" "$TMP/probe" "$TMP/probe/p.md" \
	>/dev/null 2>"$TMP/probe/err"; then
	fail "docs_commands.py passed ./scripts/ commands that are neither fenced nor labelled"
fi
expect_eq "probe page's errors" "$(grep -c '^/.*/p.md:[35]: ' "$TMP/probe/err")" 2
grep -q '^run: docs/replay-nfs.md:' "$TMP/blocks.txt" || fail "replay-nfs.md's worked example is not run"

# `iotape` on PATH: this build's
mkdir -p "$TMP/bin"
ln -s "$IOTAPE" "$TMP/bin/iotape"
export PATH="$TMP/bin:$TOOLS:$PATH"

# /srv/export: replay-nfs.md's export, on a tmpfs /srv private to this namespace
[ -d /srv ] || fail "no /srv to mount a tmpfs of this namespace on"
mount -t tmpfs -o mode=755 iotape-docs /srv
mkdir /srv/export
mount --bind "$GANESHA_EXPORT" /srv/export
GANESHA_EXPORT=/srv/export
ganesha_start

# unmount what a page mounted under its directory and detach the loop devices of its files,
# however the page's commands ended
unmount_under() {
	findmnt -rn -o TARGET | awk -v d="$1/" 'index($0, d) == 1' | sort -r |
		while read -r m; do umount "$m" || umount -l "$m"; done
	losetup -n -l -O NAME,BACK-FILE | awk -v d="$1/" 'index($2, d) == 1 {print $1}' |
		while read -r l; do losetup -d "$l"; done
}

# tracefs where capture.md's "by hand" block looks for it (this mount namespace only)
mountpoint -q /sys/kernel/tracing || mount -t tracefs nodev /sys/kernel/tracing

# loop devices and the blk tracer are shared by every test of the machine: the capture lock
exec 9>/tmp/iotape-capture-tests.lock
flock 9

n=0
for s in "$TMP"/scripts/*.sh; do
	page=$(basename "$s" .sh)
	dir=$TMP/page-$page
	mkdir -p "$dir"
	ln -s "$SRCDIR/samples" "$dir/samples"
	ln -s "$SRCDIR/tests" "$dir/tests"
	cleanup_hooks=("unmount_under $dir" "${cleanup_hooks[@]}")
	rc=0
	(cd "$dir" && timeout 300 bash "$s") >"$TMP/$page.out" 2>"$TMP/$page.err" || rc=$?
	unmount_under "$dir"
	if [ "$rc" -ne 0 ]; then
		tail -n 30 "$TMP/$page.out" "$TMP/$page.err" >&2
		fail "the commands of $page.md fail as written (exit $rc; the last block: $(grep '^===' "$TMP/$page.err" | tail -1))"
	fi
	n=$((n + 1))
done
# capture.md's block leaves its files where it says (/tmp/disk.img, /tmp/cpu*.bin)
rm -f /tmp/disk.img /tmp/cpu0.bin /tmp/cpu1.bin
flock -u 9
[ "$n" -gt 0 ] || fail "no page had a command to run"
# the worked example made what the page says it makes
for r in ext4-1 xfs-2 btrfs-3; do
	[ -s "$TMP/page-replay-nfs/runs/$r/manifest.json" ] || fail "replay-nfs.md: no runs/$r"
done
echo "PASS: the commands of $n pages ran as written"
