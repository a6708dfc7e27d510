#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Apply .clang-format to every C file in the repository, or with --check say which differ
# (exit 1) without touching them. clang-format 14, Debian's (scripts/deps.sh installs it).
set -euo pipefail
cd "$(dirname "$0")/.."
CF=${CLANG_FORMAT:-$(command -v clang-format-14 || command -v clang-format)}
mapfile -t files < <(git ls-files '*.c' '*.h')
if [ "${1:-}" = --check ]; then
	bad=0
	for f in "${files[@]}"; do
		if ! "$CF" --dry-run -Werror "$f" >/dev/null 2>&1; then
			echo "format: $f differs from .clang-format (scripts/format.sh applies it)" >&2
			bad=1
		fi
	done
	exit $bad
fi
"$CF" -i "${files[@]}"
