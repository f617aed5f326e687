#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Writes a workload suite of random shapes within DCC's evaluation ranges (section 5.6), none of them in the
suites given with --exclude: the training-only dcc_random_train.json is seed 11 excluding the evaluation,
coverage and held-out suites.
  scripts/random_suite.py --seed 11 --name NAME --description TEXT --exclude SUITE ... > FILE"""
import argparse
import json
import random
import sys

# Per kernel: how many shapes, and a draw of one shape (batch 1-8, vectors 512-8192, GEMV out 128-4096 x in
# 512-8192, attention heads 32-64 over sequences 128-4096 with head dimension 128, grouped-query attention below).
def vector(r):
    return f"b={r.randint(1, 8)},n={256 * r.randint(2, 32)}"

def gemv(r):
    return f"b={r.randint(1, 8)},out={128 * r.randint(1, 32)},in={256 * r.randint(2, 32)}"

def attn(r):
    return f"b={r.randint(1, 4)},h={8 * r.randint(4, 8)},l={128 * r.randint(1, 32)},d=128"

# Grouped-query attention as the LLM decode steps run it (engine/llm/decode_ops.cpp): h = K/V heads per GPU
# (8 K/V heads over 1, 2, 4 or 8 GPUs) x batch 1-4, groups of 4 or 8 query heads (LLaMA-3-8B, LLaMA-2-70B).
def attn_gqa(r):
    return f"h={r.choice([1, 2, 4, 8]) * r.randint(1, 4)},g={r.choice([4, 8])},l={128 * r.randint(1, 32)},d=128"

# attn_gqa last: the draws before it stay those the suites were written with.
DRAWS = {"red": (8, vector), "va": (8, vector), "relu": (8, vector), "gemv": (12, gemv), "attn": (8, attn),
         "attn_gqa": (8, attn_gqa)}

def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--seed", type=int, required=True)
    ap.add_argument("--name", required=True)
    ap.add_argument("--description", required=True)
    ap.add_argument("--exclude", action="append", default=[])
    a = ap.parse_args()
    taken = {}
    for path in a.exclude:
        for kernel, shapes in json.load(open(path))["kernels"].items():
            taken.setdefault(kernel, set()).update(shapes)
    r = random.Random(a.seed)
    kernels = {}
    for kernel, (count, draw) in DRAWS.items():
        shapes = []
        while len(shapes) < count:
            s = draw(r)
            if s not in shapes and s not in taken.get(kernel, set()):
                shapes.append(s)
        kernels[kernel] = shapes
    json.dump({"name": a.name, "description": a.description, "kernels": kernels}, sys.stdout, indent=1)
    sys.stdout.write("\n")

if __name__ == "__main__":
    main()
