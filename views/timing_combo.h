// SPDX-License-Identifier: Apache-2.0
// The crossbar profiler's timing box (sim/crossbar/timing_model.h), in the control panel and the compile
// window: its items, and the mode it selects.
#pragma once
#include "sim/crossbar/timing_model.h"

class QComboBox;

namespace pimgui {

/// A box of the timing modes, PIMCOMP-NN's first (the default), each with its tooltip.
QComboBox* makeTimingCombo();
/// The mode `box` selects.
pim::xbar::TimingModel selectedTiming(const QComboBox* box);
/// Selects `m` in `box`.
void selectTiming(QComboBox* box, pim::xbar::TimingModel m);

}  // namespace pimgui
