// SPDX-License-Identifier: Apache-2.0
#include "engine/workflow/network_compare.h"

#include <algorithm>
#include <cstdio>
#include <set>
#include <variant>

#include "engine/common/error.h"
#include "engine/core/problem.h"
#include "engine/kernel/library.h"
#include "engine/target/crossbar/network_compile.h"
#include "engine/target/registry.h"

namespace pim {
namespace {

namespace cb = crossbar;

constexpr std::size_t kMaxBackends = 6;

/// The kernel and dims a CONV/FC layer runs as on a kernel backend, or why none fits.
struct LayerKernel {
  std::string kernel, dims;
};

std::variant<LayerKernel, std::string> layerKernel(const ConvLayerShape& l, bool fc, const ITarget& t) {
  const auto n = [](std::int64_t v) { return std::to_string(v); };
  if (fc)
    return LayerKernel{"gemv", "b=1,out=" + n(l.K) + ",in=" + n(l.C)};  // batch 1: a matrix-vector product
  if (!t.mapsConvLayers())
    return std::string(
               "a CONV layer is mapped only on a conv-mapping hierarchy (family pim-hierarchy, e.g. "
               "pimopt-hbm-pim); family ") +
           std::string(t.family()) + " runs the FC layers";
  if (l.group != 1) return "grouped convolution (group " + n(l.group) + "): no conv kernel takes it";
  if (l.dil_w != 1 || l.dil_h != 1) return std::string("dilated convolution: no conv kernel takes it");
  if (l.stride_w != l.stride_h || (l.stride_w != 1 && l.stride_w != 2))
    return "stride " + n(l.stride_h) + " x " + n(l.stride_w) + ": the conv kernels take stride 1 or 2";
  return LayerKernel{
      l.stride_w == 1 ? "conv2d" : "conv2d_s2",
      "n=1,k=" + n(l.K) + ",c=" + n(l.C) + ",p=" + n(l.P) + ",q=" + n(l.Q) + ",r=" + n(l.R) + ",s=" + n(l.S)};
}

/// Every CONV/FC layer of `net` with whether it is an FC, in node order.
std::vector<std::pair<ConvLayerShape, bool>> weightLayers(const Network& net) {
  const std::vector<ConvLayerShape> shapes = convLayers(net);
  std::vector<std::pair<ConvLayerShape, bool>> out;
  std::size_t i = 0;
  for (const NetworkNode& node : net.nodes)
    if (node.op == NetworkOp::Conv || node.op == NetworkOp::Fc)
      out.emplace_back(shapes.at(i++), node.op == NetworkOp::Fc);
  return out;
}

NetworkBackendTime compiled(const Backend& b, const Network& net, const NetworkCompareOptions& o) {
  NetworkBackendTime r;
  r.backend = b.name;
  r.family = b.family;
  NetworkCompileRequest req;
  req.compile = o.crossbar;
  req.timing = o.search.eval.sim.crossbarTiming;
  req.cancel = o.cancel;
  if (o.report) req.report = [&](const std::string& line) { o.report(b.name + ": " + line); };
  r.how = "compiled (" + std::string(modeName(req.compile.mode)) + ", " + req.compile.replication + ", " +
          std::string(xbar::timingModelName(req.timing)) + " timing)";
  try {
    const NetworkCompileResult c = compileNetwork(b, net, req);
    const double ns = static_cast<double>(c.profile.totalNs);
    for (const CompiledLayer& l : c.layers) {
      NetworkLayerTime t{l.node, l.name, l.op, "", "", std::nullopt, std::nullopt, ""};
      if (l.time.firstStartNs >= 0) t.ns = static_cast<double>(l.time.lastFinishNs - l.time.firstStartNs);
      r.layers.push_back(std::move(t));
    }
    r.layersRun = static_cast<int>(r.layers.size());
    r.layersNs = ns;
    r.totalNs = ns;
    r.energyNj = c.energyNj;
  } catch (const InputError& e) {
    r.reason = e.what();
  }
  return r;
}

NetworkBackendTime layerByLayer(const Backend& b, const Network& net, const NetworkCompareOptions& o) {
  NetworkBackendTime r;
  r.backend = b.name;
  r.family = b.family;
  r.how = "layer by layer, batch 1";
  const ITarget& target = targetOf(b);
  const auto layers = weightLayers(net);
  double energyPj = 0;
  for (std::size_t i = 0; i < layers.size(); ++i) {
    if (o.cancel && o.cancel->load()) break;
    const auto& [shape, fc] = layers[i];
    NetworkLayerTime t{0, shape.name, fc ? "FC" : "CONV", "", "", std::nullopt, std::nullopt, ""};
    for (const NetworkNode& node : net.nodes)
      if (node.name == shape.name) t.node = node.index;
    if (o.report)
      o.report(b.name + ": layer " + std::to_string(i + 1) + " of " + std::to_string(layers.size()) + " (" +
               shape.name + ")");
    const auto kernel = layerKernel(shape, fc, target);
    if (const auto* why = std::get_if<std::string>(&kernel)) {
      t.reason = *why;
    } else {
      const auto& k = std::get<LayerKernel>(kernel);
      t.kernel = k.kernel;
      t.dims = k.dims;
      try {
        const Kernel run = compareKernel(b, KernelLibrary::builtin().get(k.kernel));
        const Problem p(b, run, parseShape(run, k.dims), residencyOn(b, run, Residency::declared(run)));
        BestDraftOptions search = o.search;
        search.cancel = o.cancel;
        const BestDraft best = findBestDraft(p, search);
        if (best.record && best.record->simulated) {
          t.ns = best.record->simulated->timeNs;
          t.energyPj = best.record->simulated->energyPj;
        } else {
          t.reason = best.reason.empty() ? "no draft could be simulated" : best.reason;
        }
      } catch (const InputError& e) {
        t.reason = e.what();
      }
    }
    if (t.ns) {
      ++r.layersRun;
      r.layersNs += *t.ns;
      energyPj += t.energyPj.value_or(0);
    }
    r.layers.push_back(std::move(t));
  }
  if (r.layersRun == static_cast<int>(layers.size()) && !layers.empty()) {
    r.totalNs = r.layersNs;
    r.energyNj = energyPj / 1000.0;
  } else {
    r.reason = std::to_string(layers.size() - static_cast<std::size_t>(r.layersRun)) + " of " +
               std::to_string(layers.size()) + " layers cannot run here (see the layers)";
  }
  return r;
}

std::string verdictOf(const NetworkComparison& c) {
  const NetworkBackendTime* best = nullptr;
  const NetworkBackendTime* second = nullptr;
  for (const NetworkBackendTime& r : c.results) {
    if (!r.totalNs) continue;
    if (!best || *r.totalNs < *best->totalNs) {
      second = best;
      best = &r;
    } else if (!second || *r.totalNs < *second->totalNs) {
      second = &r;
    }
  }
  if (!best) return "no backend runs every layer of " + c.network;
  char text[256];
  if (!second) {
    std::snprintf(text, sizeof text, "%s runs all of %s (%.1f us); no other backend runs every layer",
                  best->backend.c_str(), c.network.c_str(), *best->totalNs / 1000.0);
  } else {
    std::snprintf(text, sizeof text, "%s is fastest on %s: %.1f us, %.2fx faster than %s (%.1f us)",
                  best->backend.c_str(), c.network.c_str(), *best->totalNs / 1000.0,
                  *second->totalNs / *best->totalNs, second->backend.c_str(), *second->totalNs / 1000.0);
  }
  return text;
}

}  // namespace

NetworkComparison compareNetwork(const Network& net, const NetworkCompareOptions& o) {
  if (o.backends.empty() || o.backends.size() > kMaxBackends)
    throw InputError("--backends: give 1 to " + std::to_string(kMaxBackends) +
                     " backends to run the network on (" + std::to_string(o.backends.size()) + " given)");
  if (std::set<std::string>(o.backends.begin(), o.backends.end()).size() != o.backends.size())
    throw InputError("--backends: a backend is named twice");
  NetworkComparison c;
  c.network = cb::networkLabel(net);
  for (const std::string& name : o.backends) {
    const Backend* b = nullptr;
    for (const Backend& e : o.edited)
      if (e.name == name) b = &e;
    if (!b) b = &builtinBackends().get(name);  // throws naming an unknown backend
    c.results.push_back(compilesNetworks(*b) ? compiled(*b, net, o) : layerByLayer(*b, net, o));
  }
  c.verdict = verdictOf(c);
  return c;
}

}  // namespace pim
