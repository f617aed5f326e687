// SPDX-License-Identifier: Apache-2.0
#include "views/timing_combo.h"

#include <QComboBox>
#include <algorithm>
#include <string>

namespace pimgui {

namespace {
QString nameOf(pim::xbar::TimingModel m) { return QString::fromStdString(std::string(timingModelName(m))); }
}  // namespace

QComboBox* makeTimingCombo() {
  using pim::xbar::TimingModel;
  auto* box = new QComboBox;
  box->addItem(QObject::tr("PIMCOMP-NN (800 ns MVM)"), nameOf(TimingModel::PimcompNn));
  box->setItemData(0,
                   QObject::tr("PIMCOMP-NN's profiler as implemented: 800 ns per MVM and chips of 144 cores "
                               "whatever the layout (what its published figures use)"),
                   Qt::ToolTipRole);
  box->addItem(QObject::tr("Intended (paper's MVM)"), nameOf(TimingModel::Intended));
  box->setItemData(1,
                   QObject::tr("The paper's intent: the MVM from its read, per-bit, ADC, shift-and-add and "
                               "write times, chips as configured, the core's execution patterns as set"),
                   Qt::ToolTipRole);
  return box;
}

pim::xbar::TimingModel selectedTiming(const QComboBox* box) {
  return pim::xbar::parseTimingModel(box->currentData().toString().toStdString())
      .value_or(pim::xbar::TimingModel::PimcompNn);
}

void selectTiming(QComboBox* box, pim::xbar::TimingModel m) {
  box->setCurrentIndex(std::max(0, box->findData(nameOf(m))));
}

}  // namespace pimgui
