// SPDX-License-Identifier: Apache-2.0
#include "engine/codegen/host_layout.h"

#include <algorithm>
#include <numeric>

#include "engine/codegen/emit.h"

namespace pim {

std::int64_t hostBurstsInChannel(std::int64_t bursts, int channels, int channel) {
  return bursts / channels + (channel < bursts % channels ? 1 : 0);
}

std::int64_t hostBurstsInBank(std::int64_t channelBursts, int banks, int bank) {
  return channelBursts / banks + (bank < channelBursts % banks ? 1 : 0);
}

HostStream::HostStream(const sim::DeviceConfig& d, std::vector<std::int64_t> perTensor, std::uint32_t row)
    : m_d(d), m_perTensor(std::move(perTensor)), m_row(row) {
  const std::int64_t banks = d.banksPerChannel();
  std::int64_t stripes = 0;
  for (const std::int64_t n : m_perTensor) {
    m_stripeBase.push_back(stripes);
    stripes += (n + banks - 1) / banks;
    m_total += n;
  }
}

void HostStream::emit(sim::ProgramBuilder& out, sim::Op op, std::int64_t first, std::int64_t count) const {
  std::int64_t start = 0;  // first burst of tensor i in the region
  for (std::size_t i = 0; i < m_perTensor.size() && count > 0; ++i) {
    const std::int64_t n = m_perTensor[i];
    if (first < start + n) {
      const std::int64_t from = std::max<std::int64_t>(0, first - start);
      const std::int64_t take = std::min(n - from, count);
      emitTensor(out, op, m_stripeBase[i], from, take);
      count -= take;
      first = start + from + take;
    }
    start += n;
  }
}

void HostStream::emitTensor(sim::ProgramBuilder& out, sim::Op op, std::int64_t stripeBase, std::int64_t first,
                            std::int64_t count) const {
  const int banks = m_d.banksPerChannel();
  const std::int64_t end = first + count;
  auto range = [](int from, int to) {
    std::vector<int> v(static_cast<std::size_t>(to - from));
    std::iota(v.begin(), v.end(), from);
    return v;
  };
  // Burst k of the tensor sits in bank k % banks, stripeBase + k / banks bursts into the region.
  std::int64_t k = first;
  if (k % banks != 0) {  // the rest of a partly done stripe
    const std::int64_t stop = std::min(end, (k / banks + 1) * banks);
    emit::interleavedStream(out, m_d, op,
                            range(static_cast<int>(k % banks), static_cast<int>((stop - 1) % banks) + 1),
                            m_row, 1, stripeBase + k / banks);
    k = stop;
  }
  if (const std::int64_t full = (end - k) / banks; full > 0) {
    emit::interleavedStream(out, m_d, op, range(0, banks), m_row, full, stripeBase + k / banks);
    k += full * banks;
  }
  if (k < end)
    emit::interleavedStream(out, m_d, op, range(0, static_cast<int>(end - k)), m_row, 1,
                            stripeBase + k / banks);
}

}  // namespace pim
