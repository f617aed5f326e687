// SPDX-License-Identifier: Apache-2.0
// LLM results as CSV, for `llm --csv`, `serve --csv` and the window's Export: the per-token series, the
// decision table and a served stream. One writer each, so the files the CLI and the window write agree.
#pragma once
#include <string>

#include "engine/llm/serve.h"

namespace pim::llm {

/// system,step,context,ms,compile_ms,relayout_ms,<phase>_ms... : one row per system and decode step.
std::string tokenSeriesCsv(const InferenceResult& r);
/// system,op,phase,shape,where,schedule,gpu_us,pim_us,split_us,margin,first_step,last_step.
std::string decisionsCsv(const InferenceResult& r);
/// mode,system,request,lin,lout,latency_ms,compile_ms,table_size : one row per served request.
std::string servedCsv(const std::vector<ServeResult>& runs);

/// Writes `csv` to `path` atomically (writeFileAtomically); throws InputError naming the path.
void writeCsv(const std::string& path, const std::string& csv);

}  // namespace pim::llm
