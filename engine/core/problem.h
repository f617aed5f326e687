// SPDX-License-Identifier: Apache-2.0
// A kernel at a shape on a backend: the input of every pipeline stage, built once and shared by the CLI, the
// GUI and the benchmarks so they all see the same dimension sets, draft ids and verdicts.
#pragma once
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <string>

#include "engine/hw/backend.h"
#include "engine/kernel/network.h"
#include "engine/kernel/residency.h"
#include "engine/prune/pruner.h"
#include "engine/schedule/draft_space.h"

namespace pim {

/// What a target prepares once per problem and reuses for every evaluation (the simulator's device
/// description, ...). Each target defines its own and reads it back with a static_cast.
class ITargetContext {
 public:
  virtual ~ITargetContext() = default;
};

/// The resources DCC partitions over on `b`: every group of the system, the cores of one group, and SIMD d.
Resources resourcesOf(const Backend& b);

/// A problem is a kernel at a shape, or a whole network (ITarget::compilesNetworks: crossbar backends compile
/// networks as a whole, every weight in their arrays). A network problem's kernel is networkKernel(), a
/// placeholder of one element that no target compiles: targets read network(), and ITarget::check refuses the
/// problem on every family that does not compile networks.
class Problem {
 public:
  /// Throws InputError for a shape that does not fit the kernel (checkShapeFits: sizes that overflow or
  /// exceed the documented limits, indices outside their tensors).
  /// Without `residency`, the kernel's declared one.
  Problem(Backend backend, Kernel kernel, Shape shape, std::optional<Residency> residency = std::nullopt);
  /// A whole network, named by its file's stem (networkStem).
  Problem(Backend backend, std::shared_ptr<const Network> network);
  Problem(const Problem&) = delete;
  Problem& operator=(const Problem&) = delete;

  const Backend& backend() const { return m_backend; }
  const Kernel& kernel() const { return m_kernel; }
  /// The network of a network problem, nullptr for a kernel at a shape.
  const Network* network() const { return m_network.get(); }
  /// What the problem runs: the network's name or the kernel's ("resnet18", "gemv").
  const std::string& subject() const { return m_network ? m_networkName : m_kernel.name; }
  const Shape& shape() const { return m_shape; }
  /// Which tensors stay in the banks between calls (residency.h).
  const Residency& residency() const { return m_residency; }
  bool isResident(int tensor) const { return m_residency.isResident(tensor); }
  /// What stored results and lookup entries of this problem are keyed by besides the backend and the
  /// kernel's computation: the shape and the residency ("b=1,out=4096,in=4096;resident=W"); a network's
  /// name and digest ("network=resnet18;digest=...").
  std::string storeKey() const;
  const DraftSpace& space() const { return *m_space; }
  /// Size of kernel dimension `name` in the shape, -1 when the kernel has no such dimension.
  std::int64_t dimSize(std::string_view name) const;
  /// "gemv[b=1,out=4096,in=4096] on hbm-pim", with " (W resident)" when a tensor is resident and the element
  /// type when every tensor has the same one other than f16: " (i32, W resident)"; of a network,
  /// "resnet18 (network) on crossbar-pimcomp".
  std::string title() const;
  /// The target's per-problem state, made by `make` on first use (thread-safe) and kept with the problem.
  const ITargetContext& targetContext(const std::function<std::unique_ptr<ITargetContext>()>& make) const;

 private:
  Backend m_backend;
  Kernel m_kernel;
  std::string m_networkName;
  std::shared_ptr<const Network> m_network;
  std::string m_networkKey;  // storeKey()
  Shape m_shape;
  Residency m_residency;
  std::unique_ptr<DraftSpace> m_space;  // refers to m_kernel
  mutable std::once_flag m_contextOnce;
  mutable std::unique_ptr<ITargetContext> m_context;
};

/// The placeholder kernel of a network problem (class Problem).
const Kernel& networkKernel();

/// Kernel by library name, or from a DSL file when `kernelFile` is not empty. Throws InputError.
Kernel resolveKernel(const std::string& name, const std::string& kernelFile);
/// A shipped network by name (builtinNetworkNames), or a network file when `networkFile` is not empty (a
/// node-list .json or an .onnx model). Throws InputError.
std::shared_ptr<const Network> resolveNetwork(const std::string& name, const std::string& networkFile);

}  // namespace pim
