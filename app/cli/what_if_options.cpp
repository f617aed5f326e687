// SPDX-License-Identifier: Apache-2.0
#include "app/cli/what_if_options.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <set>

#include "app/cli/cli_common.h"
#include "engine/common/error.h"
#include "engine/common/json_fields.h"
#include "engine/target/registry.h"

namespace pim::cli {

namespace {

struct Setting {
  std::string name, text;  // "system.devices", "1"
  double value = 0;
};

/// "name=value" to a Setting. The value is the whole text as a number (no sign '+', blanks or units); a whole
/// number a double cannot hold exactly (above 2^53) is refused rather than changed to its neighbour. Range,
/// integrality and finiteness are the engine's to check.
Setting parseSetting(const std::string& text) {
  const std::size_t eq = text.find('=');
  if (eq == std::string::npos || eq == 0 || eq + 1 == text.size())
    throw InputError("--set '" + text + "': expected name=value, e.g. system.devices=1");
  Setting s{text.substr(0, eq), text.substr(eq + 1), 0};
  const char* last = s.text.data() + s.text.size();
  const auto [end, ec] = std::from_chars(s.text.data(), last, s.value);
  if (ec == std::errc::result_out_of_range)
    throw InputError("--set " + s.name + ": '" + s.text + "' is beyond the range of numbers");
  if (ec != std::errc() || end != last)
    throw InputError("--set " + s.name + ": '" + s.text + "' is not a number");
  if (std::isfinite(s.value) && s.text.find_first_not_of("-0123456789") == std::string::npos) {
    std::string digits = s.text.substr(s.text[0] == '-' ? 1 : 0);
    digits.erase(0, std::min(digits.find_first_not_of('0'), digits.size() - 1));
    char held[64];
    std::snprintf(held, sizeof held, "%.0f", std::fabs(s.value));
    if (digits != held)
      throw InputError("--set " + s.name + ": '" + s.text + "' cannot be held exactly (it would become " +
                       (s.value < 0 ? "-" : "") + held + ")");
  }
  return s;
}

std::vector<Setting> parseSettings(const std::vector<std::string>& texts) {
  std::vector<Setting> out;
  for (const std::string& t : texts) {
    Setting s = parseSetting(t);
    for (const Setting& before : out)
      if (before.name == s.name)
        throw InputError("--set " + s.name + ": given twice (" + before.text + " and " + s.text + ")");
    out.push_back(std::move(s));
  }
  return out;
}

std::string lower(std::string s) {
  for (char& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

/// Declared names close to `name`: a typo (edit distance), another case, or the same name in its section
/// ("tREFI" -> "timing.tREFI"); the closest five.
std::vector<std::string> closeNames(const std::string& name, const std::vector<const Backend*>& backends) {
  const std::string want = lower(name);
  const std::string leaf = want.substr(want.rfind('.') + 1);
  std::set<std::pair<std::size_t, std::string>> ranked;
  for (const Backend* b : backends) {
    for (const Parameter& p : b->parameters) {
      const std::string key = lower(p.key);
      const std::size_t d = editDistance(want, key);
      if (d <= std::max<std::size_t>(2, want.size() / 4) || key.substr(key.rfind('.') + 1) == leaf)
        ranked.emplace(d, p.key);
    }
  }
  std::vector<std::string> out;
  for (const auto& [d, key] : ranked)
    if (out.size() < 5 && std::find(out.begin(), out.end(), key) == out.end()) out.push_back(key);
  return out;
}

[[noreturn]] void unknownParameter(const std::string& name, const std::vector<const Backend*>& backends) {
  std::string who, list;
  for (const Backend* b : backends) {
    who += (who.empty() ? "" : ", ") + b->name;
    list += (list.empty() ? "`pimscope-cli params -b " : "`, `pimscope-cli params -b ") + b->name;
  }
  const auto close = closeNames(name, backends);
  std::string hint;
  for (const auto& c : close) hint += (hint.empty() ? "; did you mean " : " or ") + c;
  throw InputError(
      "--set " + name + ": " +
      (backends.size() == 1 ? who + " declares no parameter '" : "none of " + who + " declares '") + name +
      "'" + (hint.empty() ? "" : hint + "?") + " (" + list + "` lists them)");
}

/// `b` with the settings it declares, through the what-if panel's engine call.
Backend applyDeclared(const Backend& b, const std::vector<Setting>& settings) {
  std::vector<std::pair<std::string, double>> changes;
  for (const Setting& s : settings)
    if (b.param(s.name)) changes.emplace_back(s.name, s.value);
  if (changes.empty()) return b;
  Backend out = b;
  out.file
      .clear();  // the engine's messages then name the backend ("hbm-pim: system.devices: ..."), not a path
  try {
    out.setParameters(changes);  // the what-if panel's call: all or nothing
  } catch (const InputError& e) {
    throw InputError(std::string("--set: ") + e.what());
  }
  out.file = b.file;
  return out;
}

}  // namespace

void WhatIfOptions::addTo(CLI::App* cmd, const std::string& applies) {
  cmd->add_option("--set", settings,
                  "change a declared parameter " + applies +
                      " as the window's what-if panel does, e.g. system.devices=1 or timing.tREFI=7800 "
                      "(repeatable; `pimscope-cli params -b NAME` lists them)")
      ->type_name("NAME=VALUE")
      ->allow_extra_args(false);
}

std::vector<std::pair<std::string, double>> WhatIfOptions::values() const {
  std::vector<std::pair<std::string, double>> out;
  for (const Setting& s : parseSettings(settings)) out.emplace_back(s.name, s.value);
  return out;
}

void WhatIfOptions::addShorthand(const std::string& by, const std::string& name, double value) {
  for (const auto& [given, v] : values()) {
    if (given != name) continue;
    if (v == value) return;
    throw InputError(by + " sets " + name + " to " + num(value) + ", which conflicts with --set " + name +
                     "=" + num(v) + "; give one of them");
  }
  settings.push_back(name + "=" + num(value));
}

Backend WhatIfOptions::applyTo(const Backend& b) const { return applyToEach({b}).front(); }

std::vector<Backend> WhatIfOptions::applyToEach(const std::vector<Backend>& backends) const {
  const std::vector<Setting> parsed = parseSettings(settings);
  for (const Setting& s : parsed) {
    if (std::none_of(backends.begin(), backends.end(), [&](const Backend& b) { return b.param(s.name); })) {
      std::vector<const Backend*> all;
      for (const Backend& b : backends) all.push_back(&b);
      unknownParameter(s.name, all);
    }
  }
  std::vector<Backend> out;
  for (const Backend& b : backends) out.push_back(applyDeclared(b, parsed));
  return out;
}

std::string WhatIfOptions::line(const Backend& edited, const std::string& lead) const {
  const nlohmann::json changed = json(edited);
  std::string out, left;
  for (const Setting& s : parseSettings(settings)) {
    if (!changed.contains(s.name)) {
      left += "; " + s.name + " not declared, left out";
      continue;
    }
    const auto& c = changed[s.name];
    out += (out.empty() ? "" : ", ") + s.name + "=" + num(c["value"].get<double>()) +
           (c["value"] == c["was"] ? " (as shipped)" : " (was " + num(c["was"].get<double>()) + ")");
  }
  if (out.empty() && left.empty()) return out;
  return lead + ": " + (out.empty() ? "as shipped" : out) + left + "\n";
}

nlohmann::json WhatIfOptions::json(const Backend& edited) const {
  const Backend& shipped = builtinBackend(edited.name);
  nlohmann::json out = nlohmann::json::object();
  for (const Setting& s : parseSettings(settings)) {
    const Parameter* now = edited.param(s.name);
    const Parameter* was = shipped.param(s.name);
    if (now && was) out[s.name] = {{"value", now->value}, {"was", was->value}};
  }
  return out;
}

void WhatIfOptions::annotate(nlohmann::json& out, const Backend& edited) const {
  if (!empty()) out["what_if"] = json(edited);
}

}  // namespace pim::cli
