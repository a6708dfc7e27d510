#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Install dependencies, build, and analyze the bundled real sample run.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/deps.sh
scripts/build.sh release >/dev/null
exec build/iotape analyze samples/ext4
