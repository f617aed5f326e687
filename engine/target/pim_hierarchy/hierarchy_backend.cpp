// SPDX-License-Identifier: Apache-2.0
#include "engine/target/pim_hierarchy/hierarchy_backend.h"

#include <algorithm>
#include <filesystem>
#include <optional>
#include <string>

#include "engine/common/error.h"

namespace pim {
namespace {

namespace cm = convmap;

const char* const kReservedSections[] = {"hierarchy", "pe_array", "dram_timing"};

std::string originOf(const Backend& b) { return b.file.empty() ? b.name : b.file; }

/// The hierarchy file the backend names, as the file gives it.
cm::Hierarchy baseHierarchy(const Backend& b, std::string_view origin) {
  const auto it = b.textFields.find("hierarchy.file");
  if (it == b.textFields.end() || it->second.empty() || it->second.front().empty())
    throw InputError(std::string(origin) +
                     ": hierarchy.file: missing (a shipped hierarchy's name or a path)");
  const std::string& ref = it->second.front();
  cm::Hierarchy h;
  try {
    if (ref.find('/') == std::string::npos && !ref.ends_with(".json")) {
      h = cm::builtinHierarchy(ref);
    } else {
      std::filesystem::path path(ref);
      if (path.is_relative() && !b.file.empty()) path = std::filesystem::path(b.file).parent_path() / path;
      h = cm::loadHierarchyFile(path.string());
    }
  } catch (const InputError& e) {
    throw InputError(std::string(origin) + ": hierarchy.file: " + e.what());
  }
  for (const auto& level : h.levels)
    for (const char* reserved : kReservedSections)
      if (level.name == reserved)
        throw InputError(std::string(origin) + ": hierarchy.file: level name '" + level.name +
                         "' is taken by a section of the backend file");
  return h;
}

/// A backend key for a hierarchy number: the level's name as section for level fields.
std::string keyOf(const cm::Hierarchy& h, const cm::HierarchyValue& v) {
  if (v.level >= 0)
    return h.levels[static_cast<std::size_t>(v.level)].name + "." + v.path.substr(v.path.find("].") + 2);
  if (v.path == "element_bytes") return "hierarchy.element_bytes";
  return v.path;
}

/// The hierarchy path of a backend key, nullopt when it names no number of `h`.
std::optional<std::string> pathOf(const cm::Hierarchy& h, const std::string& key) {
  for (const auto& v : cm::hierarchyValues(h))
    if (keyOf(h, v) == key) return v.path;
  return std::nullopt;
}

/// Where a number comes from: the file's `assumed` entry that names it (or its section), else the file.
std::string sourceOf(const cm::Hierarchy& h, const std::string& path) {
  for (const auto& a : h.assumed) {
    const auto colon = a.find(':');
    if (colon == std::string::npos) continue;
    const std::string names = a.substr(0, colon);
    std::size_t at = 0;
    while (at < names.size()) {
      auto end = names.find(',', at);
      if (end == std::string::npos) end = names.size();
      std::string item = names.substr(at, end - at);
      item.erase(0, item.find_first_not_of(' '));
      if (!item.empty() && (path == item || path.starts_with(item + ".") || path.starts_with(item + "[")))
        return "assumed: " + a;
      at = end + 1;
    }
  }
  return "hierarchy: " + path;
}

void derive(Backend& b, std::string_view origin) {
  const cm::Hierarchy h = baseHierarchy(b, origin);
  std::vector<std::string> sections = {"hierarchy", "pe_array", "dram_timing"};
  for (const auto& l : h.levels) sections.push_back(l.name);
  for (const Parameter& p : b.parameters)
    if (!pathOf(h, p.key)) {
      std::string known;
      for (const auto& s : sections) known += (known.empty() ? "" : ", ") + s;
      throw InputError(std::string(origin) + ": " + p.key + ": not a number of hierarchy " + h.name +
                       " (sections: " + known + ")");
    }
  b.sources.emplace("hierarchy", h.file);
  for (const auto& v : cm::hierarchyValues(h)) {
    const std::string key = keyOf(h, v);
    if (b.param(key)) continue;  // the file gives it (a what-if saved as a backend)
    Parameter p;
    p.key = key;
    p.value = v.value;
    p.unit = std::string(v.field->unit);
    p.min = v.field->min;
    p.max = v.field->max;
    p.integer = v.field->integer;
    p.description = std::string(v.field->description);
    p.source = sourceOf(h, v.path);
    b.parameters.push_back(std::move(p));
  }
}

}  // namespace

BackendSchema pimHierarchySchema() {
  BackendSchema s;
  s.sections = {"hierarchy"};
  s.params = {{"hierarchy.element_bytes", ParamDecl::Kind::Integer, 1, false}};
  s.text = {{"hierarchy", "file", false}};
  s.extraSectionsOpen = true;  // pe_array, dram_timing and one section per level, named by the hierarchy
  s.derive = derive;
  s.crossCheck = [](const Backend& b, std::string_view) { hierarchyOf(b); };
  return s;
}

cm::Hierarchy hierarchyOf(const Backend& b) {
  const std::string origin = originOf(b);
  cm::Hierarchy h = baseHierarchy(b, origin);
  for (const Parameter& p : b.parameters) {
    const auto path = pathOf(h, p.key);
    if (!path) throw InputError(origin + ": " + p.key + ": not a number of hierarchy " + h.name);
    cm::setHierarchyValue(h, *path, p.value, origin, p.key);
  }
  cm::checkHierarchy(h, origin);
  return h;
}

}  // namespace pim
