#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Builds the libFuzzer targets (the `fuzz` preset: clang, ASan + UBSan) and runs each for SECONDS (default 60)
# on a copy of its seed corpus (tests/fuzz/corpus/<target>; what the fuzzer finds stays in the build folder).
# Prints each target's executions, executions per second and coverage; any crash, leak, timeout or sanitizer
# report stops that target, leaves its reproducer in build/fuzz/findings/ and makes the script exit 1.
# Usage: scripts/fuzz.sh [SECONDS] [TARGET...]   (targets: dsl backend schedule session store mapping network
# hierarchy convmap onnx crossbar)
set -euo pipefail
cd "$(dirname "$0")/.."
seconds="${1:-60}"
shift || true
targets=("$@")
((${#targets[@]})) || targets=(dsl backend schedule session store mapping network hierarchy convmap onnx crossbar)
cmake --preset fuzz >/dev/null
cmake --build --preset fuzz -j "${PIMSCOPE_JOBS:-2}"
mkdir -p build/fuzz/findings
status=0
for t in "${targets[@]}"; do
  corpus="build/fuzz/corpus/$t"
  mkdir -p "$corpus"
  cp -n tests/fuzz/corpus/"$t"/* "$corpus"/
  log="build/fuzz/fuzz_$t.log"
  # -max_len 65536: room for deep nesting; -timeout 10: a hang is a finding; -rss_limit_mb: so is 2 GB.
  if ! ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1 \
    "build/fuzz/tests/fuzz/fuzz_$t" "$corpus" -max_total_time="$seconds" -max_len=65536 -timeout=10 \
    -rss_limit_mb=2048 -print_final_stats=1 -artifact_prefix="build/fuzz/findings/${t}-" >"$log" 2>&1; then
    status=1
    echo "fuzz_$t: FINDING (see $log and build/fuzz/findings/)"
  fi
  runs=$(grep -o 'stat::number_of_executed_units: *[0-9]*' "$log" | grep -o '[0-9]*$' || echo 0)
  rate=$(grep -o 'stat::average_exec_per_sec: *[0-9]*' "$log" | grep -o '[0-9]*$' || echo 0)
  cov=$(grep -o 'cov: [0-9]* ft: [0-9]*' "$log" | tail -1 || true)
  echo "fuzz_$t: ${runs} executions in ${seconds} s (${rate}/s), ${cov}"
done
exit $status
