#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Installs what is missing, builds with warnings as errors, and runs every test (GUI tests offscreen); then
# builds the engine, the CLI and their tests under AddressSanitizer + UndefinedBehaviorSanitizer and runs them
# again (README.md, "Tests and benchmarks", says which tests and why). PIMSCOPE_SANITIZE=0 skips that part.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/deps.sh
export QT_QPA_PLATFORM="${QT_QPA_PLATFORM:-offscreen}"
cmake --preset ci
cmake --build --preset ci
ctest --preset ci
if [ "${PIMSCOPE_SANITIZE:-1}" != "0" ]; then
  # Any ASan or UBSan report aborts the test process (-fno-sanitize-recover, halt_on_error, abort_on_error:
  # the test preset sets ASAN_OPTIONS and UBSAN_OPTIONS), so a finding fails the run.
  cmake --preset sanitize
  cmake --build --preset sanitize
  ctest --preset sanitize
fi
