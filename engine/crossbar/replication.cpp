// SPDX-License-Identifier: Apache-2.0
// Weight replication methods (../shared/specs/crossbar.md, "Weight replication"; pimcomp-nn
// WeightReplication.cpp). PIMCOMP-NN's float constants (margins 0.5f and 1.2f) are kept as floats so the
// rounding matches.
#include "engine/crossbar/replication.h"

#include <cctype>

#include <algorithm>
#include <cmath>
#include <map>
#include <mutex>
#include <queue>
#include <set>

#include "engine/common/error.h"

namespace pim::crossbar {
namespace {

struct Registry {
  std::mutex mutex;
  std::map<std::string, ReplicationMethod, std::less<>> methods{
      {"balance", replicateBalance},
      {"w0h0", replicateW0H0},
      {"uniform", replicateUniform},
  };
};

Registry& registry() {
  static Registry r;
  return r;
}

std::int64_t fcCrossbars(const std::vector<LayerPartition>& layers) {
  std::int64_t n = 0;
  for (const LayerPartition& l : layers)
    if (l.op == NetworkOp::Fc) n += l.crossbarsPerReplica;
  return n;
}

// Replicas for a method that only decides CONV layers: FC layers always keep one.
std::vector<std::int64_t> convOnly(const std::vector<LayerPartition>& layers,
                                   const std::function<std::int64_t(std::size_t)>& conv) {
  std::vector<std::int64_t> r(layers.size(), 1);
  for (std::size_t i = 0; i < layers.size(); ++i)
    if (layers[i].op == NetworkOp::Conv) r[i] = conv(i);
  return r;
}

// PIMCOMP-NN's replication step t = floor((total - FC) / per_step / 1.2f).
std::int64_t replicationSteps(const ReplicationRequest& r, std::int64_t perStep, std::string_view method) {
  constexpr float kMargin = 1.2f;
  const double room = static_cast<double>(r.accelerator.crossbars() - fcCrossbars(r.layers));
  const auto t = static_cast<std::int64_t>(std::floor(room / static_cast<double>(perStep) / kMargin));
  if (t <= 0) {
    throw InputError(std::string(r.network) + ": replication " + std::string(method) + ": " +
                     withThousands(perStep) +
                     " crossbars per replication step with a 1.2 margin leave no step in " +
                     withThousands(r.accelerator.crossbars() - fcCrossbars(r.layers)) + " crossbars of " +
                     r.accelerator.name + " beside the FC layers");
  }
  return t;
}

}  // namespace

void registerReplicationMethod(std::string name, ReplicationMethod method) {
  std::lock_guard lock(registry().mutex);
  registry().methods[std::move(name)] = std::move(method);
}

ReplicationMethod replicationMethod(std::string_view name) {
  std::lock_guard lock(registry().mutex);
  // Names are lower case; the paper spells one "W0H0".
  std::string lower(name);
  for (char& ch : lower) ch = static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
  const auto it = registry().methods.find(lower);
  if (it != registry().methods.end()) return it->second;
  std::string known;
  for (const auto& [n, m] : registry().methods) known += (known.empty() ? "" : ", ") + n;
  throw InputError("replication: unknown method '" + std::string(name) + "' (known: " + known + ")");
}

std::vector<std::string> replicationMethodNames() {
  std::lock_guard lock(registry().mutex);
  std::vector<std::string> names;
  for (const auto& [n, m] : registry().methods) names.push_back(n);
  return names;
}

std::int64_t checkFitsAtOneReplica(const ReplicationRequest& r) {
  std::int64_t need = 0;
  for (const LayerPartition& l : r.layers) need += l.crossbarsPerReplica;
  if (need > r.accelerator.crossbars()) {
    throw InputError(std::string(r.network) + " needs " + withThousands(need) + " crossbars of " +
                     std::to_string(r.accelerator.rows) + " x " + std::to_string(r.accelerator.cols) + "; " +
                     r.accelerator.name + " has " + withThousands(r.accelerator.crossbars()));
  }
  return need;
}

std::vector<std::int64_t> replicate(std::string_view name, const ReplicationRequest& r) {
  const ReplicationMethod method = replicationMethod(name);
  checkFitsAtOneReplica(r);
  std::vector<std::int64_t> reps = method(r);
  if (reps.size() != r.layers.size())
    throw InputError("replication " + std::string(name) + ": returned " + std::to_string(reps.size()) +
                     " replica counts for " + std::to_string(r.layers.size()) + " layers");
  for (std::size_t i = 0; i < reps.size(); ++i) {
    if (reps[i] < 1)
      throw InputError("replication " + std::string(name) + ": layer '" + r.layers[i].name + "' gets " +
                       std::to_string(reps[i]) + " replicas");
    reps[i] = std::min(reps[i], r.layers[i].windows) * r.layers[i].agp;
  }
  return reps;
}

// Every conv starts at one replica; a max-heap on windows per replica (libstdc++ std::priority_queue filled
// in node order, compared on the current windows only, exactly as PIMCOMP-NN's) hands one more replica to the
// slowest conv while more than its crossbars and more than half of the non-FC crossbars remain.
std::vector<std::int64_t> replicateBalance(const ReplicationRequest& r) {
  struct Entry {
    std::size_t layer;
    std::int64_t crossbars, windowsPerReplica;
    bool operator<(const Entry& o) const { return windowsPerReplica < o.windowsPerReplica; }
  };
  std::vector<std::int64_t> reps(r.layers.size(), 1);
  std::priority_queue<Entry> heap;
  for (std::size_t i = 0; i < r.layers.size(); ++i)
    if (r.layers[i].op == NetworkOp::Conv)
      heap.push({i, r.layers[i].crossbarsPerReplica, r.layers[i].windows});
  std::int64_t available = r.accelerator.crossbars() - fcCrossbars(r.layers);
  const auto margin = static_cast<std::int64_t>(static_cast<float>(available) * 0.5f);
  while (!heap.empty() && available > heap.top().crossbars && available > margin) {
    Entry e = heap.top();
    heap.pop();
    const std::int64_t n = ++reps[e.layer];
    // PIMCOMP-NN divides in float; for windows below 2^23 that equals the integer ceiling.
    e.windowsPerReplica = (r.layers[e.layer].windows + n - 1) / n;
    heap.push(e);
    available -= e.crossbars;
  }
  return reps;
}

// replicas_i = t * ceil(windows_i / b), b the second smallest distinct conv window count (the smallest when
// all convs share one; PIMCOMP-NN reads an uninitialised value there).
std::vector<std::int64_t> replicateW0H0(const ReplicationRequest& r) {
  std::set<std::int64_t> distinct;
  for (const LayerPartition& l : r.layers)
    if (l.op == NetworkOp::Conv) distinct.insert(l.windows);
  if (distinct.empty()) return std::vector<std::int64_t>(r.layers.size(), 1);
  const std::int64_t base = distinct.size() > 1 ? *std::next(distinct.begin()) : *distinct.begin();
  std::vector<std::int64_t> ratio(r.layers.size(), 0);
  std::int64_t perStep = 0;
  for (std::size_t i = 0; i < r.layers.size(); ++i) {
    if (r.layers[i].op != NetworkOp::Conv) continue;
    ratio[i] = (r.layers[i].windows + base - 1) / base;
    perStep += ratio[i] * r.layers[i].crossbarsPerReplica;
  }
  const std::int64_t t = replicationSteps(r, perStep, "w0h0");
  return convOnly(r.layers, [&](std::size_t i) { return t * ratio[i]; });
}

std::vector<std::int64_t> replicateUniform(const ReplicationRequest& r) {
  std::int64_t perStep = 0;
  for (const LayerPartition& l : r.layers)
    if (l.op == NetworkOp::Conv) perStep += l.crossbarsPerReplica;
  if (perStep == 0) return std::vector<std::int64_t>(r.layers.size(), 1);
  const std::int64_t t = replicationSteps(r, perStep, "uniform");
  return convOnly(r.layers, [&](std::size_t) { return t; });
}

}  // namespace pim::crossbar
