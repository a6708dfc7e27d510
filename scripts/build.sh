#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Configure and build one flavour, warnings as errors:
#   scripts/build.sh [release|asan|fuzz|opt|debug|clang]
#   -> build/, build-asan/, build-fuzz/, build-opt/ (CMake Release), build-debug/, build-clang/
set -euo pipefail
cd "$(dirname "$0")/.."
flavour=${1:-release}
case "$flavour" in
release) dir=build; args=(-DCMAKE_BUILD_TYPE=RelWithDebInfo) ;;
asan) dir=build-asan; args=(-DCMAKE_BUILD_TYPE=Debug -DIOTAPE_SANITIZE=ON) ;;
fuzz) dir=build-fuzz; args=(-DCMAKE_BUILD_TYPE=RelWithDebInfo -DIOTAPE_FUZZ=ON -DCMAKE_C_COMPILER=clang) ;;
opt) dir=build-opt; args=(-DCMAKE_BUILD_TYPE=Release) ;;
debug) dir=build-debug; args=(-DCMAKE_BUILD_TYPE=Debug) ;;
clang) dir=build-clang; args=(-DCMAKE_BUILD_TYPE=RelWithDebInfo -DCMAKE_C_COMPILER=clang) ;;
*) echo "usage: scripts/build.sh [release|asan|fuzz|opt|debug|clang]" >&2; exit 2 ;;
esac
cmake -S . -B "$dir" -DIOTAPE_WERROR=ON "${args[@]}" >/dev/null
cmake --build "$dir" -j"$(nproc)"
echo "$dir"
