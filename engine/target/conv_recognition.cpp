// SPDX-License-Identifier: Apache-2.0
#include "engine/target/conv_recognition.h"

#include <algorithm>
#include <optional>
#include <vector>

#include "engine/common/error.h"

namespace pim {
namespace {

namespace cm = convmap;

/// Operand positions of the statement: the product's two factors, then the target.
enum Operand : int { First = 0, Second, Target, kOperands };

struct Statement3 {
  std::array<const TensorRef*, kOperands> ref{};
};

std::string refused(const Kernel& k, const std::string& why) {
  return "kernel '" + k.name + "' is not a convolution or FC layer: " + why;
}

/// The statement as O += A * B, or why not.
std::variant<Statement3, std::string> productOf(const Kernel& k) {
  if (k.statements.size() != 1)
    return refused(k, std::to_string(k.statements.size()) + " statements (a layer is one: O += W * I)");
  const Statement& st = k.statements.front();
  if (!st.guards.empty()) return refused(k, "its statement is guarded (if ...)");
  if (st.op != AssignOp::Add) return refused(k, "its statement does not accumulate (+=)");
  const Expr& v = st.value;
  if (v.kind != Expr::Kind::Binary || v.op != "*" || v.args.size() != 2 ||
      v.args[0].kind != Expr::Kind::Ref || v.args[1].kind != Expr::Kind::Ref)
    return refused(k, "its right-hand side is not a product of two tensors");
  if (k.tensors.size() != 3)
    return refused(k,
                   std::to_string(k.tensors.size()) + " tensors (a layer has an input, a weight, an output)");
  Statement3 s;
  s.ref = {&v.args[0].ref, &v.args[1].ref, &st.target};
  if (s.ref[First]->tensor == s.ref[Second]->tensor) return refused(k, "it multiplies a tensor by itself");
  for (int o : {First, Second})
    if (k.tensors[static_cast<std::size_t>(s.ref[o]->tensor)].role != TensorRole::Input)
      return refused(
          k, "factor " + k.tensors[static_cast<std::size_t>(s.ref[o]->tensor)].name + " is not an input");
  for (std::size_t l = 0; l < k.loops.size(); ++l)
    if (!k.loops[l].lower.isConstant() || k.loops[l].lower.constant != 0)
      return refused(k, "loop " + k.loops[l].var + " does not start at 0");
  return s;
}

bool isPlain(const AffineExpr& e) { return e.terms.size() == 1 && e.terms[0].second == 1 && e.constant == 0; }
bool isWindow(const AffineExpr& e) {
  return e.terms.size() == 2 && e.constant == 0 && e.terms[0].second > 0 && e.terms[1].second > 0;
}
bool indexes(const TensorRef& r, int loop) {
  return std::any_of(r.index.begin(), r.index.end(), [&](const AffineExpr& e) {
    return std::any_of(e.terms.begin(), e.terms.end(), [&](const auto& t) { return t.first == loop; });
  });
}

/// What the recognition builds up: the pattern and each loop's dimension.
struct Reading {
  const Kernel& k;
  Statement3 s;
  int input = -1, weight = -1;  // operand positions
  ConvPattern p;
  std::vector<int> dimOf;  // per kernel loop, -1 until classified
  std::string why;         // set on the first refusal

