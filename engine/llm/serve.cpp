// SPDX-License-Identifier: Apache-2.0
#include "engine/llm/serve.h"

#include <chrono>
#include <random>
#include <set>

#include "engine/common/error.h"

namespace pim::llm {

const char* lookupModeName(LookupMode m) { return m == LookupMode::Offline ? "offline" : "online"; }

namespace {
/// Uniform in [lo, hi] from 64 raw bits (std::uniform_int_distribution differs between libraries).
std::int64_t draw(std::mt19937_64& rng, std::int64_t lo, std::int64_t hi) {
  const auto span = static_cast<std::uint64_t>(hi - lo) + 1;
  return lo + static_cast<std::int64_t>(rng() % span);
}

void checkRange(const char* what, std::int64_t lo, std::int64_t hi, std::int64_t least) {
  if (lo < least || hi < lo || hi > kMaxTokens)
    throw InputError(std::string(what) + ": " + std::to_string(lo) + ":" + std::to_string(hi) +
                     " is not a range within " + std::to_string(least) + ".." + std::to_string(kMaxTokens));
}

/// Every PIM kernel the stream's requests will ask for, compiled now (the offline table): attention at every
/// context a decode step meets, the GEMVs (whose shapes do not depend on the context) once.
void compileEveryShape(LlmSimulator& sim, const StreamSpec& spec, const std::vector<StreamRequest>& requests,
                       const std::atomic<bool>* cancel) {
  std::set<std::int64_t> contexts;
  for (const StreamRequest& r : requests)
    for (std::int64_t step = 1; step < r.lout; ++step) contexts.insert(r.lin + step);
  bool first = true;
  for (std::int64_t context : contexts) {
    if (cancel && cancel->load()) return;
    for (const LayerOp& op :
         decodeLayerOps(sim.model(), {spec.batch, context, sim.setup().gpus, sim.bytes()}))
      if (op.pim && (first || op.name == "score")) sim.table().run(*op.pim, Tiling::Dcc);
    first = false;
  }
}
}  // namespace

std::vector<StreamRequest> streamRequests(const StreamSpec& s) {
  if (s.requests < 1) throw InputError("--requests: give at least one request");
  checkRange("--lin", s.linMin, s.linMax, 1);
  checkRange("--lout", s.loutMin, s.loutMax, 2);
  std::mt19937_64 rng(s.seed);
  std::vector<StreamRequest> out;
  for (int i = 0; i < s.requests; ++i) {
    StreamRequest r;
    r.lin = draw(rng, s.linMin, s.linMax);
    r.lout = draw(rng, s.loutMin, s.loutMax);
    out.push_back(r);
  }
  return out;
}

ServeResult serveStream(LlmSimulator& sim, SystemChoice system, const StreamSpec& spec, LookupMode mode,
                        const std::function<void(const ServedRequest&)>& onRequest,
                        const std::atomic<bool>* cancel) {
  const std::vector<StreamRequest> requests = streamRequests(spec);
  ServeResult out;
  out.mode = mode;
  out.system = system.name();
  if (mode == LookupMode::Offline && system.usesPim()) {
    const auto t0 = std::chrono::steady_clock::now();
    compileEveryShape(sim, spec, requests, cancel);
    out.prefillSeconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  }
  for (std::size_t i = 0; i < requests.size(); ++i) {
    if (cancel && cancel->load()) break;
    const SystemResult r = sim.request(system, spec.batch, requests[i].lin, requests[i].lout, {}, cancel);
    if (!r.available) {
      out.reason = "request " + std::to_string(i + 1) + " (lin " + std::to_string(requests[i].lin) +
                   ", lout " + std::to_string(requests[i].lout) + "): " + r.reason;
      break;
    }
    ServedRequest s{static_cast<int>(i), requests[i].lin, requests[i].lout,
                    r.totalMs,           r.compileMs,     sim.table().size()};
    if (s.compileMs > 0) out.warmup = static_cast<int>(i) + 1;
    out.requests.push_back(s);
    if (onRequest) onRequest(s);
  }
  out.tableSize = sim.table().size();
  return out;
}

}  // namespace pim::llm
