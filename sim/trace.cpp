// SPDX-License-Identifier: Apache-2.0
// Chrome-trace export with plain string formatting (the simulator carries no JSON dependency).
#include <cstdio>
#include <string>

#include "sim/result.h"

namespace pim::sim {

std::string Result::chromeTraceJson() const {
  std::string out = "{\"traceEvents\":[";
  char buf[256];
  bool first = true;
  for (const TraceEvent& e : trace) {
    std::snprintf(buf, sizeof buf,
                  "%s{\"name\":\"%s\",\"ph\":\"X\",\"ts\":%.3f,\"dur\":%.3f,\"pid\":%d,\"tid\":%d}",
                  first ? "" : ",", opName(e.op), static_cast<double>(e.start) * tCK_ns,
                  static_cast<double>(e.duration) * tCK_ns, e.channel, e.bank);
    out += buf;
    first = false;
  }
  out += "],\"displayTimeUnit\":\"ns\"}";
  return out;
}

}  // namespace pim::sim
