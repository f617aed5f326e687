// SPDX-License-Identifier: Apache-2.0
// A compiled program written out as it is scheduled (`compile --dump-instructions FILE`): every instruction
// group, core by core, as text (one instruction per line) or as JSON (a file ending in .json). The writer is
// an IProgramSink, so a dump never holds the program in memory.
#pragma once
#include <fstream>
#include <string>

#include "sim/crossbar/xbar_program.h"

namespace pim::crossbar {

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
