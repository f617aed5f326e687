#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Rebuilds the README's conv-mapping validation tables (issue 20, item 13): for every conv and FC layer of
ResNet-18 and VGG-16 on a hierarchy, the model's DRAM row activations against the trace simulator's, for the
mapping chosen under each objective, and for the first N valid mappings of a seeded random walk per layer,
each traced whatever its size up to the trace's 10^9 steps (tile iterations walked one by one, the periodic
ones skipped); any over it are counted. The random sample does not depend on the objective, so it is traced
once per network, in the latency run.
  CLI=build/ci/app/pimscope-cli python3 scripts/convmap_validation.py [--hierarchy pimopt-default] [--random 200]
      [--time-limit 5] [--networks resnet18,vgg16]
"""
import argparse
import json
import os
import subprocess

CLI = os.environ.get("CLI", "build/release/app/pimscope-cli")


def mapped(network, hierarchy, objective, random, time_limit):
    args = [CLI, "map", "-b", hierarchy, "--network", network, "--objective", objective, "--trace",
            "--time-limit", str(time_limit), "--json"]
    if random:
        args += ["--random-check", str(random)]
    return json.loads(subprocess.run(args, check=True, capture_output=True, text=True).stdout)


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--hierarchy", default="pimopt-default")
    p.add_argument("--random", type=int, default=200)
    p.add_argument("--time-limit", type=float, default=5)
    p.add_argument("--networks", default="resnet18,vgg16", help="comma-separated (one per process to use more cores)")
    a = p.parse_args()
    chosen_rows, random_rows = [], []
    for network in a.networks.split(","):
        for objective in ("latency", "energy", "blended"):
            sample = a.random if objective == "latency" else 0
            layers = [l for l in mapped(network, a.hierarchy, objective, sample, a.time_limit)["layers"]
                      if "trace" in l]
            chosen = max(abs(l["trace"].get("error_pct", float("nan"))) for l in layers)
            untraced = [l["layer"] for l in layers if "error" in l["trace"]]
            note = f" (not traced: {', '.join(untraced)})" if untraced else ""
            chosen_rows.append(f"| {network} | {objective} | {len(layers)} | {chosen:.2f}%{note} |")
            checks = [l["random_check"] for l in layers if "random_check" in l and "same_shape_as" not in l]
            if not checks:
                continue
            drawn = sum(c["drawn"] for c in checks)
            n = sum(c["mappings"] for c in checks)
            over = sum(c["over_step_limit"] for c in checks)
            worst = max(c["max_abs_error_pct"] for c in checks)
            mean = sum(c["mean_abs_error_pct"] * c["mappings"] for c in checks) / max(n, 1)
            steps = max(c["most_steps"] for c in checks)
            random_rows.append(f"| {network} | {len(checks)} | {drawn:,} | {n:,} | {over} | {steps:,} | "
                               f"{worst:.2f}% | {mean:.3f}% |")
    print(f"| network on {a.hierarchy} | objective | layers | chosen mapping: max error |")
    print("|---|---|---|---|")
    print("\n".join(chosen_rows))
    print()
    print(f"| network on {a.hierarchy} | layer shapes | random mappings drawn | traced | over 10^9 steps "
          "| most steps | max error | mean error |")
    print("|---|---|---|---|---|---|---|---|")
    print("\n".join(random_rows))


if __name__ == "__main__":
    main()
