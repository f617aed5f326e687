// SPDX-License-Identifier: Apache-2.0
// A compiled program written out as it is scheduled (`compile --dump-instructions FILE`): every instruction
// group, core by core, as text (one instruction per line) or as JSON (a file ending in .json). The writer is
// an IProgramSink, so a dump never holds the program in memory.
#pragma once
#include <cstddef>
#include <fstream>
#include <ostream>
#include <string>

#include "sim/crossbar/xbar_program.h"

namespace pim::crossbar {

/// Instruction group `index` as the text dump writes it: "IG <index>", then one line per instruction,
/// "  core <c>: MVMUL stage MAIN node 1 ag 0 crossbars 2", at most `maxLines` lines in all; returns the
/// lines written.
std::size_t writeGroupText(std::ostream& out, long long index, const xbar::InstructionGroup& ig,
                           std::size_t maxLines = static_cast<std::size_t>(-1));

/// The program as text in memory, its first `maxLines` lines (the details pane's listing); the groups after
/// those are counted, not kept.
class InstructionText final : public xbar::IProgramSink {
 public:
  explicit InstructionText(std::size_t maxLines) : m_maxLines(maxLines) {}
  bool group(const xbar::InstructionGroup& ig) override;
  std::string text() const;

 private:
  std::size_t m_maxLines, m_lines = 0;
  long long m_groups = 0, m_groupsShown = 0;
  std::string m_text;
};

class InstructionDump final : public xbar::IProgramSink {
 public:
  /// Opens `path` for writing (JSON when it ends in ".json"). Throws InputError naming the file when it
  /// cannot be created.
  explicit InstructionDump(std::string path);
  ~InstructionDump() override;
  bool group(const xbar::InstructionGroup& ig) override;
  /// Completes the file (the JSON's closing brackets) and checks it was all written: InputError naming the
  /// file otherwise (a full disk). Called by the destructor too, silently.
  void finish();

 private:
  void check();
  std::string m_path;
  std::ofstream m_out;
  bool m_json = false, m_finished = false;
  long long m_groups = 0;
};

}  // namespace pim::crossbar
