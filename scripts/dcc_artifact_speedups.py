#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Per kernel and backend, the best draft's speed-up over the vendor schedule under PIMScope's own model (the
predictor strategy's pick, `explore`) and in the DCC-artifact mode (the best of DCC's generator, `dcc-drafts`), at
the artifact's own shapes (src/test_configs.py: RED/VA/RELU b in 1, 2, 4 x n in 1024, 2048, 4096; GEMV b in 1, 4 x
heads 32, 64 x dh 128 x L 512; ATTN the same), averaged as DCC averages (arithmetic mean), next to the
published figures (dcc-backends.md). The artifact's 3-D shapes are per stack: --set system.devices=1.

  CLI=build/ci/app/pimscope-cli python3 scripts/dcc_artifact_speedups.py [--quick] [--pimscope-only | --dcc-only]
"""
import json
import os
import subprocess
import sys

CLI = os.environ.get("CLI", "build/release/app/pimscope-cli")
TWO_D = [f"b={b},n={n}" for b in (1, 2, 4) for n in (1024, 2048, 4096)]
GEMV = [f"i={b * h},j=512,k=128" for b in (1, 4) for h in (32, 64)]
ATTN = [f"b={b},h={h},l=512,d=128" for b in (1, 4) for h in (32, 64)]
CASES = [
    ("hbm-pim", "red", TWO_D, 2.09), ("hbm-pim", "va", TWO_D, 1.64), ("hbm-pim", "relu", TWO_D, 1.54),
    ("hbm-pim", "mmtv", GEMV, 1.53), ("attacc", "red", TWO_D, 1.48), ("attacc", "mmtv", GEMV, 1.26),
    ("attacc", "attn", ATTN, 1.23),
]


def speedup(backend, kernel, dims):
    args = [CLI, "dcc-drafts", "-b", backend, "-k", kernel, "--dims", dims, "--set", "system.devices=1",
            "--top", "1", "--json"]
    out = json.loads(subprocess.run(args, check=True, capture_output=True, text=True).stdout)
    return out["best_speedup_over_vendor"], out["best"][0]["parts"], out["drafts"]


def pimscope_speedup(backend, kernel, dims):
    args = [CLI, "explore", "-b", backend, "-k", kernel, "--dims", dims, "--set", "system.devices=1", "--json"]
    out = json.loads(subprocess.run(args, check=True, capture_output=True, text=True).stdout)
    return out["speedup"]["vs_vendor"]


def summary(ups):
    return f"{sum(ups) / len(ups):.2f}x ({min(ups):.2f}-{max(ups):.2f})"


def main():
    quick = "--quick" in sys.argv
    pimscope_only = "--pimscope-only" in sys.argv
    dcc_only = "--dcc-only" in sys.argv
    print("| kernel on backend | shapes | PIMScope's model: best / vendor (mean, min-max) | DCC-artifact mode "
          "| DCC published |")
    print("|---|---|---|---|---|")
    for backend, kernel, shapes, published in CASES:
        shapes = shapes[:2] if quick else shapes
        ours = "(not run)" if dcc_only else summary([pimscope_speedup(backend, kernel, s) for s in shapes])
        dcc = "(not run)" if pimscope_only else summary([speedup(backend, kernel, s)[0] for s in shapes])
        print(f"| {kernel} on {backend} | {len(shapes)} | {ours} | {dcc} | {published:.2f}x |", flush=True)


if __name__ == "__main__":
    main()
