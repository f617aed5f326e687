// SPDX-License-Identifier: Apache-2.0
#include "engine/llm/llm_export.h"

#include <cstdio>

#include "engine/common/output_file.h"

namespace pim::llm {

namespace {
std::string num(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.6g", v);
  return buf;
}

/// A field quoted when it holds a comma, a quote or a newline (RFC 4180).
std::string field(const std::string& s) {
  if (s.find_first_of(",\"\n") == std::string::npos) return s;
  std::string q = "\"";
  for (char c : s) q += c == '"' ? std::string("\"\"") : std::string(1, c);
  return q + "\"";
}
}  // namespace

std::string tokenSeriesCsv(const InferenceResult& r) {
  std::string out = "system,step,context,ms,compile_ms,relayout_ms";
  for (int p = 0; p < kPhaseCount; ++p) out += std::string(",") + phaseName(static_cast<Phase>(p)) + "_ms";
  out += "\n";
  for (const SystemResult& s : r.systems) {
    for (const TokenStep& t : s.steps) {
      out += field(s.system) + "," + std::to_string(t.step) + "," + std::to_string(t.context) + "," +
             num(t.ms) + "," + num(t.compileMs) + "," + num(t.relayoutMs);
      for (double v : t.phaseMs) out += "," + num(v);
      out += "\n";
    }
  }
  return out;
}

std::string decisionsCsv(const InferenceResult& r) {
  std::string out =
      "system,op,phase,shape,where,schedule,gpu_us,pim_us,split_us,margin,first_step,last_step\n";
  for (const SystemResult& s : r.systems)
    for (const KernelDecision& d : s.decisions)
      out += field(s.system) + "," + d.op + "," + phaseName(d.phase) + "," + field(d.shape) + "," +
             placementName(d.where) + "," + field(d.schedule) + "," + num(d.gpuUs) + "," + num(d.pimUs) +
             "," + num(d.splitUs) + "," + num(d.margin) + "," + std::to_string(d.firstStep) + "," +
             std::to_string(d.lastStep) + "\n";
  return out;
}

std::string servedCsv(const std::vector<ServeResult>& runs) {
  std::string out = "mode,system,request,lin,lout,latency_ms,compile_ms,table_size\n";
  for (const ServeResult& run : runs)
    for (const ServedRequest& q : run.requests)
      out += std::string(lookupModeName(run.mode)) + "," + field(run.system) + "," +
             std::to_string(q.index + 1) + "," + std::to_string(q.lin) + "," + std::to_string(q.lout) + "," +
             num(q.latencyMs) + "," + num(q.compileMs) + "," + std::to_string(q.tableSize) + "\n";
  return out;
}

void writeCsv(const std::string& path, const std::string& csv) { writeFileAtomically(path, csv); }

}  // namespace pim::llm
