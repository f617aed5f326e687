// SPDX-License-Identifier: Apache-2.0
#include "engine/crossbar/instruction_dump.h"

#include <sstream>

#include "engine/common/error.h"

namespace pim::crossbar {
namespace {

void writeText(std::ostream& out, const xbar::Instruction& i) {
  out << xbar::opcodeName(i.op);
  if (i.stage != xbar::Stage::Other) out << " stage " << xbar::stageName(i.stage);
  if (i.node >= 0) out << " node " << i.node;
  if (i.op == xbar::Opcode::Mvmul) out << " ag " << i.ag << " crossbars " << i.crossbars;
  if (i.op != xbar::Opcode::Mvmul) out << " elements " << i.elements;
  if (i.op == xbar::Opcode::Send) out << " to core " << i.peer << " comm " << i.comm;
  if (i.op == xbar::Opcode::Recv) out << " from core " << i.peer << " comm " << i.comm;
  if (i.globalWrite >= 0) out << " write " << i.globalWrite;
}

void writeJson(std::ostream& out, const xbar::Instruction& i) {
  out << "{\"op\":\"" << xbar::opcodeName(i.op) << '"';
  if (i.stage != xbar::Stage::Other) out << ",\"stage\":\"" << xbar::stageName(i.stage) << '"';
  out << ",\"node\":" << i.node;
  if (i.op == xbar::Opcode::Mvmul) out << ",\"ag\":" << i.ag << ",\"crossbars\":" << i.crossbars;
  if (i.op != xbar::Opcode::Mvmul) out << ",\"elements\":" << i.elements;
  if (i.op == xbar::Opcode::Send || i.op == xbar::Opcode::Recv)
    out << ",\"peer\":" << i.peer << ",\"comm\":" << i.comm;
  if (i.globalWrite >= 0) out << ",\"write\":" << i.globalWrite;
  out << '}';
}

}  // namespace

std::size_t writeGroupText(std::ostream& out, long long index, const xbar::InstructionGroup& ig,
                           std::size_t maxLines) {
  std::size_t lines = 0;
  if (lines == maxLines) return lines;
  out << "IG " << index << '\n';
  ++lines;
  for (std::size_t c = 0; c < ig.cores.size(); ++c)
    for (const xbar::Instruction& i : ig.cores[c]) {
      if (lines == maxLines) return lines;
      out << "  core " << c << ": ";
      writeText(out, i);
      out << '\n';
      ++lines;
    }
  return lines;
}

bool InstructionText::group(const xbar::InstructionGroup& ig) {
  if (m_lines < m_maxLines) {
    std::ostringstream s;
    m_lines += writeGroupText(s, m_groups, ig, m_maxLines - m_lines);
    m_text += s.str();
    ++m_groupsShown;
  }
  ++m_groups;
  return true;
}

std::string InstructionText::text() const {
  if (m_groupsShown == m_groups) return m_text;
  return m_text + "... (" + std::to_string(m_groups - m_groupsShown) + " more instruction groups)\n";
}

InstructionDump::InstructionDump(std::string path) : m_path(std::move(path)) {
  m_json = m_path.size() >= 5 && m_path.compare(m_path.size() - 5, 5, ".json") == 0;
  m_out.open(m_path, std::ios::out | std::ios::trunc);
  if (!m_out) throw InputError(m_path + ": cannot create the instruction dump");
  if (m_json) m_out << "{\"instruction_groups\":[";
}

InstructionDump::~InstructionDump() {
  try {
    finish();
  } catch (const InputError&) {  // reported by an explicit finish(); a destructor must not throw
  }
}

bool InstructionDump::group(const xbar::InstructionGroup& ig) {
  if (m_json) {
    m_out << (m_groups ? ",\n" : "\n") << "{\"index\":" << m_groups << ",\"cores\":[";
    bool firstCore = true;
    for (std::size_t c = 0; c < ig.cores.size(); ++c) {
      if (ig.cores[c].empty()) continue;
      m_out << (firstCore ? "" : ",") << "{\"core\":" << c << ",\"instructions\":[";
      firstCore = false;
      for (std::size_t k = 0; k < ig.cores[c].size(); ++k) {
        if (k) m_out << ',';
        writeJson(m_out, ig.cores[c][k]);
      }
      m_out << "]}";
    }
    m_out << "]}";
  } else {
    writeGroupText(m_out, m_groups, ig);
  }
  ++m_groups;
  check();
  return true;
}

void InstructionDump::finish() {
  if (m_finished) return;
  m_finished = true;
  if (m_json) m_out << "\n]}\n";
  m_out.flush();
  check();
  m_out.close();
}

void InstructionDump::check() {
  if (!m_out) throw InputError(m_path + ": writing the instruction dump failed (is the disk full?)");
}

}  // namespace pim::crossbar
