// SPDX-License-Identifier: Apache-2.0
#include "views/what_if_panel.h"

#include "engine/target/registry.h"
#include "views/export_paths.h"

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
#include <algorithm>
#include <cmath>
#include <exception>

namespace pimgui {

namespace {
// The sections a what-if study varies; energies only scale the energy axis, so they stay out of the form.
const char* const kSections[] = {"system", "group", "core", "dram", "timing", "pim"};

// The form's sections: the DCC levels and DRAM-PIM ones in their usual order, then a family's own in file
// order (a pim-hierarchy's array, timing and memory levels); energies stay off the form.
std::vector<std::string> sectionsOf(const pim::Backend& b) {
  std::vector<std::string> out(std::begin(kSections), std::end(kSections));
  for (const pim::Parameter& p : b.parameters) {
    const std::string section = p.key.substr(0, p.key.find('.'));
    if (section != "energy" && std::find(out.begin(), out.end(), section) == out.end())
      out.push_back(section);
  }
  return out;
}

// The spin box accepts anything representable so out-of-range input reaches the engine, which refuses it
// with its own message; clamping here would hide which limit was hit.
constexpr double kWide = 1e15;
}  // namespace

QString parameterTooltip(const pim::Backend& b, const pim::Parameter& p, const QString& unread) {
  QStringList lines;
  if (!unread.isEmpty()) lines << QObject::tr("Not offered: %1.").arg(unread) << QString();
  lines << QString::fromStdString(p.description);
  const QString unit = p.unit.empty() ? QObject::tr("none") : QString::fromStdString(p.unit);
  lines << QObject::tr("unit: %1").arg(unit);
  lines << QObject::tr("valid: %1 .. %2%3")
               .arg(p.min, 0, 'g', 12)
               .arg(p.max, 0, 'g', 12)
               .arg(p.integer ? QObject::tr(", integer") : QString());
  lines << QObject::tr("source: %1").arg(QString::fromStdString(p.source));
  for (const auto& [id, document] : b.sources)
    if (p.source.find(id + ":") != std::string::npos)
      lines << QStringLiteral("  %1 = %2").arg(QString::fromStdString(id), QString::fromStdString(document));
  return lines.join(QLatin1Char('\n'));
}

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
  m_pending.clear();
  m_original = b;
  m_current = b;
  rebuild();
  showMessage({}, false);
}

void WhatIfPanel::setState(const pim::Backend& original, const pim::Backend& current) {
  m_debounce->stop();
  m_pending.clear();
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
  m_labels.clear();
  while (QLayoutItem* item = m_formLayout->takeAt(0)) {
    delete item->widget();
    delete item;
  }
  m_title->setText(tr("<b>%1</b> — edits apply to a copy and re-explore live")
                       .arg(QString::fromStdString(m_original.name)));
  for (const std::string& section : sectionsOf(m_original)) {
    const std::string prefix = section + ".";
    auto* box = new QGroupBox(QString::fromStdString(section));
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
      const std::string key = p.key;
      connect(spin, &QDoubleSpinBox::valueChanged, this, [this, key](double v) { applyValue(key, v); });
      auto* label = new QLabel(QString::fromStdString(p.key.substr(prefix.size())));
      form->addRow(label, spin);
      m_spins[p.key] = spin;
      m_labels[p.key] = label;
    }
    if (form->rowCount() == 0) {
      delete box;
      continue;
    }
    m_formLayout->addWidget(box);
  }
  m_formLayout->addStretch(1);
  refreshUnread();
}

void WhatIfPanel::refreshUnread() {
  m_unread.clear();
  try {
    for (const pim::UnreadParameter& u : pim::targetOf(m_current).unreadParameters(m_current))
      m_unread[u.key] = QString::fromStdString(u.reason);
  } catch (const std::exception&) {
    // A backend without a registered family has no form to restrict.
  }
  for (const pim::Parameter& p : m_current.parameters) {
    auto spin = m_spins.find(p.key);
    if (spin == m_spins.end()) continue;
    const QString why = unreadReason(p.key);
    const QString name = QString::fromStdString(p.key.substr(p.key.find('.') + 1));
    // Disabled, not hidden: the value stays visible (it is part of the backend a save writes) and the
    // tooltip says why editing it would change nothing.
    spin->second->setEnabled(why.isEmpty());
    spin->second->setToolTip(parameterTooltip(m_current, p, why));
    QLabel* label = m_labels.at(p.key);
    label->setText(why.isEmpty() ? name : tr("%1 (not read)").arg(name));
    label->setToolTip(spin->second->toolTip());
    label->setEnabled(why.isEmpty());
  }
}

