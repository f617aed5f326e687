// SPDX-License-Identifier: Apache-2.0
#include "engine/core/problem.h"

#include <algorithm>
#include <stdexcept>

#include "engine/kernel/dsl.h"
#include "engine/kernel/library.h"
#include "engine/kernel/onnx_network.h"
#include "engine/kernel/shape_check.h"

namespace pim {

Resources resourcesOf(const Backend& b) {
  return Resources{b.totalGroups(), b.coresPerGroup(), b.core.simdLanes};
}

Problem::Problem(Backend backend, Kernel kernel, Shape shape, std::optional<Residency> residency)
    : m_backend(std::move(backend)),
      m_kernel(std::move(kernel)),
      m_shape(std::move(shape)),
      m_residency(residency ? std::move(*residency) : Residency::declared(m_kernel)) {
  if (m_residency.resident.size() != m_kernel.tensors.size())
    throw std::logic_error("Problem: residency of " + std::to_string(m_residency.resident.size()) +
                           " tensors for kernel " + m_kernel.name + " of " +
                           std::to_string(m_kernel.tensors.size()));
  // Before any stage computes with the shape: sizes that overflow or indices past their tensor would give
  // wrong numbers, not errors, further down.
  checkShapeFits(m_kernel, m_shape);
  m_space =
      std::make_unique<DraftSpace>(m_kernel, buildDimensionSets(m_kernel, m_shape), resourcesOf(m_backend));
}

Problem::Problem(Backend backend, std::shared_ptr<const Network> network)
    : Problem(std::move(backend), networkKernel(), parseShape(networkKernel(), "")) {
  if (!network) throw std::logic_error("Problem: no network");
  m_networkName = networkStem(*network);
  m_network = std::move(network);
  m_networkKey = "network=" + m_networkName + ";digest=" + networkDigest(*m_network);
}

const Kernel& networkKernel() {
  static const Kernel k = parseKernel(R"pim(kernel network(n = 1)
  doc "a whole network's placeholder: its target compiles the network, not this loop"
  input  x: f16[n]
  output y: f16[n]
  for i < n: y[i] = x[i]
end
)pim",
                                      "network placeholder");
  return k;
}

std::int64_t Problem::dimSize(std::string_view name) const {
  const int i = m_kernel.dimIndex(name);
  return i < 0 ? -1 : m_shape.values[static_cast<std::size_t>(i)];
}

std::string Problem::title() const {
  if (m_network) return m_networkName + " (network) on " + m_backend.name;
  // The element type when every tensor has the same one other than the library's f16 (`--dtype i32`).
  std::string notes;
  const auto& ts = m_kernel.tensors;
  if (!ts.empty() && ts.front().dtype != DType::F16 &&
      std::all_of(ts.begin(), ts.end(), [&](const Tensor& t) { return t.dtype == ts.front().dtype; }))
    notes = dtypeName(ts.front().dtype);
  const std::string resident = residentNames(m_kernel, m_residency);
  if (!resident.empty()) notes += (notes.empty() ? "" : ", ") + resident + " resident";
  return m_kernel.name + "[" + shapeString(m_kernel, m_shape) + "] on " + m_backend.name +
         (notes.empty() ? "" : " (" + notes + ")");
}

std::string Problem::storeKey() const {
  if (m_network) return m_networkKey;
  return shapeString(m_kernel, m_shape) + residencyKey(m_kernel, m_residency);
}

const ITargetContext& Problem::targetContext(
    const std::function<std::unique_ptr<ITargetContext>()>& make) const {
  std::call_once(m_contextOnce, [&] { m_context = make(); });
  return *m_context;
}

Kernel resolveKernel(const std::string& name, const std::string& kernelFile) {
  if (!kernelFile.empty()) return loadKernelFile(kernelFile);
  return KernelLibrary::builtin().get(name);
}

std::shared_ptr<const Network> resolveNetwork(const std::string& name, const std::string& networkFile) {
  return std::make_shared<const Network>(networkFile.empty() ? loadNetworkFile(builtinNetworkPath(name))
                                                             : loadNetworkModelFile(networkFile));
}

}  // namespace pim
