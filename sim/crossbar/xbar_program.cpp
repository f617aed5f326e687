// SPDX-License-Identifier: Apache-2.0
// Printable names of the crossbar program's opcodes and stages (issue 19; ../shared/specs/crossbar.md,
// "Pseudo-instructions"): the spellings PIMCOMP-NN's instruction dumps use.
#include "sim/crossbar/xbar_program.h"

namespace pim::xbar {

std::string_view opcodeName(Opcode op) {
  switch (op) {
    case Opcode::Mvmul:
      return "MVMUL";
    case Opcode::Vvadd:
      return "VVADD";
    case Opcode::Vvmax:
      return "VVMAX";
    case Opcode::Vrelu:
      return "VRELU";
    case Opcode::Vtanh:
      return "VTANH";
    case Opcode::Vsigmoid:
      return "VSIGMOID";
    case Opcode::Lmv:
      return "LMV";
    case Opcode::Lldi:
      return "LLDI";
    case Opcode::Ld:
      return "LD";
    case Opcode::St:
      return "ST";
    case Opcode::Send:
      return "SEND";
    case Opcode::Recv:
      return "RECV";
  }
  return "?";
}

std::string_view stageName(Stage s) {
  switch (s) {
    case Stage::Other:
      return "";
    case Stage::Main:
      return "MAIN";
    case Stage::MainA:
      return "MAIN-A";
    case Stage::MainB:
      return "MAIN-B";
    case Stage::MainC:
      return "MAIN-C";
    case Stage::Post:
      return "POST";
  }
  return "?";
}

}  // namespace pim::xbar
