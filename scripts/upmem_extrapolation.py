#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Slice simulation (CoMoNM's Algorithm 1) against every instruction simulated, on PrIM's kernels as its
scaling scripts run them (1, 4, 16 and 64 DPUs of one rank; 1 to 16 tasklets; the vendor schedule): the
DPU-kernel time of `simulate` against `simulate --no-extrapolation`, and the worst disagreement.

  CLI=build/ci/app/pimscope-cli python3 scripts/upmem_extrapolation.py
"""
import json
import os
import subprocess

CLI = os.environ.get("CLI", "build/release/app/pimscope-cli")
CASES = [("va", "n=2621440", "i32"), ("red", "n=6553600", "i64"), ("gemv", "out=8192,in=1024", "i32")]


def kernel_ms(kernel, dims, dtype, dpus, tasklets, full):
    args = [CLI, "simulate", "-b", "upmem", "-k", kernel, "--dims", dims, "--dtype", dtype, "--dpus", str(dpus),
            "--tasklets", str(tasklets), "--json"] + (["--no-extrapolation"] if full else [])
    out = json.loads(subprocess.run(args, check=True, capture_output=True, text=True).stdout)["upmem"]
    return out["dpu_kernel_ms"], out["extrapolated"]


def main():
    print("| kernel | DPUs | tasklets | sliced (ms) | full (ms) | sliced / full |")
    print("|---|---|---|---|---|---|")
    worst, runs, sliced_runs = (0.0, None), 0, 0
    for kernel, dims, dtype in CASES:
        for dpus in (1, 4, 16, 64):
            for tasklets in (1, 2, 4, 8, 16):
                sliced, was_sliced = kernel_ms(kernel, dims, dtype, dpus, tasklets, False)
                full, _ = kernel_ms(kernel, dims, dtype, dpus, tasklets, True)
                runs += 1
                sliced_runs += int(was_sliced)
                error = sliced / full - 1
                if abs(error) > abs(worst[0]):
                    worst = (error, (kernel, dpus, tasklets))
                print(f"| {kernel} {dtype} | {dpus} | {tasklets} | {sliced:.4f} | {full:.4f} | {sliced / full:.4f} |")
    print(f"\n{runs} runs, {sliced_runs} extrapolated; worst disagreement {worst[0] * 100:+.3f}% at {worst[1]}")


if __name__ == "__main__":
    main()
