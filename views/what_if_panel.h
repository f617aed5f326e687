// SPDX-License-Identifier: Apache-2.0
// What-if hardware: one spin box per declared parameter of the selected backend (Backend::parameters),
// grouped by section. Edits go through Backend::setParameters on a working copy, so the engine stays the only
// validator: a refused value shows the engine's message inline and the previous value comes back. Accepted
// edits are announced after a short debounce so the window re-explores once per burst of edits, not per step.
#pragma once
#include <QString>
#include <QWidget>
#include <map>
#include <memory>
#include <string>

#include "engine/hw/backend.h"

class QDoubleSpinBox;
class QLabel;
class QPushButton;
class QTimer;
class QVBoxLayout;

namespace pimgui {

/// The what-if tooltip of `p`: its description, unit, valid range and source, with the document each source
/// id of `b` names ("attacc = shared/specs/attacc.md"), and `unread` (why it is disabled) first when set.
QString parameterTooltip(const pim::Backend& b, const pim::Parameter& p, const QString& unread = {});

class WhatIfPanel : public QWidget {
  Q_OBJECT
 public:
  explicit WhatIfPanel(QWidget* parent = nullptr);

  /// Starts over from `b` (rebuilds the form); does not emit backendEdited.
  void setBackend(const pim::Backend& b);
  /// Shows `current` as an edit of `original` (undo, or a reopened session); does not emit backendEdited.
  void setState(const pim::Backend& original, const pim::Backend& current);
  const pim::Backend& original() const { return m_original; }
  const pim::Backend& current() const { return m_current; }
  /// True when some parameter differs from the original.
  bool modified() const;
  /// Applies one change through the engine. On refusal returns false, leaves current() unchanged, shows the
  /// message inline and fills `error`; a value out of the parameter's own range goes (the spin box shows the
  /// previous one), while a valid value that disagrees with fields it is tied to (a group's banks, the
  /// channels) stays pending and applies together with the edits of those fields once they agree.
  bool applyValue(const std::string& key, double value, QString* error = nullptr);
  /// Edits waiting for the fields they are tied to (key -> value).
  const std::map<std::string, double>& pending() const { return m_pending; }
  void reset();
  /// Writes current() (renamed after the file) atomically, then re-loads it with loadBackendFile and checks
  /// every parameter came back identical.
  bool saveAs(const QString& path, QString* error = nullptr);
  QString message() const;
  /// What the dock says about the model that ranks the edited hardware (empty: nothing to say, hidden). The
  /// window sets it per exploration from ExplorationSession::predictorNote.
  void setModelNote(const QString& text);
  QString modelNote() const;
  QDoubleSpinBox* spinBox(const std::string& key) const;
  /// Why `key` is shown disabled: no result reads it for the backend as edited (ITarget::unreadParameters);
  /// empty when it is offered.
  QString unreadReason(const std::string& key) const;
  /// What the last re-run changed (or that it was cancelled); replaces "re-exploring…" when it is done.
  void setRunNote(const QString& text);
  /// Debounce before backendEdited (ms); tests shorten it.
  void setDebounceMs(int ms);

 signals:
  /// The modified backend, ~300 ms after the last accepted edit (also after Reset).
  void backendEdited(std::shared_ptr<const pim::Backend> backend);

 private:
  void rebuild();
  void refreshValues();
  /// Enables the parameters a result reads and disables the others with the reason (a flag may switch
  /// another parameter on or off).
  void refreshUnread();
  void saveInteractive();
  void showMessage(const QString& text, bool error);

  pim::Backend m_original, m_current;
  std::map<std::string, QDoubleSpinBox*> m_spins;
  std::map<std::string, QLabel*> m_labels;
  std::map<std::string, QString> m_unread;  // key -> reason
  std::map<std::string, double> m_pending;  // valid edits waiting for the fields they are tied to
  QWidget* m_form = nullptr;
  QVBoxLayout* m_formLayout = nullptr;
  QLabel* m_title;
  QLabel* m_message;
  QLabel* m_modelNote;
  QPushButton* m_reset;
  QPushButton* m_save;
  QTimer* m_debounce;
  bool m_messageIsError = false;
};

}  // namespace pimgui
