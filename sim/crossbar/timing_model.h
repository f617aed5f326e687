// SPDX-License-Identifier: Apache-2.0
// Which timing the crossbar profiler follows (docs/crossbar.md, "Timing modes"): one enum for the profiler,
// the compiler (crossbar::TimingMode names it) and the run settings (SimSettings::crossbarTiming), with the
// names the CLI, the window and stored files use.
#pragma once
#include <optional>
#include <string_view>

namespace pim::xbar {

/// `PimcompNn` reproduces PIMCOMP-NN's profiler as implemented (800 ns MVM, 144-core chips whatever the
/// layout); `Intended` follows the paper (MVM from its components, chips as configured).
enum class TimingModel { PimcompNn, Intended };

/// "pimcomp-nn", "intended".
constexpr std::string_view timingModelName(TimingModel m) {
  return m == TimingModel::PimcompNn ? "pimcomp-nn" : "intended";
}

/// The model a name gives; nullopt for any other text.
constexpr std::optional<TimingModel> parseTimingModel(std::string_view name) {
  for (TimingModel m : {TimingModel::PimcompNn, TimingModel::Intended})
    if (timingModelName(m) == name) return m;
  return std::nullopt;
}

}  // namespace pim::xbar
