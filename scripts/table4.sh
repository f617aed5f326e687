#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Reproduces the README's Table-4-style predictor evaluation: for each backend+kernel pair, every pruned draft of
# every suite shape is simulated (the true optimum) and compared with the predictor strategy's pick. Labels go to
# a results store (default labels.db) and are reused on the next run, so an interrupted run resumes; labelling
# the GEMV shapes from scratch takes about an hour per backend on 2 cores.
#   scripts/table4.sh [STORE] [backend:kernel ...]     (default pairs: those in the README table)
set -euo pipefail
cd "$(dirname "$0")/.."
CLI=${CLI:-build/release/app/pimscope-cli}
SUITE=${SUITE:-datasets/suites/dcc_single_kernels.json}
STORE=${1:-labels.db}
shift || true
PAIRS=("$@")
if [ ${#PAIRS[@]} -eq 0 ]; then
  PAIRS=(hbm-pim:red hbm-pim:va hbm-pim:relu hbm-pim:gemv attacc:red attacc:gemv)
fi
# TOP overrides the predictor strategy's confirmation count (default: the CLI's, as explore uses).
EXTRA=()
if [ -n "${TOP:-}" ]; then EXTRA=(--top "$TOP"); fi
for pair in "${PAIRS[@]}"; do
  "$CLI" evaluate --backend "${pair%%:*}" --kernel "${pair##*:}" --suite "$SUITE" --db "$STORE" "${EXTRA[@]}"
done
