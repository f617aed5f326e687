// SPDX-License-Identifier: Apache-2.0
// The compact encoding of a session's draft records: a predictor run keeps ~10^5 records that are only an id
// and maybe a prediction, so they are two packed columns instead of a row each (session_file.cpp): ids as
// zigzag varint deltas in record order, predictions as a varint record gap and a little-endian IEEE double.
#pragma once
#include <string>
#include <vector>

#include "engine/search/explorer.h"

namespace pim {

/// The records' draft ids, in record order (any order round-trips).
std::string packIds(const std::vector<DraftRecord>& records);
/// The predictions of the records that have one.
std::string packPredictions(const std::vector<DraftRecord>& records);
/// Fills the ids and predictions of `out` (sized to the record count) back. Throws InputError "draft ids:
/// ..." or "predictions: ..." for malformed or truncated columns (the caller adds the file).
void unpackRecords(const std::string& ids, const std::string& predictions, std::vector<DraftRecord>& out);

}  // namespace pim
