#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Table-4 results against the labels a model was trained on (issue 23, docs/sweep.md "Label budgets").

For each budget it trains a model with `pimscope-cli train` into a store of its own, then runs
`pimscope-cli evaluate --models` on every kernel of the suite (the optimum by branch and bound, kept in a
shared store so it is computed once) and prints one row per budget:

  * random: DCC's sampling, at most N drafts per shape (--max-samples N) and DCC's own 15 % (no cap), for
    each seed;
  * active: `train --active --active-rounds R` for R = 1, 2, ... (one run per R, from the first seed: the
    first R rounds of the same sequence) until a run stops before its limit, or for the --rounds given.

Columns: labels (training and validation), their share of the suite's pruned drafts, pick = optimum (the
predictor strategy's confirmed pick), argmin = optimum (the single best prediction), and the argmin's mean
% of the optimum. Usage:

  python3 scripts/label_budget_curve.py [-b hbm-pim] [--suite datasets/suites/quick.json]
      [--kernels red,va,gemv] [--caps 16,32,64,128,256] [--seeds 1,2,3] [--rounds 1,2,4] [--work DIR]
"""
import argparse
import json
import os
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def cli(args):
    binary = os.environ.get("PIMSCOPE_CLI", os.path.join(ROOT, "build", "ci", "app", "pimscope-cli"))
    done = subprocess.run([binary] + args + ["--json"], capture_output=True, text=True)
    if done.returncode != 0:
        sys.exit("pimscope-cli " + " ".join(args) + " failed:\n" + done.stderr)
    return json.loads(done.stdout)


def evaluate(backend, suite, kernels, models, optimum_db):
    rows = []
    for k in kernels:
        rows += cli(["evaluate", "-b", backend, "-k", k, "--suite", suite, "--db", optimum_db, "--models",
                     models])["rows"]
    picks = sum(r["pick_ns"] <= r["optimum_ns"] for r in rows)
    argmins = sum(r["argmin_ns"] <= r["optimum_ns"] for r in rows)
    share = sum(r["optimum_ns"] / r["argmin_ns"] for r in rows) / len(rows)
    return len(rows), picks, argmins, share, sum(r["drafts"] for r in rows)


def train(backend, suite, work, name, extra):
    out = cli(["train", "-b", backend, "--suite", suite, "--db", os.path.join(work, name + ".db"), "--out",
               os.path.join(work, name)] + extra)
    return out, out["samples"] + out["validation_samples"], os.path.join(work, name)


def suite_of(path, kernels, work):
    """The suite restricted to `kernels`, as a file in `work`."""
    with open(path) as f:
        s = json.load(f)
    s["kernels"] = {k: v for k, v in s["kernels"].items() if k in kernels}
    out = os.path.join(work, "suite.json")
    with open(out, "w") as f:
        json.dump(s, f)
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("-b", "--backend", default="hbm-pim")
    ap.add_argument("--suite", default=os.path.join(ROOT, "datasets", "suites", "quick.json"))
    ap.add_argument("--kernels", default="red,va,gemv")
    ap.add_argument("--caps", default="16,32,64,128,256")
    ap.add_argument("--seeds", default="1,2,3")
    ap.add_argument("--rounds", default="", help="active runs of these round limits (default: 1, 2, ... until "
                    "a run stops on its own)")
    ap.add_argument("--work", help="folder for the stores and models (default: a temporary one)")
    a = ap.parse_args()
    kernels = a.kernels.split(",")
    work = a.work or tempfile.mkdtemp(prefix="label_budget_")
    os.makedirs(work, exist_ok=True)
    suite = suite_of(a.suite, kernels, work)
    optimum_db = os.path.join(work, "optimum.db")
    print("| sampling | seed | labels | of the drafts | pick = optimum | argmin = optimum | argmin's mean % of "
          "the optimum |")
    print("|---|---|---|---|---|---|---|")

    def row(what, seed, labels, models):
        n, picks, argmins, share, drafts = evaluate(a.backend, suite, kernels, models, optimum_db)
        print(f"| {what} | {seed} | {labels:,} | {100 * labels / drafts:.2f} % | {picks} of {n} | "
              f"{argmins} of {n} | {100 * share:.2f} % |", flush=True)

    for seed in a.seeds.split(","):
        for cap in a.caps.split(",") + ["dcc"]:
            extra = ["--seed", seed] + ([] if cap == "dcc" else ["--max-samples", cap])
            _, labels, models = train(a.backend, suite, work, f"random_{cap}_{seed}", extra)
            row("random, DCC's 15 %" if cap == "dcc" else f"random, at most {cap} per shape", seed, labels, models)
    seed = a.seeds.split(",")[0]
    for rounds in [int(r) for r in a.rounds.split(",")] if a.rounds else range(1, 1001):
        out, labels, models = train(a.backend, suite, work, f"active_{rounds}",
                                    ["--seed", seed, "--active", "--active-rounds", str(rounds)])
        ran = len(out["active"]["rounds"])
        if ran < rounds:  # it stopped on its own after `ran` rounds: this run is that one again
            if a.rounds:
                row(f"active, stopped after {ran} round(s)", seed, labels, models)
            break
        row(f"active, {rounds} round(s)", seed, labels, models)


if __name__ == "__main__":
    main()
