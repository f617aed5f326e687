#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Runs shard INDEX of COUNT of a GoogleTest executable's tests in one process: every COUNT-th name in listing
# order, less the names matching EXCLUDED (an extended regular expression on Suite.Name: the sanitize test
# preset's filter, the one place it is written). The sanitize build registers its tests so
# (PIMSCOPE_TEST_SHARDS): under ASan a process takes about 0.3 s to start, which one process per test paid
# 950 times.
#   bash tests/run_shard.sh BINARY INDEX COUNT EXCLUDED
set -euo pipefail
bin=$1 index=$2 count=$3 excluded=$4
# --gtest_list_tests prints "Suite." (maybe with a "# TypeParam" comment) and then "  Name" lines.
names=$("$bin" --gtest_list_tests |
  awk '/^[^ ]/ { if ($1 ~ /\.$/) suite = $1; next } /^  [^ ]/ { print suite $1 }' |
  { grep -Ev -- "$excluded" || true; } |
  awk -v n="$count" -v i="$index" '(NR - 1) % n == i')
if [ -z "$names" ]; then
  echo "run_shard.sh: shard $index of $count of $bin has no tests" >&2
  exit 1
fi
exec "$bin" --gtest_filter="$(paste -sd: <<<"$names")"
