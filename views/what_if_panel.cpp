// SPDX-License-Identifier: Apache-2.0
#include "views/what_if_panel.h"
#include "engine/target/registry.h"

#include <QDir>
#include <QDoubleSpinBox>
#include <QFileDialog>
#include <QFileInfo>
#include <QFormLayout>
#include <QGroupBox>
#include <QHBoxLayout>
#include <QLabel>
#include <QPushButton>
#include <QSaveFile>
#include <QScrollArea>
#include <QSignalBlocker>
#include <QTimer>
#include <QVBoxLayout>
#include <cmath>
#include <exception>

namespace pimgui {

namespace {
// The sections a what-if study varies; energies only scale the energy axis, so they stay out of the form.
const char* const kSections[] = {"system", "group", "core", "dram", "timing", "pim"};

// The spin box accepts anything representable so out-of-range input reaches the engine, which refuses it
// with its own message; clamping here would hide which limit was hit.
constexpr double kWide = 1e15;
}  // namespace

WhatIfPanel::WhatIfPanel(QWidget* parent) : QWidget(parent) {
  auto* top = new QVBoxLayout(this);
  m_title = new QLabel;
  m_title->setWordWrap(true);
  top->addWidget(m_title);
  m_message = new QLabel;
  m_message->setWordWrap(true);
  m_message->setObjectName(QStringLiteral("whatIfMessage"));
  top->addWidget(m_message);
  m_modelNote = new QLabel;
  m_modelNote->setWordWrap(true);
  m_modelNote->setObjectName(QStringLiteral("whatIfModelNote"));
  m_modelNote->setVisible(false);
  top->addWidget(m_modelNote);
  auto* buttons = new QHBoxLayout;
  m_reset = new QPushButton(tr("Reset"));
  m_save = new QPushButton(tr("Save as new backend…"));
  buttons->addWidget(m_reset);
  buttons->addWidget(m_save);
  top->addLayout(buttons);
  auto* scroll = new QScrollArea;
  scroll->setWidgetResizable(true);
  scroll->setHorizontalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
  m_form = new QWidget;
  m_formLayout = new QVBoxLayout(m_form);
  scroll->setWidget(m_form);
  top->addWidget(scroll, 1);

  m_debounce = new QTimer(this);
  m_debounce->setSingleShot(true);
  m_debounce->setInterval(300);
  connect(m_debounce, &QTimer::timeout, this,
          [this] { emit backendEdited(std::make_shared<const pim::Backend>(m_current)); });
  connect(m_reset, &QPushButton::clicked, this, &WhatIfPanel::reset);
  connect(m_save, &QPushButton::clicked, this, &WhatIfPanel::saveInteractive);
}

void WhatIfPanel::setDebounceMs(int ms) { m_debounce->setInterval(ms); }

void WhatIfPanel::setBackend(const pim::Backend& b) {
  m_debounce->stop();
  m_original = b;
  m_current = b;
  rebuild();
  showMessage({}, false);
}

void WhatIfPanel::setState(const pim::Backend& original, const pim::Backend& current) {
  m_debounce->stop();
  const bool sameForm =
      m_original.name == original.name && m_original.parameters.size() == original.parameters.size();
  m_original = original;
  m_current = current;
  if (!sameForm) rebuild();
  refreshValues();
  showMessage({}, false);
}

bool WhatIfPanel::modified() const {
  for (std::size_t i = 0; i < m_current.parameters.size(); ++i) {
    if (m_current.parameters[i].value != m_original.parameters[i].value) return true;
  }
  return false;
}

void WhatIfPanel::rebuild() {
  m_spins.clear();
  while (QLayoutItem* item = m_formLayout->takeAt(0)) {
    delete item->widget();
    delete item;
  }
  m_title->setText(tr("<b>%1</b> — edits apply to a copy and re-explore live")
                       .arg(QString::fromStdString(m_original.name)));
  for (const char* section : kSections) {
    const std::string prefix = std::string(section) + ".";
    auto* box = new QGroupBox(QString::fromLatin1(section));
    auto* form = new QFormLayout(box);
    form->setRowWrapPolicy(QFormLayout::WrapAllRows);  // name above, value full width: the dock is narrow
    for (const pim::Parameter& p : m_original.parameters) {
      if (p.key.rfind(prefix, 0) != 0) continue;
      auto* spin = new QDoubleSpinBox;
      spin->setObjectName(QString::fromStdString(p.key));
      spin->setRange(-kWide, kWide);
      spin->setDecimals(p.integer ? 0 : 3);
      // The wide range would make the size hint as wide as 16 digits; the dock is narrow, so size by layout.
      spin->setSizePolicy(QSizePolicy::Ignored, QSizePolicy::Fixed);
      spin->setMinimumWidth(90);
      spin->setKeyboardTracking(false);  // apply on Enter, focus-out or a step, not on every keystroke
      spin->setSuffix(p.unit.empty() || p.unit == "count" || p.unit == "bool"
                          ? QString()
                          : QStringLiteral(" ") + QString::fromStdString(p.unit));
      spin->setValue(p.value);
      spin->setToolTip(tr("%1\nvalid: %2 .. %3%4\nsource: %5")
                           .arg(QString::fromStdString(p.description))
                           .arg(p.min, 0, 'g', 12)
                           .arg(p.max, 0, 'g', 12)
                           .arg(p.integer ? tr(", integer") : QString())
                           .arg(QString::fromStdString(p.source)));
      const std::string key = p.key;
      connect(spin, &QDoubleSpinBox::valueChanged, this, [this, key](double v) { applyValue(key, v); });
      form->addRow(QString::fromStdString(p.key.substr(prefix.size())), spin);
      m_spins[p.key] = spin;
    }
    if (form->rowCount() == 0) {
      delete box;
      continue;
    }
    m_formLayout->addWidget(box);
  }
  m_formLayout->addStretch(1);
}

void WhatIfPanel::refreshValues() {
  for (const pim::Parameter& p : m_current.parameters) {
    auto it = m_spins.find(p.key);
    if (it == m_spins.end()) continue;
    const QSignalBlocker block(it->second);
    it->second->setValue(p.value);
    // Bold marks what differs from the shipped backend, so a study's changes stay visible while scrolling.
    const pim::Parameter* o = m_original.param(p.key);
    QFont f = it->second->font();
    f.setBold(o && o->value != p.value);
    it->second->setFont(f);
  }
}

bool WhatIfPanel::applyValue(const std::string& key, double value, QString* error) {
  const pim::Parameter* before = m_current.param(key);
  if (before && before->value == value) return true;
  try {
    pim::Backend trial = m_current;  // setParameters is transactional, the copy keeps the panel's state clean
    trial.setParameters({{key, value}});
    m_current = std::move(trial);
  } catch (const std::exception& e) {
    const QString msg = QString::fromStdString(e.what());
    if (error) *error = msg;
    showMessage(msg, true);
    refreshValues();  // the refused value goes, the previous one comes back
    return false;
  }
  refreshValues();
  showMessage(modified()
                  ? tr("%1 = %2; re-exploring…").arg(QString::fromStdString(key)).arg(value, 0, 'g', 12)
                  : tr("back to the shipped parameters"),
              false);
  m_debounce->start();
  return true;
}

void WhatIfPanel::reset() {
  m_current = m_original;
  refreshValues();
  showMessage(tr("reset to %1").arg(QString::fromStdString(m_original.name)), false);
  m_debounce->start();
}

bool WhatIfPanel::saveAs(const QString& path, QString* error) {
  auto fail = [&](const QString& msg) {
    if (error) *error = msg;
    showMessage(msg, true);
    return false;
  };
  pim::Backend out = m_current;
  out.name = QFileInfo(path).completeBaseName().toStdString();  // a new backend, not a second "hbm-pim"
  out.file = path.toStdString();
  // QSaveFile writes a temporary next to the target and renames it on commit: no half-written backend.
  QSaveFile f(path);
  const std::string json = out.toJson();
  if (!f.open(QIODevice::WriteOnly) || f.write(json.data(), static_cast<qint64>(json.size())) < 0 ||
      !f.commit()) {
    return fail(tr("cannot write %1: %2").arg(path, f.errorString()));
  }
  try {
    const pim::Backend back = pim::loadBackendFile(path.toStdString());
    if (back.parameters.size() != out.parameters.size())
      return fail(tr("%1: parameters lost on reload").arg(path));
    for (std::size_t i = 0; i < back.parameters.size(); ++i) {
      if (back.parameters[i].key != out.parameters[i].key ||
          back.parameters[i].value != out.parameters[i].value)
        return fail(tr("%1: %2 differs on reload").arg(path, QString::fromStdString(back.parameters[i].key)));
    }
  } catch (const std::exception& e) {
    return fail(QString::fromStdString(e.what()));
  }
  showMessage(tr("saved and validated %1").arg(QDir::toNativeSeparators(path)), false);
  return true;
}

void WhatIfPanel::saveInteractive() {
  const QString path = QFileDialog::getSaveFileName(
      this, tr("Save backend"), QString::fromStdString(m_original.name) + QStringLiteral("-whatif.json"),
      tr("Backends (*.json)"));
  if (!path.isEmpty()) saveAs(path);
}

QString WhatIfPanel::message() const { return m_message->text(); }

void WhatIfPanel::setModelNote(const QString& text) {
  m_modelNote->setText(text);
  m_modelNote->setVisible(!text.isEmpty());
}

QString WhatIfPanel::modelNote() const { return m_modelNote->text(); }

QDoubleSpinBox* WhatIfPanel::spinBox(const std::string& key) const {
  auto it = m_spins.find(key);
  return it == m_spins.end() ? nullptr : it->second;
}

void WhatIfPanel::showMessage(const QString& text, bool error) {
  m_message->setText(text);
  m_message->setVisible(!text.isEmpty());  // no blank gap above the buttons when there is nothing to say
  m_message->setStyleSheet(error ? QStringLiteral("color: #b00020;") : QString());
}

}  // namespace pimgui
