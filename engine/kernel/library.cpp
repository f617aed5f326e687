// SPDX-License-Identifier: Apache-2.0
// Built-in kernels. Each DSL text below is also shipped as datasets/kernels/NAME.pim (a test keeps them
// equal).
#include "engine/kernel/library.h"

#include <algorithm>

#include "engine/common/error.h"
#include "engine/kernel/dsl.h"

namespace pim {

namespace {

constexpr const char* kConv2d = R"pim(# CONV2D: a convolution layer (stride 1) over the padded input
kernel conv2d(n = 1, k = 64, c = 64, p = 56, q = 56, r = 3, s = 3)
  doc "O[n][k][q][p] += W[k][c][s][r] * I[n][c][q+s][p+r]"
  input  W: f16[k][c][s][r] resident
  input  I: f16[n][c][q + s - 1][p + r - 1]
  output O: f16[n][k][q][p]
  for n < n, k < k, c < c, q < q, p < p, s < s, r < r: O[n][k][q][p] += W[k][c][s][r] * I[n][c][q+s][p+r]
end
)pim";

constexpr const char* kConv2dS2 = R"pim(# CONV2D_S2: a stride-2 convolution layer over the padded input
kernel conv2d_s2(n = 1, k = 128, c = 64, p = 28, q = 28, r = 3, s = 3)
  doc "O[n][k][q][p] += W[k][c][s][r] * I[n][c][2q+s][2p+r]"
  input  W: f16[k][c][s][r] resident
  input  I: f16[n][c][2*q + s - 2][2*p + r - 2]
  output O: f16[n][k][q][p]
  for n < n, k < k, c < c, q < q, p < p, s < s, r < r: O[n][k][q][p] += W[k][c][s][r] * I[n][c][2*q+s][2*p+r]
end
)pim";

constexpr const char* kFc = R"pim(# FC: a fully connected layer (a 1 x 1 convolution of a 1 x 1 input)
kernel fc(n = 1, k = 1000, c = 512)
  doc "O[n][k] += W[k][c] * I[n][c]"
  input  W: f16[k][c] resident
  input  I: f16[n][c]
  output O: f16[n][k]
  for n < n, k < k, c < c: O[n][k] += W[k][c] * I[n][c]
end
)pim";

constexpr const char* kGemv = R"pim(# GEMV: one matrix-vector product per batch row (DCC evaluation kernel)
kernel gemv(b = 1, out = 4096, in = 4096)
  doc "y[b][o] += W[o][i] * x[b][i]"
  input  W: f16[out][in] resident
  input  x: f16[b][in]
  output y: f16[b][out]
  for b < b, o < out, i < in: y[b][o] += W[o][i] * x[b][i]
end
)pim";

constexpr const char* kRed = R"pim(# RED: row reduction (sum of each batch row)
kernel red(b = 1, n = 4096)
  doc "y[b] += x[b][i]"
  input  x: f16[b][n]
  output y: f16[b]
  for b < b, i < n: y[b] += x[b][i]
end
)pim";

constexpr const char* kVa = R"pim(# VA: element-wise vector addition
kernel va(b = 1, n = 4096)
  doc "z[b][i] = x[b][i] + y[b][i]"
  input  x: f16[b][n]
  input  y: f16[b][n]
  output z: f16[b][n]
  for b < b, i < n: z[b][i] = x[b][i] + y[b][i]
end
)pim";

constexpr const char* kMul = R"pim(# MUL: element-wise vector multiplication
kernel mul(b = 1, n = 4096)
  doc "z[b][i] = x[b][i] * y[b][i]"
  input  x: f16[b][n]
  input  y: f16[b][n]
  output z: f16[b][n]
  for b < b, i < n: z[b][i] = x[b][i] * y[b][i]
end
)pim";

constexpr const char* kGeva = R"pim(# GEVA: scaled vector addition with scalar coefficients c and d
kernel geva(b = 1, n = 4096)
  doc "z[b][i] = c * x[b][i] + d * y[b][i]"
  input  c: f16
  input  d: f16
  input  x: f16[b][n]
  input  y: f16[b][n]
  output z: f16[b][n]
  for b < b, i < n: z[b][i] = c * x[b][i] + d * y[b][i]
end
)pim";

constexpr const char* kRelu = R"pim(# RELU: element-wise rectified linear unit
kernel relu(b = 1, n = 4096)
  doc "y[b][i] = relu(x[b][i])"
  input  x: f16[b][n]
  output y: f16[b][n]
  for b < b, i < n: y[b][i] = relu(x[b][i])
end
)pim";

constexpr const char* kAttn = R"pim(# ATTN: decode-phase attention, one query token per head
kernel attn(b = 1, h = 32, l = 2048, d = 128)
  doc "o = softmax(K q) V per batch and head"
  input  q: f16[b][h][d]
  input  K: f16[b][h][l][d] resident
  input  V: f16[b][h][l][d] resident
  temp   s: f16[b][h][l]
  temp   p: f16[b][h][l]
  output o: f16[b][h][d]
  # scores s = K q
  for x < b, y < h, t < l, e < d: s[x][y][t] += K[x][y][t][e] * q[x][y][e]
  # probabilities over the sequence
  for x < b, y < h, t < l: p[x][y][t] = softmax(s[x][y][t], t)
  # output o = V^T p
  for x < b, y < h, e < d, t < l: o[x][y][e] += V[x][y][t][e] * p[x][y][t]
