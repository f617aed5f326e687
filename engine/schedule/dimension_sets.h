// SPDX-License-Identifier: Apache-2.0
// Stage 1 of DCC's data-centric schedule generation (section 4.2): reference sets of mapping functions per
// tensor dimension, grouped into complex dimension sets by shared loop variables.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "engine/kernel/kernel.h"

namespace pim {

/// One tensor dimension (A_0) with its reference set ({b, b+1}).
struct TensorDim {
  int tensor = -1;
  int axis = -1;
  std::int64_t extent = 0;             // size of the dimension under the shape
  std::vector<AffineExpr> references;  // distinct index functions, in order of appearance
};

/// A representative mapping: one function of one tensor dimension of the set (A_0^{b+1}).
struct RepresentativeMapping {
  int tensor = -1;
  int axis = -1;
  AffineExpr fn;              // single-variable affine function of a loop variable
  int var = -1;               // that loop variable
  std::int64_t extent = 0;    // size of the tensor dimension it partitions
  int equivalenceClass = -1;  // DCC rule 1: same function and same extent => identical data partitions
};

struct DimensionSet {
  std::vector<TensorDim> dims;
  std::vector<int> vars;                          // loop variables joined in this set
  std::vector<RepresentativeMapping> candidates;  // every (dimension, function) pair usable as representative
  int classCount = 0;                             // number of rule-1 equivalence classes among candidates
  bool simd = false;                              // holds the contiguous dimension SIMD lanes run along
};

struct DimensionSets {
  std::vector<DimensionSet> sets;
  int simdSet = -1;  // index of the set SIMD alignment (rule 2) applies to, -1 if none
  std::vector<std::int64_t> loopLo, loopHi;  // concrete loop ranges [lo, hi) under the shape
};

/// Builds the dimension sets of `k` under `s`. Sets are ordered by their first tensor dimension in
/// declaration order (DCC's example yields (A0,C0), (A1,B0), (B1,C1)). The SIMD set holds the last
/// (contiguous) dimension of the largest tensor, which is the operand streamed from the banks.
DimensionSets buildDimensionSets(const Kernel& k, const Shape& s);

/// "A0^{b+1}" style label of a candidate.
std::string mappingLabel(const Kernel& k, const RepresentativeMapping& m);
/// "(A0={b,b+1}, C0={b})" style label of a set.
std::string dimensionSetLabel(const Kernel& k, const DimensionSet& ds);

}  // namespace pim
