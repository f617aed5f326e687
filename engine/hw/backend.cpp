// SPDX-License-Identifier: Apache-2.0
// Backend JSON loader, validation, typed views, hashing, serialisation and the built-in registry.
#include "engine/hw/backend.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <functional>
#include <limits>
#include <nlohmann/json.hpp>
#include <optional>
#include <set>
#include <variant>

#include "engine/common/error.h"
#include "engine/common/input_file.h"
#include "engine/common/json_input.h"
#include "engine/common/json_output.h"
#include "engine/hw/schema.h"

namespace pim {
namespace {

using Json = nlohmann::ordered_json;

// ---------------------------------------------------------------------------------------------------------------
// Small helpers

/// Local DType names (kept here so the hardware model does not depend on the kernel IR's implementation
/// file).
constexpr std::pair<DType, std::string_view> kDTypeNames[] = {
    {DType::F16, "f16"}, {DType::BF16, "bf16"}, {DType::F32, "f32"}, {DType::I8, "i8"},
    {DType::I32, "i32"}, {DType::I64, "i64"},   {DType::F64, "f64"}};

std::optional<DType> localParseDType(std::string_view s) {
  for (const auto& [t, n] : kDTypeNames)
    if (n == s) return t;
  return std::nullopt;
}

std::string localDTypeName(DType t) {
  for (const auto& [d, n] : kDTypeNames)
    if (d == t) return std::string(n);
  return "?";
}

std::string fmtNum(double v) {
  char buf[64];
  if (std::isfinite(v) && v == std::floor(v) && std::fabs(v) < 1e15)
    std::snprintf(buf, sizeof buf, "%.0f", v);
  else
    std::snprintf(buf, sizeof buf, "%.17g", v);
  return buf;
}

[[noreturn]] void fail(std::string_view origin, std::string_view path, std::string_view problem) {
  std::string msg(origin);
  msg += ": ";
  if (!path.empty()) {
    msg += path;
    msg += ": ";
  }
  msg += problem;
  throw InputError(msg);
}

std::string typeName(const Json& j) { return j.type_name(); }

/// Units whose values default to non-integral.
bool realUnit(std::string_view unit) {
  static const std::set<std::string, std::less<>> real = {
      "ns",  "us",  "GB/s", "TFLOP/s",     "pJ",       "pJ/byte", "pJ/B",
      "MHz", "GHz", "W",    "cycles/byte", "fraction", "cycles/B"};
  return real.count(unit) > 0;
}

// ---------------------------------------------------------------------------------------------------------------
// Typed views: the parameters some code reads as struct members, bound by key. Which keys a file must carry,
// and what their values may be, is the family's schema (schema.h); a key a family does not declare leaves its
// member at zero.

using Member = std::variant<int*, std::int64_t*, double*, bool*>;
struct Binding {
  std::string key;  // "<section>.<name>"
  Member member;
};

std::vector<Binding> bindings(Backend& b) {
  auto& s = b.system;
  auto& g = b.group;
  auto& c = b.core;
  auto& d = b.dram;
  auto& t = b.timing;
  std::vector<Binding> v = {
      {"system.hostBandwidthGBps", &s.hostBandwidthGBps},
      {"system.hostOnChipBytes", &s.hostOnChipBytes},
      {"system.hostTflops", &s.hostTflops},
      {"system.devices", &s.devices},
      {"group.groupsPerDevice", &g.groupsPerDevice},
      {"group.broadcast", &g.broadcast},
      {"group.pseudoChannelsPerGroup", &g.pseudoChannelsPerGroup},
      {"core.coresPerGroup", &c.coresPerGroup},
      {"core.banksPerCore", &c.banksPerCore},
      {"core.fpuSharedBy", &c.fpuSharedBy},
      {"core.simdLanes", &c.simdLanes},
      {"core.registerBytes", &c.registerBytes},
      {"core.dataMemoryBytes", &c.dataMemoryBytes},
      {"core.clockMHz", &c.clockMHz},
      {"core.threads", &c.threads},
      {"dram.channels", &d.pseudoChannels},
      {"dram.ranks", &d.ranks},
      {"dram.bankGroups", &d.bankGroups},
      {"dram.banksPerBankGroup", &d.banksPerBankGroup},
      {"dram.rows", &d.rows},
      {"dram.columns", &d.columns},
      {"dram.columnBytes", &d.columnBytes},
      {"dram.tCKns", &d.tCKns},
  };
  const std::pair<const char*, int*> timing[] = {
      {"CL", &t.CL},         {"CWL", &t.CWL},     {"BL", &t.BL},       {"tRCDRD", &t.tRCDRD},
      {"tRCDWR", &t.tRCDWR}, {"tRP", &t.tRP},     {"tRAS", &t.tRAS},   {"tRC", &t.tRC},
      {"tCCDS", &t.tCCDS},   {"tCCDL", &t.tCCDL}, {"tRRDS", &t.tRRDS}, {"tRRDL", &t.tRRDL},
      {"tFAW", &t.tFAW},     {"tWR", &t.tWR},     {"tWTRS", &t.tWTRS}, {"tWTRL", &t.tWTRL},
      {"tRTPS", &t.tRTPS},   {"tRTPL", &t.tRTPL}, {"tRTRS", &t.tRTRS}, {"tREFI", &t.tREFI},
      {"tRFC", &t.tRFC}};
  for (const auto& [n, p] : timing) v.push_back({std::string("timing.") + n, p});
  return v;
}

const Binding* findBinding(const std::vector<Binding>& bs, std::string_view key) {
  for (const auto& b : bs)
    if (b.key == key) return &b;
  return nullptr;
}

// ---------------------------------------------------------------------------------------------------------------
// Validation of one parameter value against its declaration and the schema.

void checkValue(const Parameter& p, const ParamDecl* decl, std::string_view origin) {
  if (!std::isfinite(p.value)) fail(origin, p.key, "value must be finite");
  if (p.min > p.max) fail(origin, p.key, "min " + fmtNum(p.min) + " > max " + fmtNum(p.max));
  if (p.value < p.min || p.value > p.max)
    fail(origin, p.key,
         "value " + fmtNum(p.value) + " outside [" + fmtNum(p.min) + ", " + fmtNum(p.max) + "] " + p.unit);
  if (p.integer && p.value != std::floor(p.value))
    fail(origin, p.key, "value " + fmtNum(p.value) + " must be an integer");
  if (decl) {
    if (p.value < decl->hardMin)
      fail(origin, p.key, "value " + fmtNum(p.value) + " must be >= " + fmtNum(decl->hardMin));
    if (decl->kind == ParamDecl::Kind::Flag && p.value != 0 && p.value != 1)
      fail(origin, p.key, "value must be 0 or 1");
    if (decl->kind != ParamDecl::Kind::Real && std::fabs(p.value) > 9.0e15)
      fail(origin, p.key, "value too large");
  }
}

/// Refreshes the typed views from `parameters` (the single derivation used by parse and setParameter). A
/// value the typed field cannot hold is refused naming the field: converting 3e9 to an int is undefined.
void refreshViews(Backend& b, std::string_view origin) {
  b.pimTiming.clear();
  b.energyPj.clear();
  auto bs = bindings(b);
  for (const Parameter& p : b.parameters) {
    if (p.key.rfind("pim.", 0) == 0) {
      b.pimTiming[p.key] = p.value;
      continue;
    }
    if (p.key.rfind("energy.", 0) == 0) {
      b.energyPj[p.key] = p.value;
      continue;
    }
    const Binding* bd = findBinding(bs, p.key);
    if (!bd) continue;
    std::visit(
        [&](auto* ptr) {
          using T = std::remove_pointer_t<decltype(ptr)>;
          if constexpr (std::is_same_v<T, bool>) {
            *ptr = p.value != 0;
          } else {
            if constexpr (std::is_integral_v<T>) {
              if (!(p.value >= static_cast<double>(std::numeric_limits<T>::min()) &&
                    p.value <= static_cast<double>(std::numeric_limits<T>::max())))
                fail(origin, p.key,
                     "value " + fmtNum(p.value) + " is above the largest supported, " +
                         std::to_string(std::numeric_limits<T>::max()));
            }
            *ptr = static_cast<T>(p.value);
          }
        },
        bd->member);
  }
}

/// The unit counts every stage multiplies (groups of the system, banks of a group, pseudo-channels) must fit
/// an int: each factor may, and their product still wrap to 0 or a negative count.
void checkProducts(const Backend& b, std::string_view origin) {
  auto product = [&](std::int64_t x, std::int64_t y, const char* keys) {
    const std::int64_t r = x * y;  // both are ints: no int64 overflow
    if (r > std::numeric_limits<int>::max())
      fail(origin, keys,
           std::to_string(x) + " x " + std::to_string(y) + " = " + std::to_string(r) +
               " units, above the largest supported, " + std::to_string(std::numeric_limits<int>::max()));
  };
  product(b.system.devices, b.group.groupsPerDevice, "system.devices x group.groupsPerDevice");
  product(b.core.coresPerGroup, b.core.banksPerCore, "core.coresPerGroup x core.banksPerCore");
  product(b.system.devices, b.dram.pseudoChannels, "system.devices x dram.channels");
  product(b.totalGroups(), b.coresPerGroup(), "system.devices x group.groupsPerDevice x core.coresPerGroup");
}

// ---------------------------------------------------------------------------------------------------------------
// Parsing

std::string requireString(const Json& obj, const std::string& field, const std::string& path,
                          std::string_view origin, bool allowEmpty = false) {
  auto it = obj.find(field);
  if (it == obj.end()) fail(origin, path, "missing");
  if (!it->is_string()) fail(origin, path, "expected a string, got " + typeName(*it));
  auto s = it->get<std::string>();
  if (!allowEmpty && s.empty()) fail(origin, path, "must not be empty");
  return s;
}

std::vector<std::string> requireStringList(const Json& j, const std::string& path, std::string_view origin) {
  if (!j.is_array()) fail(origin, path, "expected an array of strings, got " + typeName(j));
  std::vector<std::string> out;
  for (std::size_t i = 0; i < j.size(); ++i) {
    if (!j[i].is_string())
      fail(origin, path + "[" + std::to_string(i) + "]", "expected a string, got " + typeName(j[i]));
    auto s = j[i].get<std::string>();
    if (s.empty()) fail(origin, path + "[" + std::to_string(i) + "]", "must not be empty");
    if (std::find(out.begin(), out.end(), s) != out.end())
      fail(origin, path + "[" + std::to_string(i) + "]", "duplicate '" + s + "'");
    out.push_back(std::move(s));
  }
  return out;
}

double requireNumber(const Json& obj, const char* field, const std::string& path, std::string_view origin) {
  auto it = obj.find(field);
  if (it == obj.end()) fail(origin, path + "." + field, "missing");
  if (!it->is_number()) fail(origin, path + "." + field, "expected a number, got " + typeName(*it));
  return it->get<double>();
}

void checkSource(const Parameter& p, const std::map<std::string, std::string>& sources,
                 std::string_view origin) {
  const std::string& s = p.source;
  auto colon = s.find(':');
  if (colon == std::string::npos || colon == 0 || colon + 1 >= s.size())
    fail(origin, p.key + ".source",
         "must be '<source id>: <section>', 'derived: <formula>' or 'assumed: <why>', got '" + s + "'");
  std::string id = s.substr(0, colon);
  if (id == "derived" || id == "assumed") return;
  if (!sources.count(id)) {
    std::string known;
    for (const auto& [k, v] : sources) known += (known.empty() ? "" : ", ") + k;
    fail(origin, p.key + ".source",
         "unknown source id '" + id + "' (declared in \"sources\": " + known + ")");
  }
}

Parameter parseLeaf(const Json& j, const std::string& key, const ParamDecl* decl, std::string_view origin) {
  if (!j.is_object())
    fail(origin, key, "expected an object {value, unit, min, max, source, description}, got " + typeName(j));
  static const std::set<std::string, std::less<>> allowed = {"value",   "unit",   "min",        "max",
                                                             "integer", "source", "description"};
  for (auto it = j.begin(); it != j.end(); ++it)
    if (!allowed.count(it.key())) fail(origin, key + "." + it.key(), "unknown field");
  Parameter p;
  p.key = key;
  p.value = requireNumber(j, "value", key, origin);
  p.unit = requireString(j, "unit", key + ".unit", origin);
  p.min = requireNumber(j, "min", key, origin);
  p.max = requireNumber(j, "max", key, origin);
  p.source = requireString(j, "source", key + ".source", origin);
  p.description = requireString(j, "description", key + ".description", origin);
  const bool schemaIntegral = decl && decl->kind != ParamDecl::Kind::Real;
  p.integer = decl ? schemaIntegral : !realUnit(p.unit);
  if (auto it = j.find("integer"); it != j.end()) {
    if (!it->is_boolean()) fail(origin, key + ".integer", "expected a boolean, got " + typeName(*it));
    p.integer = it->get<bool>();
    if (schemaIntegral && !p.integer) fail(origin, key + ".integer", "this field must be integral");
  }
  checkValue(p, decl, origin);
  return p;
}

}  // namespace

// -------------------------------------------------------------------------------------------------------------------

Backend parseBackend(std::string_view jsonText, std::string_view origin, const ISchemaCatalog& catalog) {
  if (jsonText.find_first_not_of(" \t\r\n") == std::string_view::npos) fail(origin, "", "empty file");
  const Json root = parseJsonInput<Json>(jsonText, origin);
  if (!root.is_object()) fail(origin, "", "expected a JSON object at top level, got " + typeName(root));

  Backend b;
  b.file = std::string(origin);
  b.name = requireString(root, "name", "name", origin);
  for (char c : b.name)
    if (!(std::islower(static_cast<unsigned char>(c)) || std::isdigit(static_cast<unsigned char>(c)) ||
          c == '-' || c == '_'))
      fail(origin, "name", "must use lower-case letters, digits, '-' or '_', got '" + b.name + "'");
  b.family = requireString(root, "family", "family", origin);
  b.schema = catalog.schemaOf(b.family);
  if (!b.schema) {
    std::string known;
    for (const auto& f : catalog.families()) known += (known.empty() ? "" : ", ") + f;
    fail(origin, "family", "unknown hardware family '" + b.family + "' (known: " + known + ")");
  }
  const BackendSchema& schema = *b.schema;
  static const std::set<std::string, std::less<>> header = {"name", "family", "description", "sources"};
  auto declaredSection = [&](const std::string& name) {
    return std::find(schema.sections.begin(), schema.sections.end(), name) != schema.sections.end();
  };
  for (auto it = root.begin(); it != root.end(); ++it)
    if (!header.count(it.key()) && !declaredSection(it.key()) && !schema.extraSectionsOpen)
      fail(origin, it.key(), "unknown top-level section for family " + b.family);
  b.description = requireString(root, "description", "description", origin);

  auto sit = root.find("sources");
  if (sit == root.end()) fail(origin, "sources", "missing");
  if (!sit->is_object()) fail(origin, "sources", "expected an object {id: document}, got " + typeName(*sit));
  for (auto it = sit->begin(); it != sit->end(); ++it) {
    if (!it->is_string()) fail(origin, "sources." + it.key(), "expected a string, got " + typeName(*it));
    if (it.key() == "derived" || it.key() == "assumed")
      fail(origin, "sources." + it.key(), "reserved source id");
    b.sources[it.key()] = it->get<std::string>();
  }

  for (const auto& sec : schema.sections)
    if (!root.contains(sec)) fail(origin, sec, "missing");

  // Sections in file order, fields in file order.
  for (auto sec = root.begin(); sec != root.end(); ++sec) {
    const std::string& sname = sec.key();
    if (header.count(sname)) continue;
    if (!sec->is_object()) fail(origin, sname, "expected an object, got " + typeName(*sec));
    const bool open = schema.isOpenSection(sname) || !declaredSection(sname);
    for (auto f = sec->begin(); f != sec->end(); ++f) {
      const std::string key = sname + "." + f.key();
      if (!open && schema.isTextField(sname, f.key())) continue;
      const ParamDecl* decl = open ? nullptr : schema.find(key);
      if (!open && !decl) fail(origin, key, "unknown field");
      Parameter p = parseLeaf(*f, key, decl, origin);
      checkSource(p, b.sources, origin);
      b.parameters.push_back(std::move(p));
    }
  }
  for (const auto& decl : schema.params)
    if (decl.required && !b.param(decl.key)) fail(origin, decl.key, "missing");

  // Text fields.
  for (const auto& tf : schema.text) {
    const Json& sec = root[tf.section];
    const std::string path = tf.section + "." + tf.name;
    if (!tf.list) {
      std::string v = requireString(sec, tf.name, path, origin);
      if (path == "system.host") b.system.host = v;
      if (path == "group.level") b.group.level = v;
      b.textFields[path] = {std::move(v)};
      continue;
    }
    auto it = sec.find(tf.name);
    if (it == sec.end()) fail(origin, path, "missing");
    auto list = requireStringList(*it, path, origin);
    b.textFields[path] = list;
    if (path == "group.units") b.group.units = list;
    if (path == "core.ops") b.core.ops = list;
    if (path == "core.dtypes") {
      for (std::size_t i = 0; i < list.size(); ++i) {
        auto t = localParseDType(list[i]);
        if (!t)
          fail(origin, path + "[" + std::to_string(i) + "]",
               "unknown data type '" + list[i] + "' (f16, bf16, f32, f64, i8, i32, i64)");
        b.core.dtypes.push_back(*t);
      }
    }
  }

  if (schema.derive) schema.derive(b, origin);
  refreshViews(b, origin);
  checkProducts(b, origin);
  if (schema.crossCheck) schema.crossCheck(b, origin);
  return b;
}

Backend loadBackendFile(const std::string& path, const ISchemaCatalog& catalog) {
  return parseBackend(readInputFile(path, "backend file"), path, catalog);
}

const Parameter* Backend::param(std::string_view key) const {
  for (const auto& p : parameters)
    if (p.key == key) return &p;
  return nullptr;
}

int Backend::pimRanks() const {
  if (const Parameter* p = param("dram.pimRanks")) return static_cast<int>(p->value);
  return dram.ranks;
}

void Backend::setParameter(std::string_view key, double value) { setParameters({{std::string(key), value}}); }

void Backend::setParameters(const std::vector<std::pair<std::string, double>>& changes) {
  const std::string origin = file.empty() ? name : file;
  Backend copy = *this;
  for (const auto& [key, value] : changes) {
    Parameter* p = nullptr;
    for (auto& q : copy.parameters)
      if (q.key == key) p = &q;
    if (!p) fail(origin, key, "unknown parameter");
    p->value = value;
    checkValue(*p, schema ? schema->find(key) : nullptr, origin);
  }
  refreshViews(copy, origin);
  checkProducts(copy, origin);
  if (schema && schema->crossCheck) schema->crossCheck(copy, origin);
  *this = std::move(copy);
}

Backend Backend::withPseudoChannels(int pseudoChannels) const {
  const int perGroup = group.pseudoChannelsPerGroup;
  const int most = system.devices * dram.pseudoChannels;
  if (pseudoChannels < perGroup || pseudoChannels > most || pseudoChannels % perGroup != 0) {
    throw InputError("--channels: " + std::to_string(pseudoChannels) + " is not valid for " + name +
                     " (give " + std::to_string(perGroup) + ".." + std::to_string(most) +
                     " pseudo-channels in steps of " + std::to_string(perGroup) + ")");
  }
  Backend b = *this;
  b.setParameters({{"system.devices", 1},
                   {"dram.channels", pseudoChannels},
                   {"group.groupsPerDevice", pseudoChannels / perGroup}});
  return b;
}

bool Backend::supportsOp(std::string_view op) const {
  return std::find(core.ops.begin(), core.ops.end(), op) != core.ops.end();
}

bool Backend::hasUnit(std::string_view unit) const {
  return std::find(group.units.begin(), group.units.end(), unit) != group.units.end();
}

std::string Backend::hash() const {
  std::uint64_t h = 1469598103934665603ULL;  // FNV-1a 64
  auto feed = [&](std::string_view s) {
    for (unsigned char c : s) {
      h ^= c;
      h *= 1099511628211ULL;
    }
    h ^= 0xff;  // field separator
    h *= 1099511628211ULL;
  };
  feed(name);
  feed(family);
  for (const auto& p : parameters) {
    feed(p.key);
    feed(fmtNum(p.value));
  }
  // Capabilities change what can be compiled, so they are part of the identity too.
  feed(system.host);
  feed(group.level);
  for (const auto& u : group.units) feed("unit:" + u);
  for (const auto& o : core.ops) feed("op:" + o);
  for (auto t : core.dtypes) feed("dtype:" + localDTypeName(t));
  // Other families' text fields (the hierarchy file a pim-hierarchy backend names); the DCC levels' ones are
  // fed above, so their backends keep their hashes.
  static const std::set<std::string, std::less<>> typed = {"system.host", "group.level", "group.units",
                                                           "core.ops", "core.dtypes"};
  for (const auto& [path, values] : textFields) {
    if (typed.count(path)) continue;
    feed("text:" + path);
    for (const auto& v : values) feed(v);
  }
  char buf[17];
  std::snprintf(buf, sizeof buf, "%016llx", static_cast<unsigned long long>(h));
  return buf;
}

std::string Backend::toJson() const {
  Json root;
  root["name"] = name;
  root["family"] = family;
  root["description"] = description;
  Json src = Json::object();
  for (const auto& [k, v] : sources) src[k] = v;
  root["sources"] = src;
  if (schema)
    for (const auto& s : schema->sections) root[s] = Json::object();
  // The DCC levels' text fields from the typed views (code may have set them), any other from textFields;
  // only those the family declares, so that the file reads back.
  auto text = [&](const TextFieldDecl& f) -> Json {
    const std::string path = f.section + "." + f.name;
    if (path == "system.host") return system.host;
    if (path == "group.level") return group.level;
    if (path == "group.units") return group.units;
    if (path == "core.ops") return core.ops;
    if (path == "core.dtypes") {
      Json dts = Json::array();
      for (auto t : core.dtypes) dts.push_back(localDTypeName(t));
      return dts;
    }
    const auto it = textFields.find(path);
    const std::vector<std::string> none;
    const auto& v = it == textFields.end() ? none : it->second;
    if (f.list) return v;
    return v.empty() ? std::string() : v.front();
  };
  const BackendSchema fallback = dccLevelsSchema();  // a backend built in code has no schema
  for (const auto& f : (schema ? *schema : fallback).text) root[f.section][f.name] = text(f);
  for (const auto& p : parameters) {
    auto dot = p.key.find('.');
    std::string sec = p.key.substr(0, dot), field = p.key.substr(dot + 1);
    Json leaf;
    auto num = [](double v) -> Json {
      if (v == std::floor(v) && std::fabs(v) < 9.0e15) return static_cast<std::int64_t>(v);
      return v;
    };
    leaf["value"] = num(p.value);
    leaf["unit"] = p.unit;
    leaf["min"] = num(p.min);
    leaf["max"] = num(p.max);
    if (p.integer != !realUnit(p.unit)) leaf["integer"] = p.integer;
    leaf["source"] = p.source;
    leaf["description"] = p.description;
    root[sec][field] = leaf;
  }
  return dumpJson(root, 2) + "\n";
}

void BackendRegistry::add(Backend b) {
  for (const auto& x : m_backends)
    if (x.name == b.name)
      throw InputError((b.file.empty() ? b.name : b.file) + ": name: backend '" + b.name +
                       "' already registered" + (x.file.empty() ? "" : " from " + x.file));
  m_backends.push_back(std::move(b));
}

const Backend& BackendRegistry::get(std::string_view name) const {
  for (const auto& b : m_backends)
    if (b.name == name) return b;
  std::string known;
  for (const auto& b : m_backends) known += (known.empty() ? "" : ", ") + b.name;
  throw InputError("unknown backend '" + std::string(name) + "' (known: " + (known.empty() ? "none" : known) +
                   ")");
}

}  // namespace pim
