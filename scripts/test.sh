#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Install dependencies, check the formatting (.clang-format), build, and run the whole test
# suite: ctest on a normal build and a check for files that call each other; the Debian
# package built, installed and tried (tests/package/deb_install.sh), then removed; ctest on an
# ASan+UBSan build; CMake's Release and Debug builds and a clang build with their unit and
# regression tests (every build type must compile warning-free); then every libFuzzer target
# briefly. With IOTAPE_NO_SKIP=1 (set by .ci/run)
# a test that would skip (no root, no loop devices, no NFS server) fails instead.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/deps.sh

FUZZ_SECONDS=${FUZZ_SECONDS:-30}
status=0

run_ctest() {
	local dir=$1 log
	shift
	log=$(mktemp)
	if ! ctest --test-dir "$dir" --output-on-failure --timeout 900 "$@" 2>&1 | tee "$log"; then
		status=1
	fi
	if grep -q "tests failed out of" "$log" && ! grep -q " 0 tests failed out of" "$log"; then
		status=1
	fi
	if [ -n "${IOTAPE_NO_SKIP:-}" ] && grep -q "\*\*\*Skipped\|Not Run" "$log"; then
		echo "test.sh: tests were skipped, and IOTAPE_NO_SKIP forbids that" >&2
		status=1
	fi
	rm -f "$log"
}

echo "== clang-format"
scripts/format.sh --check || status=1

echo "== release build"
scripts/build.sh release >/dev/null
run_ctest build

echo "== file cycles"
# no two files of one library or of cli/ call each other (scripts/file-cycles.py; also the
# ctest checks/file_cycles)
scripts/file-cycles.py build || status=1

echo "== Debian package"
# built from a git archive of HEAD, installed with apt-get, the installed iotape tried, removed
if deb=$(scripts/package.sh build-pkg); then
	rc=0
	tests/package/deb_install.sh "$deb" || rc=$?
	case $rc in
	0) ;;
	77) echo "test.sh: the package was built, its install test skipped" ;;
	*) status=1 ;;
	esac
else
	echo "test.sh: scripts/package.sh failed" >&2
	status=1
fi

echo "== ASan+UBSan build"
scripts/build.sh asan >/dev/null
export ASAN_OPTIONS=detect_leaks=1:abort_on_error=1
export UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
run_ctest build-asan
unset ASAN_OPTIONS UBSAN_OPTIONS

# The other build types: optimisation levels and compilers warn differently (gcc -O3 found a
# maybe-uninitialized that -O2 does not), so each is built with warnings as errors; their unit
# and regression tests take seconds, the integration tests already ran above.
for flavour in opt debug clang; do
	echo "== $flavour build"
	if ! scripts/build.sh "$flavour" >/dev/null; then
		echo "test.sh: the $flavour build failed" >&2
		status=1
		continue
	fi
	run_ctest "build-$flavour" -R '^(unit|regress)/'
done

echo "== fuzz targets (${FUZZ_SECONDS}s each)"
scripts/build.sh fuzz >/dev/null
fuzzed=0
for f in build-fuzz/tests/fuzz_*; do
	[ -x "$f" ] || continue
	name=${f##*/fuzz_}
	corpus=$(mktemp -d)
	seeds=()
	[ -d "tests/regress/$name" ] && seeds+=("tests/regress/$name")
	[ -d "tests/fuzz/seeds/$name" ] && seeds+=("tests/fuzz/seeds/$name")
	if "$f" -max_total_time="$FUZZ_SECONDS" -rss_limit_mb=2048 -print_final_stats=1 -artifact_prefix="$corpus/" \
		"$corpus" "${seeds[@]}" >"$corpus/log" 2>&1; then
		echo "fuzz $name: ok ($(grep -o 'stat::number_of_executed_units: [0-9]*' "$corpus/log" || tail -1 "$corpus/log"))"
	else
		echo "fuzz $name: FAILED; crash input kept in $corpus (add it under tests/regress/$name/)" >&2
		tail -40 "$corpus/log" >&2
		status=1
		continue
	fi
	fuzzed=$((fuzzed + 1))
	rm -rf "$corpus"
done
echo "fuzz: $fuzzed targets ran"

if [ $status -eq 0 ]; then echo "test.sh: all passed"; else echo "test.sh: FAILED" >&2; fi
exit $status
