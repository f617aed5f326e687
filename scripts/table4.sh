#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Reproduces the README's Table-4-style predictor evaluation: for each backend+kernel pair, the true optimum of
# every suite shape is found over every pruned draft (branch and bound from the predictor strategy's pick:
# a draft stops simulating once it is slower than the best found; `evaluate --label-all` simulates every draft
# to the end instead) and compared with the predictor strategy's pick. Complete labels go to a results store
# (default labels.db) and are reused on the next run, so an interrupted run resumes.
#   scripts/table4.sh [STORE] [backend:kernel ...]     (default pairs: those in the README table)
set -euo pipefail
cd "$(dirname "$0")/.."
CLI=${CLI:-build/release/app/pimscope-cli}
SUITE=${SUITE:-datasets/suites/dcc_single_kernels.json}
STORE=${1:-labels.db}
shift || true
PAIRS=("$@")
if [ ${#PAIRS[@]} -eq 0 ]; then
  PAIRS=(hbm-pim:red hbm-pim:va hbm-pim:relu hbm-pim:gemv attacc:red attacc:gemv attacc:attn attacc:attn_gqa)
fi
# TOP overrides the predictor strategy's confirmation count (default: the CLI's, as explore uses).
EXTRA=()
if [ -n "${TOP:-}" ]; then EXTRA=(--top "$TOP"); fi
for pair in "${PAIRS[@]}"; do
  "$CLI" evaluate --backend "${pair%%:*}" --kernel "${pair##*:}" --suite "$SUITE" --db "$STORE" "${EXTRA[@]}"
done
