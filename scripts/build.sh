#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Configure and build one flavour: scripts/build.sh [release|asan|fuzz] -> build/, build-asan/, build-fuzz/
set -euo pipefail
cd "$(dirname "$0")/.."
flavour=${1:-release}
case "$flavour" in
release) dir=build; args=(-DCMAKE_BUILD_TYPE=RelWithDebInfo) ;;
asan) dir=build-asan; args=(-DCMAKE_BUILD_TYPE=Debug -DIOTAPE_SANITIZE=ON) ;;
fuzz) dir=build-fuzz; args=(-DCMAKE_BUILD_TYPE=RelWithDebInfo -DIOTAPE_FUZZ=ON -DCMAKE_C_COMPILER=clang) ;;
*) echo "usage: scripts/build.sh [release|asan|fuzz]" >&2; exit 2 ;;
esac
cmake -S . -B "$dir" "${args[@]}" >/dev/null
cmake --build "$dir" -j"$(nproc)"
echo "$dir"
