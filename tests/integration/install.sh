# SPDX-License-Identifier: MIT
# `cmake --install` (into a DESTDIR): the binary, a man page per command of the command table
# and iotape(1), the bash completion, the docs and the copyright under the GNU directories; the
# installed binary names its version and the commit it was built from; cmake/commit.cmake finds
# the commit of a `git archive` tarball (also one unpacked inside another repository), and says
# "unknown" for a tree that is neither.
source "$SRCDIR/tests/integration/lib.bash"
: "${BUILDDIR:?}"
need_cmd cmake
cd "$TMP"

DESTDIR=$TMP/root cmake --install "$BUILDDIR" --prefix /usr >install.log ||
	fail "cmake --install: $(cat install.log)"
usr=$TMP/root/usr
[ -x "$usr/bin/iotape" ] || fail "no bin/iotape"
cmds=$(iotape_commands | cut -f1)
for c in iotape $(printf 'iotape-%s\n' $cmds); do
	[ -s "$usr/share/man/man1/$c.1.gz" ] || fail "no share/man/man1/$c.1.gz"
done
[ -s "$usr/share/bash-completion/completions/iotape" ] || fail "no bash completion"
doc=$usr/share/doc/iotape
for f in README.md docs/analyze.md docs/diagnose-idle.png bench/README.md samples/ext4/manifest.json copyright; do
	[ -s "$doc/$f" ] || fail "no share/doc/iotape/$f"
done
# the installed documentation's links lead to installed files, and the check sees a dead one
python3 "$SRCDIR/tests/package/doc_links.py" "$doc" >links.txt || fail "dead links: $(cat links.txt)"
cp -r "$doc" doccopy
rm doccopy/docs/diagnose-idle.png
! python3 "$SRCDIR/tests/package/doc_links.py" doccopy >links.txt ||
	fail "doc_links.py did not see the missing image"
grep -q "diagnose-idle.png" links.txt || fail "doc_links.py: $(cat links.txt)"
# the installed README's first command runs on the installed samples as written
cmd=$(sed -n 's/^\(iotape analyze \/usr\/share\/doc\/iotape\/[^ ]*\)$/\1/p' "$doc/README.md" | head -1)
[ -n "$cmd" ] || fail "the README gives no command for the installed samples"
"$usr/bin/iotape" analyze "$TMP/root${cmd#iotape analyze }" >sample.txt ||
	fail "$cmd: $(cat sample.txt)"
grep -q "^device " sample.txt || fail "$cmd: $(head sample.txt)"

version=$(sed -n 's/^project(iotape VERSION \([0-9.]*\).*/\1/p' "$SRCDIR/CMakeLists.txt")
got=$("$usr/bin/iotape" --version)
[[ $got == "iotape $version (commit "* ]] || fail "--version: '$got'"
expect_eq "iotape version" "$("$usr/bin/iotape" version)" "$got"
if git -C "$SRCDIR" rev-parse --git-dir >/dev/null 2>&1; then
	head=$(git -C "$SRCDIR" rev-parse HEAD)
	date=$(git -C "$SRCDIR" log -1 --format=%cs)
	# what the build would record now; a build older than the last commit says that one's
	cmake -DSRC="$SRCDIR" -DOUT="$TMP/now.c" -P "$SRCDIR/cmake/commit.cmake"
	if cmp -s now.c "$BUILDDIR/iotape_commit.c"; then
		[[ $got == "iotape $version (commit ${head:0:12} of $date"* ]] ||
			fail "--version: '$got', HEAD is ${head:0:12} of $date"
	else
		built=$(sed -n 's/^const char iotape_commit\[\] = "\(.*\)";/\1/p' "$BUILDDIR/iotape_commit.c")
		echo "note: the build is older than the tree's last commit or changes (rebuild)" >&2
		[[ $got == "iotape $version (commit $built "* ]] || fail "--version: '$got', built $built"
	fi

	# a tarball made by `git archive`: cmake/commit.txt holds the commit (export-subst)
	mkdir -p outer/src
	git init -q outer
	git -C "$SRCDIR" archive HEAD cmake | tar -x -C outer/src
	cmake -DSRC="$TMP/outer/src" -DOUT="$TMP/commit.c" -P outer/src/cmake/commit.cmake
	grep -q "iotape_commit\[\] = \"${head:0:12}\";" commit.c || fail "tarball: $(cat commit.c)"
	grep -q "iotape_commit_date\[\] = \"$date\";" commit.c || fail "tarball date: $(cat commit.c)"
	grep -q "iotape_commit_modified = 0;" commit.c || fail "tarball: $(cat commit.c)"

	# the same files copied, not exported: nothing to say which commit
	rm -rf outer/src/cmake
	cp -r "$SRCDIR/cmake" outer/src/cmake
	cmake -DSRC="$TMP/outer/src" -DOUT="$TMP/commit.c" -P outer/src/cmake/commit.cmake
	grep -q 'iotape_commit\[\] = "";' commit.c || fail "plain copy: $(cat commit.c)"
else
	echo "note: $SRCDIR is not a git work tree; the commit checks need one" >&2
fi
echo "ok: $got"
