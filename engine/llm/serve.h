// SPDX-License-Identifier: Apache-2.0
// A stream of synthetic requests (DCC section 5.7, Fig. 15): batch, input and output tokens drawn from ranges
// with a seed, served one after another. With an `offline` lookup table every shape the stream will meet is
// compiled before the first request; `online` starts from the table as it is and compiles each unseen shape
// when it first appears, its compilation time counted in that request's latency.
#pragma once
#include <atomic>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "engine/llm/inference.h"

namespace pim::llm {

enum class LookupMode { Offline, Online };
const char* lookupModeName(LookupMode m);  // "offline", "online"

struct StreamSpec {
  int requests = 100;
  std::uint64_t seed = 1;
  std::int64_t batch = 64;
  std::int64_t linMin = 128, linMax = 2048;
  std::int64_t loutMin = 128, loutMax = 2048;
};

struct StreamRequest {
  std::int64_t lin = 0, lout = 0;
};

/// The stream's requests: lin and lout uniform in their ranges (std::mt19937_64 from the seed, drawn lin then
/// lout per request), the same on every platform. Throws InputError for an empty range or no requests.
std::vector<StreamRequest> streamRequests(const StreamSpec& s);

struct ServedRequest {
  int index = 0;  // 0-based
  std::int64_t lin = 0, lout = 0;
  double latencyMs = 0;       // prefill + decode + compilation
  double compileMs = 0;       // online compilation inside latencyMs
  std::size_t tableSize = 0;  // shapes in the lookup table after it
};

struct ServeResult {
  LookupMode mode = LookupMode::Online;
  std::string system;
  std::vector<ServedRequest> requests;
  /// Requests until the last one that compiled anything (the warm-up length); 0 when none did.
  int warmup = 0;
  std::size_t tableSize = 0;  // shapes in the table at the end
  double prefillSeconds = 0;  // offline: compiling every shape before the stream (wall time)
  std::string reason;         // why the stream could not be served, when it could not
};

/// Serves `spec`'s stream on `system` with `sim`'s table. `onRequest` is called after every request.
ServeResult serveStream(LlmSimulator& sim, SystemChoice system, const StreamSpec& spec, LookupMode mode,
                        const std::function<void(const ServedRequest&)>& onRequest = {},
                        const std::atomic<bool>* cancel = nullptr);

}  // namespace pim::llm