end
)pim";

// Sequences and K/V heads are one dimension `h` (their instances are independent): four dimension sets, as
// attn has, which the DRAM-PIM predictor's per-part features describe (kMaxParts); with b and h apart the
// fifth part went unseen and the attacc model's predictions were 13x off.
constexpr const char* kAttnGqa =
    R"pim(# ATTN_GQA: decode-phase grouped-query attention, one query token per query head
kernel attn_gqa(h = 8, g = 4, l = 2048, d = 128)
  doc "o = softmax(K q) V per K/V head h (of every sequence) and query head g of its group"
  input  q: f16[h][g][d]
  input  K: f16[h][l][d] resident
  input  V: f16[h][l][d] resident
  temp   s: f16[h][g][l]
  temp   p: f16[h][g][l]
  output o: f16[h][g][d]
  # scores s = K q: the g query heads of a group share their K/V head's K
  for y < h, z < g, t < l, e < d: s[y][z][t] += K[y][t][e] * q[y][z][e]
  # probabilities over the sequence
  for y < h, z < g, t < l: p[y][z][t] = softmax(s[y][z][t], t)
  # output o = V^T p
  for y < h, z < g, e < d, t < l: o[y][z][e] += V[y][t][e] * p[y][z][t]
end
)pim";

constexpr const char* kTtv = R"pim(# TTV: tensor-times-vector along the last mode
kernel ttv(i = 64, j = 64, k = 64)
  doc "y[i][j] += A[i][j][k] * x[k]"
  input  A: f16[i][j][k]
  input  x: f16[k]
  output y: f16[i][j]
  for i < i, j < j, k < k: y[i][j] += A[i][j][k] * x[k]
end
)pim";

constexpr const char* kMmtv = R"pim(# MMTV: batched matrix-times-vector (one vector per batch entry i)
kernel mmtv(i = 32, j = 128, k = 128)
  doc "y[i][j] += A[i][j][k] * x[i][k]"
  input  A: f16[i][j][k] resident
  input  x: f16[i][k]
  output y: f16[i][j]
  for i < i, j < j, k < k: y[i][j] += A[i][j][k] * x[i][k]
end
)pim";

constexpr const char* kGemm = R"pim(# GEMM: matrix-matrix product
kernel gemm(m = 512, n = 512, k = 512)
  doc "C[m][n] += A[m][k] * B[k][n]"
  input  A: f16[m][k]
  input  B: f16[k][n]
  output C: f16[m][n]
  for m < m, n < n, k < k: C[m][n] += A[m][k] * B[k][n]
end
)pim";

constexpr const char* kSel =
    R"pim(# SEL (PrIM): keeps the odd values of x, packed in order at the start of y (a filtered append)
kernel sel(n = 4096)
  doc "y = the odd values of x, in order"
  input  x: i64[n]
  output y: i64[n]
  for i < n: y[i] = select(x[i], i)
end
)pim";

constexpr const char* kUni =
    R"pim(# UNI (PrIM): drops the values equal to the one before them, packed in order at the start of y
kernel uni(n = 4096)
  doc "y = x without consecutive duplicates"
  input  x: i64[n]
  output y: i64[n]
  for i < n: y[i] = unique(x[i], i)
end
)pim";

constexpr const char* kHst =
    R"pim(# HST (PrIM HST-S): histogram of 12-bit values into `bins` bins (one counter incremented per value)
kernel hst(n = 4096, bins = 256)
  doc "h[k] = number of x[i] with x[i] * bins / 4096 = k"
  input  x: i32[n]
  output h: i32[bins]
  for i < n, k < bins: h[k] += hist(x[i], k, 4096)
end
)pim";

constexpr const char* kScan = R"pim(# SCAN (PrIM SCAN-SSA): inclusive prefix sum
kernel scan(n = 4096)
  doc "y[i] = x[0] + ... + x[i]"
  input  x: i64[n]
  output y: i64[n]
  for i < n: y[i] = prefix(x[i], i)
end
)pim";

constexpr const char* kBs =
    R"pim(# BS (PrIM): the position of each key in the sorted array a (-1 where absent), by bisection
kernel bs(q = 256, n = 4096)
  doc "y[x] = j where a[j] = keys[x], else -1 (a sorted)"
  input  a: i64[n]
  input  keys: i64[q]
  output y: i64[q]
  for x < q, j < n: y[x] max= search(a[j], keys[x], j)
end
)pim";

constexpr const char* kTs =
    R"pim(# TS (PrIM): where a query of length m best matches a time series, by z-normalised Euclidean distance. PrIM's
