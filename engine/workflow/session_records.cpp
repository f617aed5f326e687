// SPDX-License-Identifier: Apache-2.0
#include "engine/workflow/session_records.h"

#include <bit>
#include <cstdint>

#include "engine/common/error.h"

namespace pim {
namespace {

void putVarint(std::string& out, std::uint64_t v) {
  while (v >= 0x80) {
    out.push_back(static_cast<char>((v & 0x7F) | 0x80));
    v >>= 7;
  }
  out.push_back(static_cast<char>(v));
}

/// Reads packed columns; throws InputError("<what>: ...") on malformed input (the caller adds the file).
class Unpacker {
 public:
  Unpacker(const std::string& bytes, const char* what) : m_b(bytes), m_what(what) {}
  bool done() const { return m_at == m_b.size(); }
  std::uint64_t varint() {
    std::uint64_t v = 0;
    for (int shift = 0; shift < 64; shift += 7) {
      const auto byte = static_cast<unsigned char>(next());
      v |= std::uint64_t{byte & 0x7Fu} << shift;
      if (!(byte & 0x80)) return v;
    }
    throw InputError(std::string(m_what) + ": malformed number");
  }
  double f64() {
    std::uint64_t u = 0;
    for (int i = 0; i < 8; ++i) u |= std::uint64_t{static_cast<unsigned char>(next())} << (8 * i);
    return std::bit_cast<double>(u);
  }

 private:
  char next() {
    if (m_at >= m_b.size()) throw InputError(std::string(m_what) + ": truncated");
    return m_b[m_at++];
  }
  const std::string& m_b;
  const char* m_what;
  std::size_t m_at = 0;
};

}  // namespace

std::string packIds(const std::vector<DraftRecord>& records) {
  std::string out;
  std::uint64_t prev = 0;
  for (const DraftRecord& r : records) {
    const auto delta = static_cast<std::int64_t>(r.draft.id - prev);  // modular: any order round-trips
    putVarint(out, (static_cast<std::uint64_t>(delta) << 1) ^ static_cast<std::uint64_t>(delta >> 63));
    prev = r.draft.id;
  }
  return out;
}

std::string packPredictions(const std::vector<DraftRecord>& records) {
  std::string out;
  std::size_t next = 0;  // the seq the next gap counts from
  for (std::size_t seq = 0; seq < records.size(); ++seq) {
    if (!records[seq].predictedNs) continue;
    putVarint(out, seq - next);
    next = seq + 1;
    const auto u = std::bit_cast<std::uint64_t>(*records[seq].predictedNs);
    for (int i = 0; i < 8; ++i) out.push_back(static_cast<char>((u >> (8 * i)) & 0xFF));
  }
  return out;
}

void unpackRecords(const std::string& ids, const std::string& predictions, std::vector<DraftRecord>& out) {
  Unpacker u(ids, "draft ids");
  std::uint64_t prev = 0;
  for (DraftRecord& r : out) {
    const std::uint64_t z = u.varint();
    r.draft.id = prev + ((z >> 1) ^ (~(z & 1) + 1));  // zigzag back to the modular delta
    prev = r.draft.id;
  }
  if (!u.done()) throw InputError("draft ids: more than the record count");
  Unpacker p(predictions, "predictions");
  std::uint64_t next = 0;
  while (!p.done()) {
    const std::uint64_t seq = next + p.varint();
    if (seq >= out.size()) throw InputError("predictions: record " + std::to_string(seq) + " does not exist");
    out[seq].predictedNs = p.f64();
    next = seq + 1;
  }
}

}  // namespace pim
