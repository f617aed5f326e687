// SPDX-License-Identifier: Apache-2.0
// The hardware families PIMScope models, by family name, and the shipped backends validated against them.
#pragma once
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "engine/hw/backend.h"
#include "engine/target/target.h"

namespace pim {

class TargetRegistry final : public ISchemaCatalog {
 public:
  /// The process-wide registry: the built-in targets (registerBuiltinTargets) and those added by
  /// registerTarget().
  static const TargetRegistry& builtin();
  /// Throws InputError when a target of the same family is registered already.
  void add(std::unique_ptr<ITarget> t);
  /// nullptr when unknown.
  const ITarget* find(std::string_view family) const;
  /// Throws InputError naming the backend's file and the known families when unknown.
  const ITarget& of(const Backend& b) const;
  const std::vector<std::unique_ptr<ITarget>>& all() const { return m_targets; }

  const BackendSchema* schemaOf(std::string_view family) const override;
  std::vector<std::string> families() const override;

 private:
  std::vector<std::unique_ptr<ITarget>> m_targets;
};

/// The one place a family is registered: one line per target.
void registerBuiltinTargets(TargetRegistry& r);

/// Adds a target to the process-wide registry beside the built-in ones (a plug-in; the tests' analytic
/// family). Call at start-up, before any backend of its family is loaded and before other threads look
/// targets up. Throws InputError when its family is registered already.
void registerTarget(std::unique_ptr<ITarget> t);

/// The target of `b`'s family among the registered ones.
const ITarget& targetOf(const Backend& b);

/// Every backend in dataDir()/backends, loaded once and validated against its family's schema, then those
/// added by registerBackend(). The window's backend lists and compare are built from it.
const BackendRegistry& builtinBackends();
/// builtinBackends().get(name), but until something needs the whole list only dataDir()/backends/<name>.json
/// is read: a command on one backend does not parse (or fail on) the others.
const Backend& builtinBackend(std::string_view name);
/// Adds a backend of a registered family to builtinBackends() (at start-up, like registerTarget). Throws
/// InputError when one of that name exists.
void registerBackend(Backend b);
/// A backend from JSON text or a file, validated against the schema of its family (built-in targets).
Backend parseBackend(std::string_view jsonText, std::string_view origin);
Backend loadBackendFile(const std::string& path);

/// Throws InputError "<kernel> cannot run on <backend>: <reasons>" when the target's check refuses `p`: what
/// every command, the window and the targets' own evaluate() say before running anything.
void requireRunnable(const Problem& p);

/// The residency a problem on `b` runs with: `requested` where b's family reads residency (SearchSettings),
/// every tensor streamed where it does not (nothing is placed ahead of a call there; a tensor named resident
/// would only mislabel the problem's title and stored keys).
Residency residencyOn(const Backend& b, const Kernel& k, Residency requested);

/// The settings of `o` that differ from their defaults and that b's family does not read, each named as the
/// CLI's option ("--no-staged"); empty when none.
std::vector<std::string> unreadSettings(const Backend& b, const EvalOptions& o);

/// Candidate `id` of `p` in its target's space: a draft, or in a family with kernel-level choices a draft
/// with its choices (engine/core/kernel_choices.h). Throws InputError naming the valid range.
Draft candidateOf(const Problem& p, std::uint64_t id);

/// Every reason `k` cannot run on `b` (the target's check), joined with "; "; empty when it can.
std::string unsupportedReason(const Backend& b, const Kernel& k);

}  // namespace pim
