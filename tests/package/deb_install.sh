#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# tests/package/deb_install.sh DEB: install the package as a user would (apt-get install ./DEB,
# as root), then check what it installed: its Depends name the libraries its programs link (and
# no FFmpeg library: movie encodes through the ffmpeg program) and its Recommends the oracle
# tools, ffmpeg and the font movie draws with; /usr/bin/iotape (not a build tree's) runs and
# names the commit; it analyzes, reports and compares the samples and makes a movie of one;
# `man -w iotape-capture` finds the page; bash completion, loaded by bash-completion on demand,
# answers. The package is removed at the end, whatever happened, so later steps and runs see a
# clean machine.
# Run by scripts/test.sh after scripts/package.sh; exits 77 (skipped) without root unless
# IOTAPE_NO_SKIP is set. Not a ctest test: it installs a package system-wide.
set -euo pipefail
src=$(cd "$(dirname "$0")/../.." && pwd)
fail() { echo "FAIL: deb_install: $*" >&2; exit 1; }
skip() {
	[ -z "${IOTAPE_NO_SKIP:-}" ] || fail "would skip, but IOTAPE_NO_SKIP is set: $*"
	echo "SKIP: deb_install: $*" >&2
	exit 77
}
[ $# -eq 1 ] && [ -f "$1" ] || { echo "usage: tests/package/deb_install.sh DEB" >&2; exit 2; }
deb=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
[ "$(id -u)" -eq 0 ] || skip "needs root to install a package"
command -v apt-get >/dev/null || skip "needs apt-get"

# one package test per machine; and never over an iotape someone installed
exec 9>/tmp/iotape-package-tests.lock
flock 9
if dpkg-query -W -f='${Status}' iotape 2>/dev/null | grep -q "ok installed"; then
	fail "a package iotape is installed already: not replacing it (apt-get remove iotape)"
fi
tmp=$(mktemp -d /tmp/iotape-deb.XXXXXX)
cleanup() {
	DEBIAN_FRONTEND=noninteractive apt-get remove --purge -y -q \
		-o DPkg::Lock::Timeout=300 iotape >/dev/null 2>&1 || true
	rm -rf "$tmp"
}
trap cleanup EXIT

# what dpkg-shlibdeps computed: a package for every library any program of the package needs
depends=$(dpkg-deb -f "$deb" Depends)
mkdir "$tmp/deb"
dpkg-deb -x "$deb" "$tmp/deb"
multiarch=$(dpkg-architecture -qDEB_HOST_MULTIARCH)
nelf=0
while IFS= read -r -d '' f; do
	[ "$(head -c4 "$f" | od -An -c | tr -d ' ')" = '177ELF' ] || continue
	nelf=$((nelf + 1))
	for so in $(readelf -d "$f" | sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p'); do
		pkg=$(dpkg -S "*/$multiarch/$so" 2>/dev/null | head -1 | cut -d: -f1)
		[ -n "$pkg" ] || fail "no package has $so (${f#"$tmp/deb"})"
		[[ $depends == *"$pkg "* || $depends == *"$pkg" ]] ||
			fail "Depends lacks $pkg ($so of ${f#"$tmp/deb"}): $depends"
	done
done < <(find "$tmp/deb" -type f -perm -u+x -print0)
[ -x "$tmp/deb/usr/bin/iotape" ] && [ $nelf -ge 1 ] || fail "no usr/bin/iotape in the package"
# movie encodes through the ffmpeg program: the package must not pull FFmpeg's libraries
for p in libavcodec libavformat libavutil libavfilter libswscale libswresample; do
	[[ $depends != *"$p"* ]] || fail "Depends names FFmpeg's $p: $depends"
done
recommends=$(dpkg-deb -f "$deb" Recommends)
for p in blktrace tshark fio ffmpeg fonts-dejavu-core; do
	[[ $recommends == *"$p"* ]] || fail "Recommends lacks $p: $recommends"
done

(cd "$(dirname "$deb")" && DEBIAN_FRONTEND=noninteractive apt-get install -y -q \
	-o DPkg::Lock::Timeout=300 "./$(basename "$deb")") >"$tmp/apt.log" 2>&1 ||
	fail "apt-get install: $(tail -20 "$tmp/apt.log")"
iotape=/usr/bin/iotape
[ -x $iotape ] || fail "no $iotape"
[ "$(PATH=/usr/sbin:/usr/bin:/sbin:/bin command -v iotape)" = $iotape ] || fail "iotape is not $iotape"
! ldd $iotape | grep -q "not found" || fail "unresolved libraries: $(ldd $iotape)"
version=$($iotape --version)
if git -C "$src" rev-parse --git-dir >/dev/null 2>&1; then
	head=$(git -C "$src" rev-parse --short=12 HEAD)
	[[ $version == "iotape "*" (commit $head of "* ]] || fail "--version: '$version', HEAD is $head"
fi

# the samples: analyze (block and NFS), report, compare
cd "$tmp"
$iotape analyze "$src/samples/ext4" >ext4.txt || fail "analyze ext4"
grep -q "^device " ext4.txt || fail "analyze ext4: $(head ext4.txt)"
$iotape analyze --json -o xfs.json "$src/samples/xfs" || fail "analyze --json xfs"
python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); assert d["devices"]' xfs.json ||
	fail "analyze --json xfs: no devices"
$iotape analyze "$src/samples/nfs/run" >nfs.txt || fail "analyze nfs"
grep -qi "nfs" nfs.txt || fail "analyze nfs: $(head nfs.txt)"
$iotape report -o report.html "$src/samples/ext4" "$src/samples/xfs" "$src/samples/btrfs" ||
	fail "report"
grep -q "<svg" report.html || fail "report: no graphs"
$iotape compare "$src/samples/ext4" "$src/samples/xfs" "$src/samples/btrfs" >compare.txt ||
	fail "compare"
grep -q "MiB/s" compare.txt || fail "compare: $(head compare.txt)"
# movie: ten small frames, encoded by the ffmpeg program apt installed as recommended (it
# brings ffprobe)
command -v ffmpeg >/dev/null && command -v ffprobe >/dev/null ||
	fail "apt-get install did not install the recommended ffmpeg"
$iotape movie -q -o movie.mp4 --length 1s --fps 10 --size 320x240 "$src/samples/ext4" ||
	fail "movie"
got=$(ffprobe -v error -select_streams v:0 -count_frames \
	-show_entries stream=codec_name,width,height,nb_read_frames -of csv=p=0 movie.mp4)
[ "$got" = "h264,320,240,10" ] || fail "movie: ffprobe says '$got'"

# the manual
page=$(man -w iotape-capture) || fail "man -w iotape-capture found nothing"
[ "$page" = /usr/share/man/man1/iotape-capture.1.gz ] || fail "man -w iotape-capture: $page"
MANPAGER=cat MANWIDTH=100 man iotape-capture 2>/dev/null | grep "iotape-capture - " >/dev/null ||
	fail "man iotape-capture does not show the page"
for c in $($iotape --help | sed -n '/^commands:$/,/^$/p' | sed -n 's/^   \([a-z][a-z0-9-]*\) .*/\1/p'); do
	man -w "iotape-$c" >/dev/null || fail "no man page for $c"
done

# the installed texts point at installed files only: the links of every page under
# /usr/share/doc/iotape, the pages each command's help and man page name, the README's command
doc=/usr/share/doc/iotape
python3 "$src/tests/package/doc_links.py" $doc >links.txt || fail "dead links in $doc: $(cat links.txt)"
for c in "" $($iotape --help | sed -n '/^commands:$/,/^$/p' | sed -n 's/^   \([a-z][a-z0-9-]*\) .*/\1/p'); do
	if [ -n "$c" ]; then $iotape help "$c" >help.txt; else $iotape --help >help.txt; fi
	for f in $(sed -n 's/^more: //p' help.txt | tr ',' ' '); do
		[[ $f == $doc/* ]] || fail "iotape help $c names '$f', not an installed path"
		[ -s "$f" ] || fail "iotape help $c names $f, not installed"
	done
	MANPAGER=cat MANWIDTH=200 man "iotape${c:+-$c}" 2>/dev/null >man.txt
	for f in $(grep -o "$doc/[A-Za-z0-9_./-]*" man.txt | sed "s/[.]*$//"); do
		[ -s "$f" ] || fail "man iotape${c:+-$c} names $f, not installed"
	done
done
cmd=$(sed -n "s|^\(iotape analyze $doc/samples/[^ ]*\)$|\1|p" $doc/README.md | head -1)
[ -n "$cmd" ] || fail "the installed README gives no command for the installed samples"
$cmd >sample.txt || fail "$cmd: $(tail -3 sample.txt)"
grep -q "^device " sample.txt || fail "$cmd: $(head sample.txt)"

# completion as an interactive bash gets it: bash-completion loads it on the first TAB
bash --norc --noprofile <<'EOF' || fail "completion"
set -u
source /usr/share/bash-completion/bash_completion
complete -p iotape >/dev/null 2>&1 && { echo "loaded before asked" >&2; exit 1; }
_completion_loader iotape
[[ $(complete -p iotape) == "complete -F _iotape iotape" ]] || { complete -p iotape >&2; exit 1; }
ask() {
	COMP_WORDS=(iotape "$@"); COMP_CWORD=$#; COMP_LINE="iotape $*"; COMP_POINT=${#COMP_LINE}
	COMPREPLY=()
	_iotape iotape "${COMP_WORDS[COMP_CWORD]}" "${COMP_WORDS[COMP_CWORD - 1]}"
	echo "${COMPREPLY[*]}"
}
[[ $(ask an) == analyze ]] || { echo "iotape an: $(ask an)" >&2; exit 1; }
[[ $(ask analyze --js) == --json ]] || { echo "analyze --js: $(ask analyze --js)" >&2; exit 1; }
[[ " $(ask help c) " == *" capture "* ]] || { echo "help c: $(ask help c)" >&2; exit 1; }
[[ $(ask help --co) == --completion ]] || { echo "help --co: $(ask help --co)" >&2; exit 1; }
[[ $(ask compare --format m) == markdown ]] ||
	{ echo "compare --format m: $(ask compare --format m)" >&2; exit 1; }
[[ $(ask replay --engine "") == "io_uring psync null" ]] ||
	{ echo "replay --engine: $(ask replay --engine "")" >&2; exit 1; }
EOF

cleanup
trap - EXIT
! dpkg-query -W -f='${Status}' iotape 2>/dev/null | grep -q "ok installed" || fail "not removed"
[ ! -e $iotape ] || fail "$iotape is still there after removal"
echo "ok: deb_install: $(basename "$deb"): $version"
