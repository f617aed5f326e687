// SPDX-License-Identifier: Apache-2.0
#include "engine/codegen/ir_text.h"

#include <sstream>

#include "engine/kernel/intrinsics.h"

namespace pim {
namespace {

std::string refText(const Kernel& k, const TensorRef& r, const std::string& suffix) {
  const auto names = k.loopVarNames();
  std::string out = k.tensors[r.tensor].name + suffix;
  for (const auto& e : r.index) out += "[" + e.str(names) + "]";
  return out;
}

std::string shapeText(const Kernel& k, int t, const std::vector<std::int64_t>& ext) {
  std::string out = "<";
  for (auto e : ext) out += std::to_string(e) + "x";
  return out + std::string(dtypeName(k.tensors[t].dtype)) + ">";
}

// Elides the middle of long per-core lists so the IR stays readable for 1024 cores.
template <typename Fn>
std::string listOf(std::size_t n, int maxListed, Fn&& item) {
  std::string out = "[";
  const std::size_t head = static_cast<std::size_t>(maxListed) / 2;
  for (std::size_t i = 0; i < n; ++i) {
    if (n > static_cast<std::size_t>(maxListed) && i == head) {
      out += ", ... (" + std::to_string(n - maxListed) + " more)";
      i = n - (maxListed - head) - 1;
      continue;
    }
    if (i) out += ", ";
    out += item(i);
  }
  return out + "]";
}

const char* opText(AssignOp op) {
  switch (op) {
    case AssignOp::Set:
      return "=";
    case AssignOp::Add:
      return "+=";
    case AssignOp::Max:
      return "max=";
    case AssignOp::Min:
      return "min=";
    case AssignOp::ArgMin:
      return "argmin=";
  }
  return "=";
}

}  // namespace

std::string exprText(const Kernel& k, const Expr& e, const std::string& suffix) {
  switch (e.kind) {
    case Expr::Kind::Const: {
      std::ostringstream os;
      os << e.value;
      return os.str();
    }
    case Expr::Kind::Ref:
      return refText(k, e.ref, suffix);
    case Expr::Kind::Unary:
      return e.op + exprText(k, e.args[0], suffix);
    case Expr::Kind::Binary:
      if (e.op == "max" || e.op == "min") {
        return e.op + "(" + exprText(k, e.args[0], suffix) + ", " + exprText(k, e.args[1], suffix) + ")";
      }
      return "(" + exprText(k, e.args[0], suffix) + " " + e.op + " " + exprText(k, e.args[1], suffix) + ")";
    case Expr::Kind::Call: {
      // As the DSL writes it: the value operands, the loop it runs along, then a constant (hist's range).
      std::string out = e.op + "(";
      const auto intrinsic = intrinsicNamed(e.op);
      const std::size_t values = intrinsic ? static_cast<std::size_t>(intrinsic->valueArgs) : e.args.size();
      std::size_t i = 0;
      for (; i < e.args.size() && i < values; ++i) out += (i ? ", " : "") + exprText(k, e.args[i], suffix);
      if (e.reduceVar >= 0) out += ", " + k.loops[e.reduceVar].var;
      for (; i < e.args.size(); ++i) out += ", " + exprText(k, e.args[i], suffix);
      return out + ")";
    }
  }
  return "?";
}

std::string statementText(const Kernel& k, const Statement& s, const std::string& suffix) {
  std::string value = exprText(k, s.value, suffix);
  if (value.size() > 1 && value.front() == '(' && value.back() == ')')
    value = value.substr(1, value.size() - 2);
  return refText(k, s.target, suffix) + " " + opText(s.op) + " " + value;
}

std::string irText(const DraftSpace& space, const TileMapping& m, int maxListed) {
  const Kernel& k = space.kernel();
  const auto& sets = space.sets();
  const auto names = k.loopVarNames();
  std::ostringstream os;
  os << "// draft " << m.draft.id << ": " << space.label(m.draft) << ", indexing strategy "
     << indexingName(m.indexing) << "\n";
  os << "@hardware_platform[" << m.groupsUsed << ", " << m.coresPerGroup << "]\n";

  // Signature: inputs as arguments, outputs as results.
  std::string args, results;
  for (std::size_t t = 0; t < k.tensors.size(); ++t) {
    if (k.tensors[t].role == TensorRole::Temp) continue;
    std::vector<std::int64_t> ext;
    for (const auto& ds : sets.sets) {
      for (const auto& d : ds.dims) {
        if (d.tensor == static_cast<int>(t)) {
          ext.resize(std::max<std::size_t>(ext.size(), d.axis + 1));
          ext[d.axis] = d.extent;
        }
      }
    }
    std::string& dst = k.tensors[t].role == TensorRole::Input ? args : results;
    if (!dst.empty()) dst += ", ";
    dst += "%" + k.tensors[t].name + ": " + shapeText(k, static_cast<int>(t), ext);
  }
  os << "func @" << k.name << "(" << args << ") -> (" << results << ") {\n";

  // Complex dimension sets with their mapping functions and representative.
  int dimId = 0;
  for (std::size_t s = 0; s < sets.sets.size(); ++s) {
    const auto& ds = sets.sets[s];
    const auto& rep = space.representative(static_cast<int>(s), m.draft.parts[s]);
    std::ostringstream body;
    std::string ids;
    for (const auto& d : ds.dims) {
      for (const auto& f : d.references) {
        if (!ids.empty()) ids += ", ";
        ids += "%dim[" + std::to_string(dimId) + "]";
        body << "    %dim[" << dimId << "] = %" << k.tensors[d.tensor].name << ".dim[" << d.axis << "] -> "
             << f.str(names);
        if (d.tensor == rep.tensor && d.axis == rep.axis && f == rep.fn) body << " [representative]";
        body << "\n";
        ++dimId;
      }
    }
    os << "  complex_dimset %ds" << s << " {" << ids << "} {\n" << body.str() << "  }\n";
    os << "  %ds" << s << ".range = (" << sets.loopLo[rep.var] << ", " << sets.loopHi[rep.var] << ", 1)\n";
  }

  // Data, compute and tensor tiles per part. Core order is group-major.
  for (std::size_t s = 0; s < sets.sets.size(); ++s) {
    const auto& p = m.draft.parts[s];
    const auto& rep = space.representative(static_cast<int>(s), p);
    os << "  data_tile %dt" << s << ": (" << p.groups << ", " << p.cores << ") -> (" << p.groups << ", "
       << p.cores << ", " << space.perCoreSize(static_cast<int>(s), p) << ")\n";
    os << "  compute_tile %ct" << s << ": (" << p.groups << ", " << p.cores << ", "
       << space.perCoreSize(static_cast<int>(s), p) << ") -> "
       << listOf(m.cores.size(), maxListed,
                 [&](std::size_t i) { return names[rep.var] + m.cores[i].computeTile[rep.var].str(); })
       << "\n";
  }
  for (std::size_t t = 0; t < k.tensors.size(); ++t) {
    os << "  tensor_tile %tt_" << k.tensors[t].name << ": (%ct) -> "
       << listOf(m.cores.size(), maxListed,
                 [&](std::size_t i) {
                   std::string out;
                   for (const auto& ax : m.cores[i].tensors[t].axes) out += "[" + ax.str() + "]";
                   return out.empty() ? std::string("scalar") : out;
                 })
       << "\n";
  }

  // Execution: input rearrangement, parallel compute over the compute tiles, output rearrangement.
  for (const auto& t : k.tensors) {
    if (t.role == TensorRole::Input) {
      os << "  %" << t.name << "_core = rearrange %" << t.name << " -> %tt_" << t.name << " [to_PIM_core]\n";
    }
  }
  os << "  parallel_PIM (" << m.groupsUsed << ", " << m.coresPerGroup << ") {\n";
  for (const auto& st : k.statements) {
    std::string vars, tiles;
    for (int l : st.loops) {
      if (!vars.empty()) {
        vars += ", ";
        tiles += ", ";
      }
      vars += names[l];
      int owner = -1;
      for (std::size_t s = 0; s < sets.sets.size(); ++s) {
        if (space.representative(static_cast<int>(s), m.draft.parts[s]).var == l) owner = static_cast<int>(s);
      }
      tiles += owner >= 0 ? "%ct" + std::to_string(owner)
                          : "[" + std::to_string(sets.loopLo[l]) + ":" + std::to_string(sets.loopHi[l]) + ")";
    }
    os << "    loop (" << vars << ") in (" << tiles << ") {\n";
    os << "      " << statementText(k, st, "_core") << "\n";
    os << "    }\n";
  }
  os << "  }\n";
  for (const auto& t : k.tensors) {
    if (t.role == TensorRole::Output) {
      os << "  %" << t.name << " = rearrange %" << t.name << "_core -> %tt_" << t.name << " [to_host]\n";
    }
  }
  os << "}\n";
  return os.str();
}

}  // namespace pim
