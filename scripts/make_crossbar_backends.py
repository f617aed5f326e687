#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Writes the shipped crossbar backends datasets/backends/crossbar-*.json (issue 19): PIMCOMP-NN's default
configuration and the TCAD paper's Arch-A/B/C as ../shared/specs/crossbar.md instantiates them ("Configurations":
8 physical 2-bit arrays per logical 16-bit array, so capacities agree with tcad Table V). Every number is a
declared parameter with unit, range and source; the shared ones (timing, energy) are written once here.
Standard library only; the output is deterministic.
  scripts/make_crossbar_backends.py [--out DIR]   (DIR defaults to datasets/backends next to this script)
"""
import argparse
import json
import os

SOURCES = {
    "tcad": "X. Sun et al., 'PIMCOMP: An End-to-End DNN Compiler for Processing-In-Memory Accelerators', "
            "IEEE TCAD (seed 001_6ddfd6cea3633f0a)",
    "dac23": "X. Sun et al., 'PIMCOMP: A Universal Compilation Framework for Crossbar-based PIM DNN "
             "Accelerators', DAC 2023, Table I (PUMA-based, 32 nm, 1 GHz)",
    "pimcomp-nn": "github.com/sunxt99/PIMCOMP-NN at 2ed10c8: config.json, configure.h, "
                  "evaluation/EvaluationConfig.h",
    "spec": "shared/specs/crossbar.md: the facts the crossbar compiler and profiler follow",
}


def p(value, unit, lo, hi, source, description):
    return {"value": value, "unit": unit, "min": lo, "max": hi, "source": source, "description": description}


def layout(chips, cores_x, cores_y, xbars, rows, cols, src_layout, src_xbars):
    return {
        "accelerator": {
            "chips": p(chips, "count", 1, 4096, src_layout, "chips; cores are split evenly over them (the "
                       "intended timing's contention domains: bus, global memory, HyperTransport)"),
            "coresX": p(cores_x, "count", 1, 4096, src_layout, "cores of the whole accelerator along X "
                        "(PIMCOMP-NN's network_config.layout[0])"),
            "coresY": p(cores_y, "count", 1, 4096, src_layout, "cores along Y (layout[1])"),
            "interChipGBps": p(6.4, "GB/s", 0, 100000, "pimcomp-nn: EvaluationConfig.h Hyper_Transport_bandwidth; "
                               "dac23: Table I (6.40 GB/s link)", "HyperTransport between chips"),
        },
        "chip": {
            "busGBps": p(25.6, "GB/s", 0, 100000, "pimcomp-nn: EvaluationConfig.h BUS_bandwidth",
                         "the chip's one shared core-to-core bus"),
            "globalMemoryGBps": p(64, "GB/s", 0, 100000, "pimcomp-nn: EvaluationConfig.h",
                                  "global memory, shared by the chip's cores"),
            "globalMemoryBytes": p(4194304, "bytes", 1, 1 << 40, "dac23: Table I (4 MB)", "global memory"),
            "synchronousCommunication": p(1, "bool", 0, 1, "tcad: III-C; pimcomp-nn: synchronous SEND/RECV",
                                          "every send has a matching recv and both block"),
        },
        "core": {
            "crossbars": p(xbars, "count", 1, 1 << 20, src_xbars, "logical crossbars per core (the PIMFU)"),
            "localMemoryBytes": p(65536, "bytes", 1, 1 << 40, "dac23: Table I (64 kB)",
                                  "local scratchpad per core (PIMCOMP-NN's LL allocator ignores it: 128 M "
                                  "elements)"),
            "localMemoryGBps": p(25.6, "GB/s", 0, 100000, "pimcomp-nn: EvaluationConfig.h",
                                 "local memory (LMV, LLDI)"),
            "vectorBytesPerCycle": p(64, "bytes", 1, 1 << 20, "pimcomp-nn: EvaluationConfig.h",
                                     "vector unit width per vector cycle"),
            "vectorCycleNs": p(10, "ns", 0, 1e6, "pimcomp-nn: EvaluationConfig.h", "one vector cycle"),
            "outOfOrder": p(1, "bool", 0, 1, "tcad: III-C; pimcomp-nn overlaps preparation and MVMs",
                            "memory access overlaps computation"),
        },
        "crossbar": {
            "rows": p(rows, "count", 1, 1 << 20, src_xbars, "logical array rows (matrix height per array)"),
            "columns": p(cols, "count", 1, 1 << 20, src_xbars, "logical array columns"),
            "elementBits": p(16, "bits", 1, 64, "pimcomp-nn: config.json matrix_config.adc_count; tcad: Table V",
                             "weight and data precision (16-bit fixed point)"),
            "cellBits": p(2, "bits", 1, 16, "tcad: Table V; pimcomp-nn: config.json cell_precision",
                          "physical cell precision (logical arrays hide it; energy scales with it)"),
        },
    }


TIMING = {
    "timing": {
        "frequencyGHz": p(1, "GHz", 0, 100, "pimcomp-nn: EvaluationConfig.h Frequency", "1 cycle = 1 ns"),
        "mvmReadNs": p(200, "ns", 0, 1e6, "pimcomp-nn: EvaluationConfig.h", "MVM: read the input"),
        "mvmPerBitNs": p(200, "ns", 0, 1e6, "pimcomp-nn: EvaluationConfig.h", "MVM: per input bit"),
        "mvmAdcNs": p(200, "ns", 0, 1e6, "pimcomp-nn: EvaluationConfig.h", "MVM: ADC"),
        "mvmShiftAddNs": p(200, "ns", 0, 1e6, "pimcomp-nn: EvaluationConfig.h", "MVM: shift and add"),
        "mvmWriteNs": p(200, "ns", 0, 1e6, "pimcomp-nn: EvaluationConfig.h", "MVM: write the output"),
        "mvmIntervalNs": p(200, "ns", 0, 1e6, "pimcomp-nn: EvaluationConfig.h MVMUL_start_interval",
                           "issue interval between MVMs of one core"),
        "pimcompNnMvmNs": p(800, "ns", 0, 1e6, "spec: Profiler timing rules (the MVM latency is built while "
                            "the precision is still 0: 200 + 0 x 200 + 200 + 200 + 200)",
                            "MVM latency in the pimcomp-nn timing mode"),
        "pimcompNnCoresPerChip": p(144, "count", 1, 1 << 20, "pimcomp-nn: configure.h (12 x 12)",
                                   "cores per chip in the pimcomp-nn timing mode, whatever the layout"),
    }
}

ENERGY = {
    "energy": {
        "pimmuMw": p(1221.76, "mW", 0, 1e9, "dac23: Table I", "PIMMU of pimmuCrossbars arrays"),
        "pimmuCrossbars": p(64, "count", 1, 1 << 20, "dac23: Table I", "arrays of the PIMMU the power is for"),
        "pimmuRows": p(128, "count", 1, 1 << 20, "dac23: Table I (PUMA's 128 x 128 arrays)",
                       "rows of those arrays"),
        "pimmuColumns": p(128, "count", 1, 1 << 20, "dac23: Table I", "columns of those arrays"),
        "vfuMw": p(22.8, "mW", 0, 1e9, "dac23: Table I (12 VFUs per core)", "a core's vector units"),
        "localMemoryMw": p(18.0, "mW", 0, 1e9, "dac23: Table I (64 kB)", "a core's local memory"),
        "controlMw": p(8.0, "mW", 0, 1e9, "dac23: Table I", "a core's control unit"),
        "routerMw": p(43.13, "mW", 0, 1e9, "dac23: Table I (flit 64)", "one router"),
        "coresPerRouter": p(4, "count", 1, 1 << 20, "derived: dac23 Table I, 36 cores and 9 routers per chip",
                            "cores sharing a router"),
        "globalMemoryMw": p(257.72, "mW", 0, 1e9, "dac23: Table I (4 MB)", "a chip's global memory"),
        "hyperTransportMw": p(10400, "mW", 0, 1e9, "dac23: Table I (6.40 GB/s link)", "a chip's off-chip link"),
        "leakageFraction": p(0.1, "fraction", 0, 1, "assumed: dac23 Table I gives power only, no dynamic/static "
                             "split; tcad attributes most savings to leakage", "share of a component's power "
                             "it draws while idle"),
    }
}

ARCHS = [
    # name, description, chips, X, Y, crossbars per core, rows, cols, source of layout, source of arrays
    ("crossbar-pimcomp", "PIMCOMP-NN's default: one chip of 12 x 12 cores, 64 logical 128 x 128 arrays each "
     "(9,216 arrays)", 1, 12, 12, 64, 128, 128, "pimcomp-nn: config.json network_config.layout",
     "pimcomp-nn: config.json matrix_config (xbar_size, xbar_array_count)"),
    ("crossbar-arch-a", "TCAD Arch-A (ISAAC): 168 cores, 12 logical 16-bit 128 x 128 arrays per core "
     "(96 physical 2-bit), 2,016 arrays", 1, 12, 14, 12, 128, 128, "tcad: Table V; spec: Configurations",
     "spec: Configurations (96 physical 2-bit arrays / 8 per 16-bit weight)"),
    ("crossbar-arch-a-phys", "TCAD Arch-A counted physically (no bit slicing, 8x capacity): 168 cores x 96 "
     "arrays", 1, 12, 14, 96, 128, 128, "tcad: Table V; spec: Configurations", "tcad: Table V (96 per core)"),
    ("crossbar-arch-b", "TCAD Arch-B (PUMA): 138 cores, 16 logical 128 x 128 arrays per core, 2,208 arrays",
     1, 6, 23, 16, 128, 128, "tcad: Table V; spec: Configurations",
     "spec: Configurations (128 physical 2-bit arrays / 8)"),
    ("crossbar-arch-c", "TCAD Arch-C (ISSCC'23 16.6): 16 chips x 4 cores, one logical 512 x 1024 array per "
     "core", 16, 8, 8, 1, 512, 1024, "tcad: Table V; spec: Configurations",
     "spec: Configurations (8 physical 2-bit arrays / 8)"),
    ("crossbar-arch-c8", "TCAD Arch-C column-sliced: 16 chips x 4 cores, 8 logical 512 x 128 arrays per core",
     16, 8, 8, 8, 512, 128, "tcad: Table V; spec: Configurations", "spec: Configurations (column-sliced)"),
]


def document(arch):
    name, desc, chips, x, y, xbars, rows, cols, src_layout, src_xbars = arch
    doc = {"name": name, "family": "crossbar", "description": desc, "sources": SOURCES}
    doc.update(layout(chips, x, y, xbars, rows, cols, src_layout, src_xbars))
    doc.update(TIMING)
    doc.update(ENERGY)
    return doc


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", default=os.path.join(here, "..", "datasets", "backends"))
    args = ap.parse_args()
    for arch in ARCHS:
        path = os.path.join(args.out, arch[0] + ".json")
        with open(path, "w", encoding="utf-8") as f:
            json.dump(document(arch), f, indent=2)
            f.write("\n")


if __name__ == "__main__":
    main()
