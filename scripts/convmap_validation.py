#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Rebuilds the README's conv-mapping validation table (issue 20, item 13): for every conv and FC layer of
ResNet-18 and VGG-16 on a hierarchy, the model's DRAM row activations against the trace simulator's, for the
mapping chosen under each objective and for N random valid mappings per layer (a seeded walk; those the
trace takes at most 10^6 steps for: tile iterations walked one by one, the periodic ones skipped). Prints one row per network and objective and the worst layers.

  CLI=build/ci/app/pimscope-cli python3 scripts/convmap_validation.py [--hierarchy pimopt-default] [--random 200]
"""
import argparse
import json
import os
import subprocess

CLI = os.environ.get("CLI", "build/release/app/pimscope-cli")


def mapped(network, hierarchy, objective, random, time_limit):
    args = [CLI, "map", "-b", hierarchy, "--network", network, "--objective", objective, "--trace",
            "--random-check", str(random), "--time-limit", str(time_limit), "--json"]
    return json.loads(subprocess.run(args, check=True, capture_output=True, text=True).stdout)


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--hierarchy", default="pimopt-default")
    p.add_argument("--random", type=int, default=200)
    p.add_argument("--time-limit", type=float, default=5)
    a = p.parse_args()
    print(f"| network on {a.hierarchy} | objective | layers | chosen mapping: max error | random mappings traced "
          "| random: max error | random: mean error |")
    print("|---|---|---|---|---|---|---|")
    for network in ("resnet18", "vgg16"):
        for objective in ("latency", "energy", "blended"):
            layers = [l for l in mapped(network, a.hierarchy, objective, a.random, a.time_limit)["layers"]
                      if "trace" in l]
            chosen = max(abs(l["trace"].get("error_pct", float("nan"))) for l in layers)
            untraced = [l["layer"] for l in layers if "error" in l["trace"]]
            n = sum(l["random_check"]["mappings"] for l in layers)
            worst = max(l["random_check"]["max_abs_error_pct"] for l in layers)
            mean = sum(l["random_check"]["mean_abs_error_pct"] * l["random_check"]["mappings"] for l in layers) / max(n, 1)
            note = f" (not traced: {', '.join(untraced)})" if untraced else ""
            print(f"| {network} | {objective} | {len(layers)} | {chosen:.2f}%{note} | {n:,} | {worst:.2f}% | {mean:.3f}% |")


if __name__ == "__main__":
    main()
