// SPDX-License-Identifier: Apache-2.0
// Analytic features of a draft. Tile sizes follow from the parts without enumerating cores: along a tensor
// axis of a partitioned dimension set a core holds ceil(extent * w / E) indices, where w = ceil(E / (g * c))
// is the per-core partition of the set's representative dimension of extent E. The estimates of rearrangement
// and compute cycles are deliberately simple; the model learns the rest from simulated labels.
#include "engine/target/dram_pim/features.h"

#include <algorithm>
#include <array>
#include <atomic>
#include <cmath>

namespace pim {
namespace {

constexpr int kMaxParts = FeatureExtractor::kMaxParts;

struct Names {
  std::vector<std::string> v;
  Names() {
    for (int i = 0; i < kMaxParts; ++i) {
      for (const char* f :
           {"groups", "cores", "per_core", "extent", "rep_class", "is_simd_part", "simd_aligned"}) {
        v.push_back("part" + std::to_string(i) + "_" + f);
      }
    }
    for (const char* f : {"groups_used",
                          "cores_used",
                          "cores_total",
                          "banks_used",
                          "padding_ratio",
                          "in_bytes_per_core",
                          "out_bytes_per_core",
                          "host_read_bytes",
                          "host_write_bytes",
                          "pim_write_bytes",
                          "pim_read_bytes",
                          "in_bursts_per_channel",
                          "out_bursts_per_channel",
                          "stream_bursts_per_bank",
                          "broadcast_bursts",
                          "output_bursts",
                          "rows_per_bank",
                          "row_switches",
                          "group_commands",
                          "bank_level_commands",
                          "est_input_cycles",
                          "est_compute_cycles",
                          "est_output_cycles",
                          "est_total_ns",
                          "staged",
                          "group_cmd_pass",
                          "b_total_groups",
                          "b_cores_per_group",
                          "b_banks_per_core",
                          "b_simd",
                          "b_tck_ns",
                          "b_trcd",
                          "b_trp",
                          "b_tccdl",
                          "b_burst_cycles",
                          "b_pch_per_group",
                          "b_onchip_bytes",
                          "b_fpu_shared",
                          "b_broadcast",
                          "b_accumulator"}) {
      v.push_back(f);
    }
  }
};

std::uint64_t nextInstance() {
  static std::atomic<std::uint64_t> count{0};
  return ++count;
}

double ceilDiv(double a, double b) { return std::ceil(a / std::max(1.0, b)); }

}  // namespace

const std::vector<std::string>& dramPimFeatureNames() {
  static const Names names;
  return names.v;
}

FeatureExtractor::FeatureExtractor(const Problem& p, const OptimizerOptions& o)
    : m_problem(p), m_options(o), m_instance(nextInstance()) {
  const Kernel& k = p.kernel();
  const auto& sets = p.space().sets().sets;
  for (std::size_t t = 0; t < k.tensors.size(); ++t) {
    m_extents.push_back(tensorExtents(k, static_cast<int>(t), p.shape()));
    m_setOf.emplace_back(m_extents.back().size(), -1);
    double full = 1;
    for (auto e : m_extents.back()) full *= static_cast<double>(e);
    m_fullElems.push_back(full);
    m_dtypeBytes.push_back(static_cast<double>(dtypeBytes(k.tensors[t].dtype)));
  }
  for (std::size_t s = 0; s < sets.size(); ++s) {
    for (const auto& td : sets[s].dims) m_setOf[td.tensor][td.axis] = static_cast<int>(s);
  }
  for (const StatementWork& w : statementKinds(k)) {
    Statement st;
    st.target = k.statements[w.statement].target.tensor;
    st.softmax = w.kind == StatementWork::Kind::Softmax;
    st.reduce = w.kind == StatementWork::Kind::Reduce;
    st.accumulate = w.kind == StatementWork::Kind::Mac || st.reduce;
    for (int t : {w.streamTensor, w.secondStream, w.broadcastTensor}) {
      if (t >= 0) st.operands.push_back(t);
    }
    st.operands.erase(std::unique(st.operands.begin(), st.operands.end()), st.operands.end());
    m_statements.push_back(std::move(st));
  }
  // Host bytes of the streamed tensors, summed in tensor order as extraction did per draft.
  for (std::size_t t = 0; t < k.tensors.size(); ++t) {
    m_streamed.push_back(!p.isResident(static_cast<int>(t)));
    const double moved = m_streamed.back() ? m_fullElems[t] * m_dtypeBytes[t] : 0;
    if (k.tensors[t].role == TensorRole::Input) m_hostRead += moved;
    if (k.tensors[t].role == TensorRole::Output) m_hostWrite += moved;
  }
  // Each partitioned axis under its dimension set; the tile takes every other axis whole.
  m_axesOfSet.resize(sets.size());
  for (std::size_t t = 0; t < k.tensors.size(); ++t) {
    m_wholeAxesTile.push_back(1);
    for (std::size_t a = 0; a < m_extents[t].size(); ++a) {
      const int s = m_setOf[t][a];
      const double extent = static_cast<double>(m_extents[t][a]);
      if (s >= 0 && s < kMaxParts) {
        m_axesOfSet[static_cast<std::size_t>(s)].push_back({t, extent});
      } else {
        m_wholeAxesTile.back() *= std::max(1.0, extent);
      }
    }
  }
  const Backend& b = p.backend();
  const double groups = b.totalGroups(), colBytes = b.dram.columnBytes;
  m_hostReadBurstsPerGroup = ceilDiv(m_hostRead / groups, colBytes);
  m_hostWriteBurstsPerGroup = ceilDiv(m_hostWrite / groups, colBytes);
  m_hostReadBursts = ceilDiv(m_hostRead, colBytes);
  const auto macab = b.pimTiming.find("pim.MACAB_to_MACAB");
  m_macSpacing =
      std::max<double>(b.timing.tCCDL, macab != b.pimTiming.end() ? macab->second : b.timing.tCCDL);
  m_hasAccumulator = b.hasUnit("accumulator");
}

const FeatureExtractor::PartTerms& FeatureExtractor::partTerms(int part, const PartChoice& c) const {
  // The last choice of each part seen on this thread: the pruner's walk changes the inner parts most often,
  // so most drafts reuse the outer parts' terms.
  struct Cached {
    std::uint64_t owner = 0;  // the extractor whose terms these are; 0: none (instances count from 1)
    PartChoice choice;
    PartTerms terms;
  };
  thread_local std::array<Cached, kMaxParts> cache;
  Cached& slot = cache[static_cast<std::size_t>(part)];
  if (slot.owner == m_instance && slot.choice == c) return slot.terms;
  slot.owner = 0;  // until the terms below are complete (an allocation may throw half way)
  const DraftSpace& space = m_problem.space();
  const auto& rep = space.representative(part, c);
  const double w = static_cast<double>(space.perCoreSize(part, c));
  const bool simdPart = part == space.sets().simdSet;
  PartTerms& t = slot.terms;
  const double ratio = w / static_cast<double>(rep.extent);
  t.padding = (w * c.groups * c.cores - static_cast<double>(rep.extent)) / static_cast<double>(rep.extent);
  t.features = {
      static_cast<float>(c.groups),
      static_cast<float>(c.cores),
      static_cast<float>(w),
      static_cast<float>(rep.extent),
      static_cast<float>(rep.equivalenceClass),
      simdPart ? 1.f : 0.f,
      simdPart && static_cast<long>(w) % std::max(1, m_problem.backend().core.simdLanes) == 0 ? 1.f : 0.f};
  // An axis's per-core share of its extent. Tile sizes are whole numbers far below 2^53, so their products
  // are exact in any order: a tile is the same double however its factors are grouped.
  t.tileFactor.assign(m_extents.size(), 1.0);
  for (const SetAxis& axis : m_axesOfSet[static_cast<std::size_t>(part)])
    t.tileFactor[axis.tensor] *= std::max(1.0, std::min(axis.extent, std::ceil(axis.extent * ratio)));
  slot.choice = c;
  slot.owner = m_instance;
  return t;
}

struct FeatureExtractor::DraftTerms {
  double groupsUsed = 1, coresUsed = 1, padding = 0;
  double inPerCore = 0, outPerCore = 0, pimWrite = 0, pimRead = 0, inBursts = 0, outBursts2 = 0;
  double stream = 0, bcast = 0, outBursts = 0, rowsPerBank = 0, rowSwitches = 0;
  double estIn = 0, estCompute = 0, estOut = 0;
  bool groupCmd = false;
};

FeatureExtractor::DraftTerms FeatureExtractor::draftTerms(
    const Draft& d, std::array<const PartTerms*, kMaxParts>& parts) const {
  const Problem& p = m_problem;
  const OptimizerOptions& o = m_options;
  const Kernel& k = p.kernel();
  const Backend& b = p.backend();
  DraftTerms r;

  // Per-part configuration, from the terms of each part's choice (the same for every draft that makes it).
  // Scratch buffers reused across calls: extraction runs for 10^5 drafts per exploration.
  thread_local std::vector<double> tile;
  thread_local std::vector<int> ops;
  tile.assign(m_wholeAxesTile.begin(), m_wholeAxesTile.end());
  const int partCount = p.space().partCount();
  for (int i = 0; i < kMaxParts; ++i) {
    parts[static_cast<std::size_t>(i)] = i < partCount ? &partTerms(i, d.parts[i]) : nullptr;
    if (i >= partCount) continue;
    const PartTerms& terms = *parts[static_cast<std::size_t>(i)];
    r.groupsUsed *= d.parts[i].groups;
    r.coresUsed *= d.parts[i].cores;
    r.padding += terms.padding;
    // Tile elements per core of every tensor: the product over its axes of each axis's factor.
    for (std::size_t t = 0; t < tile.size(); ++t) tile[t] *= terms.tileFactor[t];
  }

  auto bytes = [&](std::size_t t, double elems) { return elems * m_dtypeBytes[t]; };
  // Tile bytes per core of all inputs and outputs (the layout), and of the streamed ones alone (what a call
  // moves: resident tensors stay in the banks).
  double movedInPerCore = 0, movedOutPerCore = 0;
  for (std::size_t t = 0; t < k.tensors.size(); ++t) {
    const bool streamed = m_streamed[t];
    if (k.tensors[t].role == TensorRole::Input) {
      r.inPerCore += bytes(t, tile[t]);
      movedInPerCore += streamed ? bytes(t, tile[t]) : 0;
    } else if (k.tensors[t].role == TensorRole::Output) {
      r.outPerCore += bytes(t, tile[t]);
      movedOutPerCore += streamed ? bytes(t, tile[t]) : 0;
    }
  }

  // Work per core: the streamed operand of every statement, as its largest operand tile.
  const double colBytes = b.dram.columnBytes, cols = b.dram.columns;
  for (const Statement& st : m_statements) {
    ops.assign(st.operands.begin(), st.operands.end());
    std::sort(ops.begin(), ops.end(), [&](int x, int y) { return tile[x] > tile[y]; });
    if (st.reduce && !ops.empty()) {
      // Segmented rows (reductionRows): each output's row starts on a column of its own.
      const double rows = std::ceil(tile[st.target] / b.core.banksPerCore);
      r.stream +=
          rows * ceilDiv(bytes(ops[0], std::ceil(tile[ops[0]] / std::max(1.0, tile[st.target]))), colBytes);
    } else if (!ops.empty()) {
      r.stream += ceilDiv(bytes(ops[0], tile[ops[0]]) / b.core.banksPerCore, colBytes);
    }
    if (ops.size() >= 2 && st.accumulate) r.bcast += ceilDiv(bytes(ops[1], tile[ops[1]]), colBytes);
    r.outBursts += ceilDiv(bytes(st.target, tile[st.target]), colBytes);
  }
  const double G = b.totalGroups(), pch = b.group.pseudoChannelsPerGroup;
  const double burst = std::max(1, b.timing.BL / 2);
  const double liveCores = r.groupsUsed * r.coresUsed;
  r.pimWrite = movedInPerCore * liveCores;
  r.pimRead = movedOutPerCore * liveCores;
  r.inBursts = m_hostReadBurstsPerGroup + ceilDiv(r.coresUsed * movedInPerCore, colBytes);
  r.outBursts2 = ceilDiv(r.coresUsed * movedOutPerCore, colBytes) + m_hostWriteBurstsPerGroup;
  r.rowsPerBank = ceilDiv(std::max(r.inPerCore, 1.0) / b.core.banksPerCore, colBytes * cols);
  r.rowSwitches = ceilDiv(r.stream, cols);
  r.groupCmd = o.groupCommands && b.group.broadcast;
  const double halves = b.core.fpuSharedBy;
  r.estIn = o.stagedRearrangement ? r.inBursts * burst / pch
                                  : (m_hostReadBursts / G + r.pimWrite / colBytes) * burst;
  r.estOut = o.stagedRearrangement ? r.outBursts2 * burst / pch
                                   : (r.pimRead / colBytes + m_hostWrite / colBytes / G) * burst;
  r.estCompute = (r.groupCmd ? r.stream * m_macSpacing * halves : r.stream * r.coresUsed * b.timing.tCCDS) +
                 r.rowSwitches * (b.timing.tRP + b.timing.tRCDRD) + (r.bcast + r.outBursts) * b.timing.tCCDL;
  return r;
}

CandidateEstimate FeatureExtractor::estimate(const Draft& d) const {
  // The values of est_total_ns and est_compute_cycles, without writing the other features.
  std::array<const PartTerms*, kMaxParts> parts{};
  const DraftTerms r = draftTerms(d, parts);
  return {static_cast<float>((r.estIn + r.estCompute + r.estOut) * m_problem.backend().dram.tCKns),
          static_cast<float>(r.estCompute)};
}

void FeatureExtractor::features(const Draft& d, std::vector<float>& f) const {
  const Backend& b = m_problem.backend();
  std::array<const PartTerms*, kMaxParts> parts{};
  const DraftTerms r = draftTerms(d, parts);
  for (const PartTerms* terms : parts) {
    if (terms) {
      f.insert(f.end(), terms->features.begin(), terms->features.end());
    } else {
      f.insert(f.end(), 7, 0.f);
    }
  }
  const double G = b.totalGroups(), pch = b.group.pseudoChannelsPerGroup;
  const double burst = std::max(1, b.timing.BL / 2);
  const double liveCores = r.groupsUsed * r.coresUsed;
  f.insert(f.end(), {static_cast<float>(r.groupsUsed),
                     static_cast<float>(r.coresUsed),
                     static_cast<float>(b.coresPerGroup()),
                     static_cast<float>(liveCores * b.core.banksPerCore),
                     static_cast<float>(r.padding),
                     static_cast<float>(r.inPerCore),
                     static_cast<float>(r.outPerCore),
                     static_cast<float>(m_hostRead),
                     static_cast<float>(m_hostWrite),
                     static_cast<float>(r.pimWrite),
                     static_cast<float>(r.pimRead),
                     static_cast<float>(r.inBursts),
                     static_cast<float>(r.outBursts2),
                     static_cast<float>(r.stream),
                     static_cast<float>(r.bcast),
                     static_cast<float>(r.outBursts),
                     static_cast<float>(r.rowsPerBank),
                     static_cast<float>(r.rowSwitches),
                     static_cast<float>(r.groupCmd ? r.stream + r.bcast + r.outBursts : 0),
                     static_cast<float>(r.groupCmd ? 0 : (r.stream + r.outBursts) * r.coresUsed),
                     static_cast<float>(r.estIn),
                     static_cast<float>(r.estCompute),
                     static_cast<float>(r.estOut),
                     static_cast<float>((r.estIn + r.estCompute + r.estOut) * b.dram.tCKns),
                     m_options.stagedRearrangement ? 1.f : 0.f,
                     r.groupCmd ? 1.f : 0.f,
                     static_cast<float>(G),
                     static_cast<float>(b.coresPerGroup()),
                     static_cast<float>(b.core.banksPerCore),
                     static_cast<float>(b.core.simdLanes),
                     static_cast<float>(b.dram.tCKns),
                     static_cast<float>(b.timing.tRCDRD),
                     static_cast<float>(b.timing.tRP),
                     static_cast<float>(b.timing.tCCDL),
                     static_cast<float>(burst),
                     static_cast<float>(pch),
                     static_cast<float>(b.system.hostOnChipBytes),
                     static_cast<float>(b.core.fpuSharedBy),
                     b.group.broadcast ? 1.f : 0.f,
                     m_hasAccumulator ? 1.f : 0.f});
}

}  // namespace pim
