#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Installs what is missing, builds a release, and runs the main job on the shipped default session: the explorer
# window when there is a display, else the same session explored from the command line.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/deps.sh
cmake --preset release
cmake --build --preset release
APP=build/release/app
if [ -x "$APP/pimscope" ] && { [ -n "${DISPLAY:-}" ] || [ -n "${WAYLAND_DISPLAY:-}" ]; }; then
  exec "$APP/pimscope" "$@"
fi
"$APP/pimscope-cli" drafts --backend hbm-pim --kernel gemv --dims b=1,out=4096,in=4096 --limit 5
"$APP/pimscope-cli" explore --backend hbm-pim --kernel gemv --dims b=1,out=4096,in=4096