  bool refuse(const std::string& reason) {
    if (why.empty()) why = refused(k, reason);
    return false;
  }
  std::string tensorName(int operand) const {
    return k.tensors[static_cast<std::size_t>(s.ref[operand]->tensor)].name;
  }
  std::string exprText(const AffineExpr& e) const { return e.str(k.loopVarNames()); }
  bool assign(int loop, int dim) {
    const int other = p.loop[dim];
    if (other >= 0 && other != loop)
      return refuse("loops " + k.loops[other].var + " and " + k.loops[loop].var + " would both be " +
                    std::string(cm::kDimNames[dim]));
    p.loop[dim] = loop;
    dimOf[static_cast<std::size_t>(loop)] = dim;
    return true;
  }
};

/// Which factor is the input: the one with a sliding-window index, else (FC) the one not declared resident,
/// else the second.
bool chooseInput(Reading& r) {
  std::array<bool, 2> window{};
  for (int o : {First, Second})
    for (const AffineExpr& e : r.s.ref[o]->index) {
      if (isWindow(e)) {
        window[o] = true;
      } else if (!isPlain(e)) {
        return r.refuse("index '" + r.exprText(e) + "' of " + r.tensorName(o) +
                        " is neither a loop nor a sliding window (stride * p + dilation * r)");
      }
    }
  for (const AffineExpr& e : r.s.ref[Target]->index)
    if (!isPlain(e)) return r.refuse("output index '" + r.exprText(e) + "' is not a plain loop");
  if (window[First] && window[Second]) return r.refuse("both factors have sliding-window indices");
  auto resident = [&](int o) { return r.k.tensors[static_cast<std::size_t>(r.s.ref[o]->tensor)].resident; };
  if (window[First] || window[Second])
    r.input = window[First] ? First : Second;
  else
    r.input = resident(First) != resident(Second) && resident(Second) ? First : Second;
  r.weight = r.input == First ? Second : First;
  return true;
}

/// The input's window indices: the last is the width (P with R), the one before the height (Q with S).
bool readWindows(Reading& r) {
  const auto& idx = r.s.ref[r.input]->index;
  int windows = 0;
  for (std::size_t i = idx.size(); i-- > 0;) {
    if (!isWindow(idx[i])) continue;
    if (i + 1 + static_cast<std::size_t>(windows) != idx.size())
      return r.refuse("the input's sliding windows must be its last indices (H, W)");
    if (++windows > 2) return r.refuse("the input has more than two sliding windows");
    const bool width = windows == 1;
    int out = -1, ker = -1;
    std::int64_t stride = 0, dil = 0;
    for (const auto& [loop, coeff] : idx[i].terms) {
      const bool inOut = indexes(*r.s.ref[Target], loop), inWeight = indexes(*r.s.ref[r.weight], loop);
      if (inOut && !inWeight) out = loop, stride = coeff;
      if (inWeight && !inOut) ker = loop, dil = coeff;
    }
    if (out < 0 || ker < 0)
      return r.refuse("window '" + r.exprText(idx[i]) + "' needs an output loop and a weight loop");
    if (!r.assign(out, width ? cm::P : cm::Q) || !r.assign(ker, width ? cm::R : cm::S)) return false;
    (width ? r.p.strideW : r.p.strideH) = stride;
    (width ? r.p.dilW : r.p.dilH) = dil;
  }
  return true;
}

/// The loops outside the windows, by the tensors they index: K weight and output, C input and weight, and
/// input-and-output loops by their place in the input: before C the batch N, after it Q then P.
bool readPlainLoops(Reading& r) {
  const TensorRef& in = *r.s.ref[r.input];
  std::vector<int> inOut;  // input-and-output loops, in the input's index order
  int channelAt = -1;
  for (std::size_t i = 0; i < in.index.size(); ++i) {
    if (!isPlain(in.index[i])) continue;
    const int loop = in.index[i].terms[0].first;
    if (indexes(*r.s.ref[r.weight], loop) && !indexes(*r.s.ref[Target], loop))
      channelAt = static_cast<int>(i);
  }
  for (const int loop : r.k.statements.front().loops) {
    if (r.dimOf[static_cast<std::size_t>(loop)] >= 0) continue;
    const bool i = indexes(in, loop), w = indexes(*r.s.ref[r.weight], loop),
               o = indexes(*r.s.ref[Target], loop);
    const std::string name = r.k.loops[static_cast<std::size_t>(loop)].var;
    if (i && w && o)
      return r.refuse("loop " + name +
                      " indexes the input, weight and output: a grouped or depthwise convolution, which PIM "
                      "Optimizer's model leaves out (pimopt 13.1)");
    if (w && o && !r.assign(loop, cm::K)) return false;
    if (i && w && !r.assign(loop, cm::C)) return false;
    if (i && o) inOut.push_back(loop);
    if (static_cast<int>(i) + static_cast<int>(w) + static_cast<int>(o) < 2)
      return r.refuse("loop " + name + " indexes only one tensor (" +
                      (i   ? "the input"
                       : w ? "the weight"
                       : o ? "the output"
                           : "none") +
                      ")");
  }
  std::vector<int> after;  // input-and-output loops after the channel index
  for (std::size_t i = 0; i < in.index.size(); ++i) {
    if (!isPlain(in.index[i])) continue;
    const int loop = in.index[i].terms[0].first;
    if (std::find(inOut.begin(), inOut.end(), loop) == inOut.end()) continue;
    if (channelAt >= 0 && static_cast<int>(i) > channelAt)
      after.push_back(loop);
    else if (!r.assign(loop, cm::N))
      return false;
  }
  if (after.size() > 2) return r.refuse("the input has more than two spatial indices after its channel");
  for (std::size_t j = 0; j < after.size(); ++j)
    if (!r.assign(after[after.size() - 1 - j], j == 0 ? cm::P : cm::Q)) return false;
  return true;
}

/// Each tensor's indices in the model's order (input N, C, H, W; weight K, C, S, R; output N, K, Q, P).
bool checkOrder(Reading& r) {
  auto rank = [&](int operand, const AffineExpr& e) {
    const int d = r.dimOf[static_cast<std::size_t>(e.terms[0].first)];
    if (operand == r.weight) return d == cm::K ? 0 : d == cm::C ? 1 : d == cm::S ? 2 : 3;
    if (operand == Target) return d == cm::N ? 0 : d == cm::K ? 1 : d == cm::Q ? 2 : 3;
    return d == cm::N ? 0 : d == cm::C ? 1 : (d == cm::Q || d == cm::S) ? 2 : 3;
  };
  static const char* kOrder[] = {"N, C, H, W", "K, C, S, R", "N, K, Q, P"};
  for (int o : {r.input, r.weight, static_cast<int>(Target)}) {
    int last = -1;
    const int role = o == r.input ? cm::Input : o == r.weight ? cm::Weight : cm::Output;
    for (const AffineExpr& e : r.s.ref[o]->index) {
      const int at = rank(o, e);
      r.p.indexDims[role].push_back(role == cm::Input && at >= 2
                                        ? (at == 2 ? cm::Q : cm::P)
                                        : r.dimOf[static_cast<std::size_t>(e.terms[0].first)]);
      if (at <= last)
        return r.refuse(r.tensorName(o) + "'s indices are not in the model's order " + kOrder[role] +
                        " (the row-activation model lays the " + std::string(cm::kTensorNames[role]) +
                        " out so)");
      last = at;
    }
  }
  return true;
}

}  // namespace

std::variant<ConvPattern, std::string> recogniseConv(const Kernel& k) {
  auto product = productOf(k);
  if (auto* why = std::get_if<std::string>(&product)) return *why;
  Reading r{k, std::get<Statement3>(product), -1, -1, {}, std::vector<int>(k.loops.size(), -1), {}};
  if (!chooseInput(r) || !readWindows(r) || !readPlainLoops(r)) return r.why;
  for (const int loop : k.statements.front().loops)
    if (r.dimOf[static_cast<std::size_t>(loop)] < 0)
      return refused(k, "loop " + k.loops[static_cast<std::size_t>(loop)].var + " has no role in a layer");
  if (!checkOrder(r)) return r.why;
  r.p.tensor = {r.s.ref[r.input]->tensor, r.s.ref[r.weight]->tensor, r.s.ref[Target]->tensor};
  return r.p;
}

convmap::ConvLayer convLayerOf(const Kernel& k, const ConvPattern& p, const Shape& s) {
  cm::ConvLayer layer;
  layer.name = k.name;
  for (int d = 0; d < cm::kDims; ++d)
    if (p.loop[d] >= 0) layer.bound[d] = loopBounds(k, p.loop[d], s).second;
  layer.strideW = p.strideW;
  layer.strideH = p.strideH;
  layer.dilW = p.dilW;
  layer.dilH = p.dilH;
  for (int t = 0; t < cm::kTensors; ++t)
    layer.elementBytes[t] =
        static_cast<std::int64_t>(dtypeBytes(k.tensors[static_cast<std::size_t>(p.tensor[t])].dtype));
  cm::validate(layer, "kernel " + k.name);
  // The model addresses each tensor at exactly the layer's extents (the input is the padded input): a
  // tensor declared larger or smaller would put its rows elsewhere.
  for (int t = 0; t < cm::kTensors; ++t) {
    const auto declared = tensorExtents(k, p.tensor[t], s);
    std::string want, have;
    for (std::size_t i = 0; i < declared.size(); ++i) {
      const int d = p.indexDims[t][i];
      const std::int64_t e = t != cm::Input ? layer.bound[d]
                             : d == cm::Q   ? layer.inputHeight()
                             : d == cm::P   ? layer.inputWidth()
                                            : layer.bound[d];
      want += "[" + std::to_string(e) + "]";
      have += "[" + std::to_string(declared[i]) + "]";
    }
    if (want != have)
      throw InputError(
          "kernel " + k.name + ": " + std::string(cm::kTensorNames[t]) + " " +
          k.tensors[static_cast<std::size_t>(p.tensor[t])].name + " is " + have + " at " + shapeString(k, s) +
          ", the layer's " + std::string(cm::kTensorNames[t]) + " is " + want +
          (t == cm::Input ? " (the padded input: stride * (P - 1) + dilation * (R - 1) + 1 wide)" : ""));
  }
  return layer;
}

}  // namespace pim
