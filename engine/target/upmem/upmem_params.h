// SPDX-License-Identifier: Apache-2.0
// The upmem backend file's parameters as the DPU model and the code generator read them, once per problem,
// so what-if edits reach the model. Each field names its key; the file gives value, unit and source.
#pragma once
#include <string>
#include <vector>

#include "engine/codegen/upmem_codegen.h"
#include "engine/hw/schema.h"
#include "sim/dpu/dpu_config.h"
#include "sim/dpu/host_plan.h"

namespace pim {

class Backend;

struct UpmemParams {
  sim::dpu::DpuConfig dpu;    // core.clockMHz, core.threads, pim.minTaskletCPI, pim.barrier*, pim.dmaService*
  sim::dpu::HostRates rates;  // pim.*GBps, pim.*SetupMs, pim.launch*
  UpmemCodegenOptions codegen;  // pim.tasklets, pim.blockBytes, ... and the WRAM, MRAM and DMA limits
};

UpmemParams upmemParams(const Backend& b);

/// The pim-section keys upmemParams reads, declared in the family's schema so a file without one is refused
/// on load, naming the key.
std::vector<ParamDecl> upmemParamDecls();

}  // namespace pim
