// SPDX-License-Identifier: Apache-2.0
// The canonical form of what a kernel computes, hashed: stored results are keyed by it rather than by the
// kernel's name, so a DSL kernel named like a library kernel is never served the library kernel's results.
#include <cstdio>

#include "engine/common/sha256.h"
#include "engine/kernel/kernel.h"

namespace pim {
namespace {

// Every field is written with its length or in a fixed form, so two different IRs never print the same text.
class Canon {
 public:
  Canon& word(std::string_view s) {
    m_out += std::to_string(s.size()) + ':';
    m_out += s;
    return *this;
  }
  Canon& num(std::int64_t v) {
    m_out += std::to_string(v) + ';';
    return *this;
  }
  Canon& real(double v) {  // hex float: exact, locale-free
    char buf[64];
    std::snprintf(buf, sizeof buf, "%a;", v);
    m_out += buf;
    return *this;
  }
  Canon& affine(const AffineExpr& e) {
    num(static_cast<std::int64_t>(e.terms.size()));
    for (const auto& [var, coeff] : e.terms) num(var).num(coeff);
    return num(e.constant);
  }
  Canon& ref(const TensorRef& r) {
    num(r.tensor).num(static_cast<std::int64_t>(r.index.size()));
    for (const auto& e : r.index) affine(e);
    return *this;
  }
  Canon& expr(const Expr& e) {  // value trees are at most kMaxDslNesting deep (the parser refuses more)
    num(static_cast<int>(e.kind)).real(e.value).word(e.op).num(e.reduceVar);
    if (e.kind == Expr::Kind::Ref) ref(e.ref);
    num(static_cast<std::int64_t>(e.args.size()));
    for (const auto& a : e.args) expr(a);
    return *this;
  }
  const std::string& text() const { return m_out; }

 private:
  std::string m_out;
};

}  // namespace

std::string computationHash(const Kernel& k) {
  Canon c;
  c.word("pimscope-kernel-ir-1").num(static_cast<std::int64_t>(k.dims.size()));
  for (const auto& d : k.dims) c.word(d);
  c.num(static_cast<std::int64_t>(k.tensors.size()));
  for (const auto& t : k.tensors) {
    c.word(t.name).num(static_cast<int>(t.dtype)).num(static_cast<int>(t.role));
    c.num(static_cast<std::int64_t>(t.shape.size()));
    for (const auto& e : t.shape) c.affine(e);
  }
  c.num(static_cast<std::int64_t>(k.loops.size()));
  for (const auto& l : k.loops) c.word(l.var).affine(l.lower).affine(l.upper);
  c.num(static_cast<std::int64_t>(k.statements.size()));
  for (const auto& st : k.statements) {
    c.num(static_cast<std::int64_t>(st.loops.size()));
    for (int l : st.loops) c.num(l);
    c.ref(st.target).num(static_cast<int>(st.op)).expr(st.value);
    c.num(static_cast<std::int64_t>(st.guards.size()));
    for (const auto& g : st.guards) c.affine(g.lhs).num(static_cast<int>(g.op)).affine(g.rhs);
  }
  return "ir1:" + sha256Hex(c.text());
}

}  // namespace pim
