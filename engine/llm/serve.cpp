// SPDX-License-Identifier: Apache-2.0
#include "engine/llm/serve.h"

#include <algorithm>
#include <chrono>
#include <map>
#include <random>

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

/// Every PIM kernel the stream's requests will ask for, compiled now (the offline table): each distinct
/// prompt length served once, to its longest output, untimed. A request with the same prompt and fewer output
/// tokens meets a subset of those shapes.
void compileEveryShape(LlmSimulator& sim, SystemChoice system, const StreamSpec& spec,
                       const std::vector<StreamRequest>& requests, const std::atomic<bool>* cancel) {
  std::map<std::int64_t, std::int64_t> longest;
  for (const StreamRequest& r : requests) longest[r.lin] = std::max(longest[r.lin], r.lout);
  for (const auto& [lin, lout] : longest) {
    if (cancel && cancel->load()) return;
    sim.request(system, spec.batch, lin, lout, {}, cancel);
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
    compileEveryShape(sim, system, spec, requests, cancel);
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
