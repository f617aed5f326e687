#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Installs what is missing, builds a release, and runs the main job on the shipped default session.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/deps.sh
cmake --preset release
cmake --build --preset release
./build/release/app/pimscope-cli drafts --backend hbm-pim --kernel gemv --dims b=1,out=4096,in=4096 --limit 5
