#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Writes a workload suite of random shapes within DCC's evaluation ranges (section 5.6), none of them in the
suites given with --exclude: the training-only dcc_random_train.json is seed 11 excluding the evaluation,
coverage and held-out suites; dcc_llm_train.json (attacc only) is `--draws gemv_llm` at seed 13 excluding those
and dcc_random_train.json.
  scripts/random_suite.py --seed 11 [--draws NAME,...] --name NAME --description TEXT --exclude SUITE ... > FILE"""
import argparse
import json
import random
import sys

# Draws of one shape (batch 1-8, vectors 512-8192, GEMV out 128-4096 x in
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

# The decode GEMVs of LLMs on AttAcc (engine/llm/decode_ops.cpp: QKV, projection, FFN and LM head per GPU):
# out 4,096-131,072 x in 1,024-32,768, batch 1-8, at most 2^32 multiply-adds per shape (the 12 shapes of
# dcc_llm_train.json label in 1.9 minutes on 2 cores, 3,000 drafts each).
def gemv_llm(r):
    while True:
        b, out, inner = r.choice([1, 1, 2, 4, 8]), 256 * r.randint(16, 512), 256 * r.randint(4, 128)
        if b * out * inner <= 2**32:
            return f"b={b},out={out},in={inner}"

# Per draw: the kernel it is a shape of, how many shapes, the draw. attn_gqa last among the default draws: the
# draws before it stay those the suites were written with.
DRAWS = {"red": ("red", 8, vector), "va": ("va", 8, vector), "relu": ("relu", 8, vector),
         "gemv": ("gemv", 12, gemv), "attn": ("attn", 8, attn), "attn_gqa": ("attn_gqa", 8, attn_gqa),
         "gemv_llm": ("gemv", 12, gemv_llm)}
DEFAULT_DRAWS = "red,va,relu,gemv,attn,attn_gqa"

def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--seed", type=int, required=True)
    ap.add_argument("--name", required=True)
    ap.add_argument("--description", required=True)
    ap.add_argument("--exclude", action="append", default=[])
    ap.add_argument("--draws", default=DEFAULT_DRAWS, help="comma-separated names of DRAWS, in drawing order")
    a = ap.parse_args()
    unknown = [name for name in a.draws.split(",") if name not in DRAWS]
    if unknown:
        ap.error(f"--draws: unknown {', '.join(unknown)} (known: {', '.join(DRAWS)})")
    taken = {}
    for path in a.exclude:
        for kernel, shapes in json.load(open(path))["kernels"].items():
            taken.setdefault(kernel, set()).update(shapes)
    r = random.Random(a.seed)
    kernels = {}
    for name in a.draws.split(","):
        kernel, count, draw = DRAWS[name]
        shapes = kernels.setdefault(kernel, [])
        drawn = 0
        while drawn < count:
            s = draw(r)
            if s not in shapes and s not in taken.get(kernel, set()):
                shapes.append(s)
                drawn += 1
    json.dump({"name": a.name, "description": a.description, "kernels": kernels}, sys.stdout, indent=1)
    sys.stdout.write("\n")

if __name__ == "__main__":
    main()