# host precomputes every subsequence's mean and deviation (mu, sigma: its AMean and ASigma) and passes the
# query's length, mean and deviation as DPU arguments (qs = m, m x the query's mean, the query's deviation);
# each tasklet keeps its least distance and where it lies, and the host picks the least of them.
kernel ts(n = 4096, m = 256)
  doc "dist[i] = 2 (m - (t[i:i+m] . q - m mu[i] mu_q) / (sigma[i] sigma_q)); best = min dist, pos = argmin dist"
  input  t: i32[n + m - 1]
  input  q: i32[m]
  input  mu: i32[n]
  input  sigma: i32[n]
  input  qs: i32[3]
  temp   dot: i32[n]
  temp   dist: i32[n]
  output best: i32[1]
  output pos: i32[1]
  for i < n, j < m: dot[i] += t[i + j] * q[j]
  for i < n: dist[i] = 2 * (qs[0] - (dot[i] - qs[1] * mu[i]) / (sigma[i] * qs[2]))
  for i < n: best[0] min= dist[i]
  for i < n: pos[0] argmin= dist[i]
end
)pim";

}  // namespace

void registerBuiltinKernels(KernelLibrary& lib) {
  lib.add({"gemv", "matrix-vector product y[b] = W x[b]", kGemv});
  lib.add({"red", "row reduction y[b] = sum_i x[b][i]", kRed});
  lib.add({"va", "element-wise vector addition z = x + y", kVa});
  lib.add({"mul", "element-wise vector multiplication z = x * y", kMul});
  lib.add({"geva", "scaled vector addition z = c*x + d*y (scalars c, d)", kGeva});
  lib.add({"relu", "element-wise ReLU y = max(x, 0)", kRelu});
  lib.add({"attn", "decode attention o = softmax(K q) V per head", kAttn});
  lib.add({"attn_gqa", "decode grouped-query attention: g query heads share each K/V head", kAttnGqa});
  lib.add({"ttv", "tensor-times-vector y[i][j] = sum_k A[i][j][k] x[k]", kTtv});
  lib.add({"mmtv", "batched matrix-times-vector y[i][j] = sum_k A[i][j][k] x[i][k]", kMmtv});
  lib.add({"gemm", "matrix-matrix product C = A B", kGemm});
  // Conv layers (the pim-hierarchy family maps them; docs/convmap.md).
  lib.add({"conv2d", "convolution layer O = W * I (stride 1)", kConv2d});
  lib.add({"conv2d_s2", "convolution layer O = W * I of stride 2", kConv2dS2});
  lib.add({"fc", "fully connected layer O[n] = W I[n]", kFc});
  // PrIM's data-dependent kernels (intrinsics.h): UPMEM only.
  lib.add({"sel", "select (PrIM SEL): the odd values of x, packed in order", kSel});
  lib.add({"uni", "unique (PrIM UNI): x without consecutive duplicates", kUni});
  lib.add({"hst", "histogram (PrIM HST-S) of 12-bit values", kHst});
  lib.add({"scan", "inclusive prefix sum (PrIM SCAN-SSA)", kScan});
  lib.add({"bs", "binary search (PrIM BS) of keys in a sorted array", kBs});
  lib.add({"ts", "time-series match (PrIM TS): a query's least z-normalised distance and its position", kTs});
}

const KernelLibrary& KernelLibrary::builtin() {
  static const KernelLibrary lib = [] {
    KernelLibrary l;
    registerBuiltinKernels(l);
    return l;
  }();
  return lib;
}

void KernelLibrary::add(LibraryKernel k) {
  const bool exists = std::any_of(m_entries.begin(), m_entries.end(),
                                  [&](const LibraryKernel& e) { return e.name == k.name; });
  if (exists) throw InputError("kernel library: kernel '" + k.name + "' is registered twice");
  m_entries.push_back(std::move(k));
}

Kernel KernelLibrary::get(std::string_view name) const {
  for (const auto& e : m_entries) {
    if (e.name == name) return parseKernel(e.dsl, "<library:" + e.name + ">");
  }
  std::string known;
  for (const auto& e : m_entries) known += (known.empty() ? "" : ", ") + e.name;
  throw InputError("unknown kernel '" + std::string(name) +
                   "' (known kernels: " + (known.empty() ? "none" : known) + ")");
}

std::string libraryKernelOf(const Kernel& k) {
  static const std::vector<Kernel> parsed = [] {
    std::vector<Kernel> v;
    for (const auto& e : KernelLibrary::builtin().entries())
      v.push_back(KernelLibrary::builtin().get(e.name));
    return v;
  }();
  // A library kernel retyped (--dtype, a suite's types) is still that kernel: compared in k's element type.
  const std::optional<DType> type = k.tensors.empty() ? std::nullopt : std::optional(k.tensors.front().dtype);
  for (const Kernel& lib : parsed)
    if (sameComputation(lib, k) || (type && sameComputation(retyped(lib, *type), k))) return lib.name;
  return "";
}

}  // namespace pim
