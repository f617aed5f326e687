#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Efficiency of `pimscope-cli sweep` at N ranks, modelled from one measured run (docs/sweep.md, "Scaling").

Reads the per-unit times a sweep recorded (sweep_units.seconds, measured with --threads 1 so one unit is one
core's work) and replays rank 0's dynamic hand-out: each unit, in plan order, goes to the rank that asks
first, after a dispatch latency. Every rank first computes the plan (--plan-seconds, serial, once per rank);
at the end rank 0 merges one shard per rank (--merge-ms-per-label per label, --merge-ms-per-shard per shard,
from `pimscope-bench --benchmark_filter=SweepMerge`). Prints predicted wall time, speed-up and efficiency.
"""
import argparse
import heapq
import sqlite3


def simulate(units, ranks, dispatch_s):
    free = [0.0] * ranks  # time each rank next asks for work
    heapq.heapify(free)
    for t in units:
        start = heapq.heappop(free) + dispatch_s
        heapq.heappush(free, start + t)
    return max(free)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("db", help="a store a sweep merged into (its sweep_units rows)")
    ap.add_argument("--plan", help="plan key (default: the only plan in the store)")
    ap.add_argument("--plan-seconds", type=float, required=True)
    ap.add_argument("--labels", type=int, required=True, help="labels the sweep writes")
    ap.add_argument("--merge-ms-per-label", type=float, required=True)
    ap.add_argument("--merge-ms-per-shard", type=float, required=True)
    ap.add_argument("--dispatch-ms", type=float, default=2.0,
                    help="per unit: rank 0 polls every 2 ms when idle, plus the message round trip")
    ap.add_argument("--ranks", default="1,2,4,16,64,256")
    a = ap.parse_args()
    con = sqlite3.connect(a.db)
    plans = [r[0] for r in con.execute("SELECT DISTINCT plan FROM sweep_units")]
    plan = a.plan or (plans[0] if len(plans) == 1 else None)
    if plan is None:
        raise SystemExit(f"{a.db}: {len(plans)} plans; name one with --plan")
    units = [r[0] for r in con.execute("SELECT seconds FROM sweep_units WHERE plan = ? ORDER BY unit", (plan,))]
    work = sum(units)
    print(f"{len(units)} units, {work:.1f} core-seconds of labelling, longest unit {max(units):.2f} s, "
          f"plan {a.plan_seconds:.2f} s per rank")
    def wall(n):
        merge = (a.labels * a.merge_ms_per_label + n * a.merge_ms_per_shard) / 1000
        return a.plan_seconds + simulate(units, n, a.dispatch_ms / 1000) + merge

    one = wall(1)
    print("ranks  wall_s  speed-up  efficiency")
    for n in (int(x) for x in a.ranks.split(",")):
        w = wall(n)
        print(f"{n:5d}  {w:6.2f}  {one / w:8.2f}  {one / w / n:10.0%}")


if __name__ == "__main__":
    main()
