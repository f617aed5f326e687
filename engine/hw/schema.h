// SPDX-License-Identifier: Apache-2.0
// What a backend file of one hardware family must and may carry: the family's declared parameters (as
// Ramulator 2's implementations declare theirs), its sections, its text fields and the checks across fields.
// Each target owns its schema (engine/target/<family>/); the loader validates a file against the schema of
// the family it names.
#pragma once
#include <functional>
#include <string>
#include <string_view>
#include <vector>

namespace pim {

class Backend;

/// One numeric parameter a family's files must (or may) declare. Its value, unit, range, description and
/// source come from the file; the schema fixes what the value may be whatever the file says.
struct ParamDecl {
  enum class Kind : std::uint8_t { Integer, Real, Flag };  // Flag: 0 or 1
  std::string key;                                         // "<section>.<name>"
  Kind kind = Kind::Integer;
  double hardMin = 0;  // physical lower bound, independent of the file's declared range
  bool required = true;
};

/// A string or string-list field ("system.host", "core.ops").
struct TextFieldDecl {
  std::string section, name;
  bool list = false;
};

struct BackendSchema {
  /// Top-level sections a file must have, in the order files write them.
  std::vector<std::string> sections;
  std::vector<ParamDecl> params;
  /// Sections whose numeric keys the file declares itself (each still with unit, range and source): PIM
  /// command spacings, energies.
  std::vector<std::string> openSections;
  std::vector<TextFieldDecl> text;
  /// Throws InputError naming `origin` and the field when fields disagree with each other.
  std::function<void(const Backend&, std::string_view origin)> crossCheck;
  /// Whether a file may carry sections beyond `sections`, each open and optional: a family whose sections
  /// are named by its hardware (pim-hierarchy: one per memory level, named as the hierarchy names it).
  /// `derive` and `crossCheck` judge their keys.
  bool extraSectionsOpen = false;
  /// Completes a backend whose file refers to its numbers instead of declaring them (pim-hierarchy: the
  /// hierarchy file it names, so that the numbers live in one place): called once the file's own parameters
  /// and text fields are read, it adds every parameter the file does not give, each with its unit, range,
  /// description and source, and refuses (InputError naming `origin` and the field) what the file gives
  /// that it does not know.
  std::function<void(Backend&, std::string_view origin)> derive;

  const ParamDecl* find(std::string_view key) const;
  bool isOpenSection(std::string_view section) const;
  bool isTextField(std::string_view section, std::string_view name) const;
};

/// DCC's multi-layer abstraction (section 4.1), common to every family: the system, PIM group and PIM core
/// levels the draft space partitions over. A family's schema starts from it.
BackendSchema dccLevelsSchema();
/// The checks of the DCC levels alone (cores, data types, operations).
void checkDccLevels(const Backend& b, std::string_view origin);

/// Where the loader finds a family's schema: the target registry.
class ISchemaCatalog {
 public:
  virtual ~ISchemaCatalog() = default;
  /// nullptr when no target is registered for `family`.
  virtual const BackendSchema* schemaOf(std::string_view family) const = 0;
  virtual std::vector<std::string> families() const = 0;
};

}  // namespace pim
