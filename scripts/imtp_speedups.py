#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""IMTP's comparison on PIMScope's UPMEM model: `explore --strategy imtp` against PrIM (the vendor schedule,
DPUs grid-searched over powers of two) and PrIM+search (DPUs, tasklets and block grid-searched), for the
seven kernels of IMTP section 6 at PrIM's one-rank sizes and GPT-J shapes. Prints a Markdown table; the
README's table comes from it.

    scripts/imtp_speedups.py [--cli build/release/app/pimscope-cli] [--trials 1000] [--seed 1]
    scripts/imtp_speedups.py --predictor    # the predictor strategy's pick instead (docs/simulator.md)
    scripts/imtp_speedups.py --predictor --random 3   # at 15 random shapes (seed 3) instead, beside imtp's
"""
import argparse
import json
import math
import random
import subprocess
import sys

CASES = [
    ("va", "b=1,n=2621440", "i32", "PrIM VA, one rank"),
    ("geva", "b=1,n=2621440", "i32", "PrIM-style GEVA"),
    ("red", "b=1,n=6553600", "i64", "PrIM RED, one rank"),
    ("gemv", "b=1,out=8192,in=1024", "i32", "PrIM GEMV (MTV), one rank"),
    ("gemv", "b=1,out=4096,in=16384", "i32", "GPT-J FC-projection-shaped MTV"),
    ("ttv", "i=256,j=256,k=256", "i32", "TTV"),
    ("mmtv", "i=16,j=256,k=256", "i32", "GPT-J 6B attention MMTV (16 heads, 256 tokens)"),
]


def random_cases(seed):
    """Three random shapes each of VA, RED, GEMV, TTV and MMTV (none of them a training shape)."""
    rng = random.Random(seed)
    r = rng.randint
    cases = []
    for _ in range(3):
        cases.append(("va", f"b=1,n={r(1 << 18, 1 << 23)}", "i32", "random"))
        cases.append(("red", f"b=1,n={r(1 << 18, 1 << 23)}", "i64", "random"))
        cases.append(("gemv", f"b=1,out={r(1024, 16384)},in={r(256, 16384)}", "i32", "random"))
        cases.append(("ttv", f"i={r(64, 512)},j={r(64, 512)},k={r(64, 512)}", "i32", "random"))
        cases.append(("mmtv", f"i={r(4, 64)},j={r(64, 1024)},k={r(64, 1024)}", "i32", "random"))
    return cases


def explore(cli, kernel, dims, dtype, extra):
    cmd = [cli, "explore", "-b", "upmem", "-k", kernel, "-d", dims, "--dtype", dtype, "--json"] + extra
    r = subprocess.run(cmd, capture_output=True, text=True)
    if r.returncode != 0:
        raise RuntimeError(r.stderr.strip())
    return json.loads(r.stdout)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--cli", default="build/release/app/pimscope-cli")
    ap.add_argument("--trials", type=int, default=1000)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--predictor", action="store_true", help="run the predictor strategy (the default) instead")
    ap.add_argument("--random", type=int, metavar="SEED",
                    help="with --predictor: 15 random shapes from SEED, with the compute-centric baseline and imtp")
    a = ap.parse_args()
    if a.predictor and a.random is not None:
        random_table(a.cli, random_cases(a.random), a.trials, a.seed)
        return
    if a.predictor:
        predictor_table(a.cli)
        return
    print("| kernel | shape | PrIM (ms) | PrIM+search (ms) | imtp (ms) | vs PrIM | vs PrIM+search | trials/s | best |")
    print("|---|---|---|---|---|---|---|---|---|")
    for kernel, dims, dtype, what in CASES:
        cmd = [a.cli, "explore", "-b", "upmem", "-k", kernel, "-d", dims, "--dtype", dtype, "--strategy", "imtp",
               "--trials", str(a.trials), "--seed", str(a.seed), "--json"]
        r = subprocess.run(cmd, capture_output=True, text=True)
        if r.returncode != 0:
            print(f"| {kernel} | {dims} | failed: {r.stderr.strip()} |||||||")
            continue
        j = json.loads(r.stdout)
        ms = lambda ns: f"{ns / 1e6:.3f}" if ns else "-"
        prim = j["baselines"]["vendor"]["time_ns"]["total"] if j["baselines"]["vendor"] else None
        search = j["baselines"]["prim_search"]["time_ns"]["total"] if j["baselines"]["prim_search"] else None
        best = j["best"]["time_ns"]
        sx = lambda base: f"{base / best:.2f}x" if base else "-"
        print(f"| {kernel} ({what}) | {dims} {dtype} | {ms(prim)} | {ms(search)} | {ms(best)} | {sx(prim)} | "
              f"{sx(search)} | {j['trials_per_second']:.0f} | `{j['best']['label']}` |")
        sys.stdout.flush()


def predictor_table(cli):
    """`explore` with its default strategy (the shipped model's predictor) at the same shapes."""
    print("| kernel | shape | predictor (ms) | explore (s) | pick |")
    print("|---|---|---|---|---|")
    for kernel, dims, dtype, what in CASES:
        cmd = [cli, "explore", "-b", "upmem", "-k", kernel, "-d", dims, "--dtype", dtype, "--json"]
        r = subprocess.run(cmd, capture_output=True, text=True)
        if r.returncode != 0:
            print(f"| {kernel} | {dims} | failed: {r.stderr.strip()} |||")
            continue
        j = json.loads(r.stdout)
        print(f"| {kernel} ({what}) | {dims} {dtype} | {j['best']['time_ns'] / 1e6:.3f} | {j['seconds']:.2f} | "
              f"`{j['best']['label']}` |")
        sys.stdout.flush()


def random_table(cli, cases, trials, seed):
    """The predictor's pick, the compute-centric baseline and the imtp search's pick per shape, and the
    geometric means of the predictor's over the other two."""
    print("| kernel | shape | predictor (ms) | compute-centric (ms) | imtp (ms) |")
    print("|---|---|---|---|---|")
    over_cc, over_imtp = [], []
    for kernel, dims, dtype, _ in cases:
        p = explore(cli, kernel, dims, dtype, [])
        i = explore(cli, kernel, dims, dtype, ["--strategy", "imtp", "--trials", str(trials), "--seed", str(seed)])
        best, cc, imtp = p["best"]["time_ns"], p["baselines"]["compute_centric"]["time_ns"]["total"], i["best"]["time_ns"]
        over_cc.append(best / cc)
        over_imtp.append(best / imtp)
        print(f"| {kernel} | {dims} {dtype} | {best / 1e6:.3f} | {cc / 1e6:.3f} | {imtp / 1e6:.3f} |")
        sys.stdout.flush()
    gm = lambda v: math.exp(sum(map(math.log, v)) / len(v))
    print(f"\npredictor / compute-centric: geometric mean {gm(over_cc):.3f}, worst {max(over_cc):.3f}; "
          f"predictor / imtp: geometric mean {gm(over_imtp):.3f}, worst {max(over_imtp):.3f}")


if __name__ == "__main__":
    main()