QString WhatIfPanel::unreadReason(const std::string& key) const {
  auto it = m_unread.find(key);
  return it == m_unread.end() ? QString() : it->second;
}

void WhatIfPanel::setRunNote(const QString& text) {
  if (!m_messageIsError) showMessage(text, false);  // a refused value's message stays until the next edit
}

void WhatIfPanel::refreshValues() {
  for (const pim::Parameter& p : m_current.parameters) {
    auto it = m_spins.find(p.key);
    if (it == m_spins.end()) continue;
    const QSignalBlocker block(it->second);
    const auto pending = m_pending.find(p.key);
    it->second->setValue(pending != m_pending.end() ? pending->second : p.value);
    // Bold marks what differs from the shipped backend, so a study's changes stay visible while scrolling;
    // italic on amber an edit waiting for the fields it is tied to.
    const pim::Parameter* o = m_original.param(p.key);
    QFont f = it->second->font();
    f.setBold(o && o->value != p.value);
    f.setItalic(pending != m_pending.end());
    it->second->setFont(f);
    it->second->setStyleSheet(pending != m_pending.end() ? QStringLiteral("background: #fff4d6;")
                                                         : QString());
  }
  refreshUnread();
}

bool WhatIfPanel::applyValue(const std::string& key, double value, QString* error) {
  const pim::Parameter* before = m_current.param(key);
  if (!before) return false;
  // Edits waiting for their partners apply together with this one (the engine checks fields against each
  // other only after all are set).
  std::map<std::string, double> edits = m_pending;
  edits[key] = value;
  for (auto it = edits.begin(); it != edits.end();)
    it = m_current.param(it->first)->value == it->second ? edits.erase(it) : std::next(it);
  if (edits.empty()) {
    m_pending.clear();
    refreshValues();
    return true;
  }
  try {
    pim::Backend trial = m_current;  // setParameters is transactional, the copy keeps the panel's state clean
    trial.setParameters({edits.begin(), edits.end()});
    m_current = std::move(trial);
  } catch (const std::exception& e) {
    const QString msg = QString::fromStdString(e.what());
    if (error) *error = msg;
    const bool fieldOk =
        value >= before->min && value <= before->max && (!before->integer || value == std::floor(value));
    if (fieldOk) {
      // Valid on its own but not with the fields it is tied to (a group's banks, the channels): it waits,
      // shown as pending, until the user edits those too; Reset drops it.
      m_pending = std::move(edits);
      showMessage(tr("Pending until the fields it is tied to agree (they apply together): %1").arg(msg),
                  true);
      m_message->setStyleSheet(QStringLiteral("color: #8a5a00;"));  // a step of an edit, not a refusal
      refreshValues();
      return false;
    }
    showMessage(msg, true);
    refreshValues();  // the refused value goes, the previous one comes back
    return false;
  }
  const QString what = edits.size() == 1
                           ? tr("%1 = %2").arg(QString::fromStdString(key)).arg(value, 0, 'g', 12)
                           : tr("%1 linked edits").arg(edits.size());
  m_pending.clear();
  refreshValues();
  showMessage(modified() ? tr("%1; re-exploring…").arg(what) : tr("back to the shipped parameters"), false);
  m_debounce->start();
  return true;
}

void WhatIfPanel::reset() {
  m_pending.clear();
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
      this, tr("Save backend"),
      suggestedExportPath(QString::fromStdString(m_original.name) + QStringLiteral("-whatif.json")),
      tr("Backends (*.json)"));
  if (path.isEmpty()) return;
  rememberExportFolder(path);
  saveAs(path);
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
  m_messageIsError = error;
  m_message->setVisible(!text.isEmpty());  // no blank gap above the buttons when there is nothing to say
  m_message->setStyleSheet(error ? QStringLiteral("color: #b00020;") : QString());
}

}  // namespace pimgui
