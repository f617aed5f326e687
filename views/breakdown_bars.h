// SPDX-License-Identifier: Apache-2.0
// Which bars the breakdown shows: the vendor default (the speed-up reference), the selected drafts, the best
// draft found, and GPU-only execution as a single bar.
#pragma once
#include <QList>
#include <optional>
#include <vector>

#include "engine/search/baselines.h"
#include "views/breakdown_chart.h"

namespace pimgui {

class DraftTableModel;

inline constexpr int kMaxSelectedBars = 5;

std::vector<BreakdownBar> breakdownBars(const DraftTableModel& model, const QList<quint64>& selected,
                                        std::optional<quint64> best,
                                        const std::vector<pim::Baseline>& baselines,
                                        std::optional<int>* reference);

}  // namespace pimgui
