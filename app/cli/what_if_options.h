// SPDX-License-Identifier: Apache-2.0
// `--set name=value`: the window's what-if panel on the command line, shared by every command that builds a
// problem.
#pragma once
#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>
#include <string>
#include <utility>
#include <vector>

#include "engine/hw/backend.h"

namespace pim::cli {

/// --set name=value (repeatable): what-if changes to the backend's declared parameters, applied by the same
/// engine call as the window's what-if panel (Backend::setParameters: schema, range, integrality and the
/// family's cross-checks). Nothing is rounded or clamped: a refused value is an InputError naming the
/// parameter, and so are malformed text, a repeated name and an unknown name (with the close names).
struct WhatIfOptions {
  std::vector<std::string> settings;  // "name=value", as given
  /// `applies`: what the parameters change, for --help.
  void addTo(CLI::App* cmd, const std::string& applies = "of the backend");
  bool empty() const { return settings.empty(); }
  /// The parameters and values, in the order given (throws InputError on malformed text).
  std::vector<std::pair<std::string, double>> values() const;
  /// Adds `name`=`value` for a shorthand (`--tasklets 8`, a mapping file's tasklets), named `by` in the
  /// error when a --set already gives `name` another value; nothing when it gives the same one.
  void addShorthand(const std::string& by, const std::string& name, double value);
  /// `b` with every setting applied; each name must be one `b` declares. Throws InputError "--set ...".
  Backend applyTo(const Backend& b) const;
  /// For compare: each of `backends` with the settings it declares; a name none of them declares is refused.
  std::vector<Backend> applyToEach(const std::vector<Backend>& backends) const;
  /// "<lead>: system.devices=1 (was 5)", the settings `edited` declares against the shipped backend of its
  /// name ("; dram.x not declared, left out" for the others), and a newline; "" without --set.
  std::string line(const Backend& edited, const std::string& lead = "what-if") const;
  /// {"system.devices": {"value": 1, "was": 5}}, as line().
  nlohmann::json json(const Backend& edited) const;
  /// Adds json() to a command's --json output as "what_if"; nothing without --set, so that output is
  /// unchanged.
  void annotate(nlohmann::json& out, const Backend& edited) const;
};

}  // namespace pim::cli
