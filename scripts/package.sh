#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Build the Debian package the way a release is built: from a `git archive` of HEAD (the source
# tarball, kept beside the package), with Debian's build flags (dpkg-buildflags: hardening,
# -O2 -g, then stripped), installed under /usr, packed by CPack's DEB generator with Depends
# computed by dpkg-shlibdeps (cmake/package.cmake):
#   scripts/package.sh [OUTDIR]    -> OUTDIR/iotape_VERSION-1_ARCH.deb and iotape-VERSION.tar.gz
# OUTDIR defaults to build-pkg/ and is emptied first. Prints the package's path (the rest goes
# to stderr). Uncommitted changes are not packaged.
set -euo pipefail
cd "$(dirname "$0")/.."
out=${1:-build-pkg}
for tool in git cmake cpack dpkg-buildflags dpkg-shlibdeps gzip; do
	command -v "$tool" >/dev/null || { echo "package.sh: needs $tool (scripts/deps.sh)" >&2; exit 2; }
done
version=$(sed -n 's/^project(iotape VERSION \([0-9.]*\).*/\1/p' CMakeLists.txt)
[ -n "$version" ] || { echo "package.sh: no version in CMakeLists.txt" >&2; exit 2; }
if ! git diff --quiet HEAD --; then
	echo "package.sh: warning: uncommitted changes are not in the package, built from" \
		"$(git rev-parse --short=12 HEAD)" >&2
fi

rm -rf "$out"
mkdir -p "$out"
out=$(cd "$out" && pwd)
src=$out/iotape-$version
git archive --format=tar --prefix="iotape-$version/" HEAD | gzip -9n >"$src.tar.gz"
tar -xzf "$src.tar.gz" -C "$out"

# CFLAGS, CPPFLAGS and LDFLAGS as Debian builds its packages, with every hardening feature
# (bindnow, PIE too); CMake reads no CPPFLAGS, so they join CFLAGS; its build type None adds
# nothing. Warnings are errors, as in every build of scripts/build.sh.
export DEB_BUILD_MAINT_OPTIONS=hardening=+all
eval "$(dpkg-buildflags --export=sh)"
export CFLAGS="$CFLAGS $CPPFLAGS"
cmake -S "$src" -B "$out/build" -DCMAKE_BUILD_TYPE=None -DCMAKE_INSTALL_PREFIX=/usr \
	-DIOTAPE_WERROR=ON -DIOTAPE_BPF=ON -DCMAKE_SKIP_INSTALL_ALL_DEPENDENCY=ON \
	-DIOTAPE_DEB_CHANGELOG=ON >/dev/null
# the installed parts only (not the tests)
cmake --build "$out/build" -j"$(nproc)" --target iotape iotape_docs >&2
(cd "$out/build" && cpack -G DEB -B "$out" >/dev/null)
rm -rf "$out/_CPack_Packages"
deb=$(ls "$out"/iotape_"$version"-*.deb)
dpkg-deb --info "$deb" | sed -n 's/^ \(Package\|Version\|Architecture\|Depends\|Recommends\|Suggests\|Installed-Size\):/\1:/p' >&2
echo "$deb"
