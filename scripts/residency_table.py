#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Rebuilds the README's residency table: per kernel and backend, the best draft (predictor strategy) and its
time breakdown with the kernel's declared residency (weights / KV cache resident) and with every tensor
streamed, next to the vendor, compute-centric and GPU baselines under the same residency.

  CLI=build/ci/app/pimscope-cli python3 scripts/residency_table.py
"""
import json
import os
import subprocess

CLI = os.environ.get("CLI", "build/release/app/pimscope-cli")
CASES = [("hbm-pim", "gemv", "W"), ("attacc", "gemv", "W"), ("attacc", "attn", "K,V"), ("hbm-pim", "mmtv", "A")]


def explore(backend, kernel, streamed):
    args = [CLI, "explore", "-b", backend, "-k", kernel, "--json"]
    if streamed:
        args += ["--streamed", streamed]
    return json.loads(subprocess.run(args, check=True, capture_output=True, text=True).stdout)


def ns(baseline):
    return f"{baseline['time_ns']['total']:,.0f}" if baseline.get("available") else "-"


def main():
    print("| kernel on backend | resident | best draft | in / compute / out (ns) | best (ns) "
          "| vendor (ns) | compute-centric (ns) | GPU (ns) |")
    print("|---|---|---|---|---|---|---|---|")
    for backend, kernel, declared in CASES:
        for streamed in ("", declared):
            j = explore(backend, kernel, streamed)
            best, base = j["best"], j["baselines"]
            parts = best["time_ns_breakdown"]
            split = " / ".join(f"{parts[k]:,.0f}" for k in
                               ("input_rearrangement", "compute", "output_rearrangement"))
            print(f"| {kernel} on {backend} | {'none' if streamed else declared} | `{best['label']}` | {split} "
                  f"| {best['time_ns']:,.0f} | {ns(base['vendor'])} | {ns(base['compute_centric'])} "
                  f"| {ns(base['gpu'])} |")


if __name__ == "__main__":
    main()
