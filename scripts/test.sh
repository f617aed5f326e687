#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Installs what is missing, builds with warnings as errors (-O2) and under AddressSanitizer +
# UndefinedBehaviorSanitizer, and runs every test once: the engine and CLI tests in the sanitized build, the GUI
# tests and the tests the sanitize preset leaves out (README.md, "Tests and benchmarks", says which and why) in
# the -O2 build. PIMSCOPE_SANITIZE=0 skips the sanitized build and runs every test in the -O2 one.
set -euo pipefail
cd "$(dirname "$0")/.."
# Each phase's wall time on stderr, so that a slow CI run says where its time went.
phase() { echo "== scripts/test.sh: $* (at ${SECONDS} s)" >&2; }
bash scripts/deps.sh
export QT_QPA_PLATFORM="${QT_QPA_PLATFORM:-offscreen}"
phase "build ci"
cmake --preset ci
cmake --build --preset ci
if [ "${PIMSCOPE_SANITIZE:-1}" = "0" ]; then
  ctest --preset ci
else
  # An assignment, so that a preset file without the sanitize filter stops the run (set -e) instead of
  # running every test here.
  unsanitized="$(cmake -P scripts/sanitize_exclusions.cmake)"
  phase "test ci: gui"
  ctest --preset ci --label-regex '^gui$'
  phase "test ci: left out of the sanitize pass"
  ctest --preset ci --tests-regex "$unsanitized"
  # Any ASan or UBSan report aborts the test process (-fno-sanitize-recover, halt_on_error, abort_on_error:
  # the test preset sets ASAN_OPTIONS and UBSAN_OPTIONS), so a finding fails the run.
  phase "build sanitize"
  cmake --preset sanitize
  cmake --build --preset sanitize
  phase "test sanitize"
  ctest --preset sanitize
fi
phase "done"
