// SPDX-License-Identifier: Apache-2.0
// The one selection every view shares (table, Pareto plot, breakdown, heat map, details). Views write it when
// the user selects and redraw when it changes; `current` is the draft the single-draft views show.
#pragma once
#include <QList>
#include <QObject>
#include <optional>

namespace pimgui {

class DraftSelection : public QObject {
  Q_OBJECT
 public:
  explicit DraftSelection(QObject* parent = nullptr) : QObject(parent) {}

  /// Replaces the selection; the first id becomes current. No signal when nothing changes (breaks loops).
  void set(const QList<quint64>& ids) {
    if (ids == m_ids) return;
    m_ids = ids;
    emit changed();
  }
  void clear() { set({}); }
  const QList<quint64>& ids() const { return m_ids; }
  bool contains(quint64 id) const { return m_ids.contains(id); }
  std::optional<quint64> current() const {
    return m_ids.isEmpty() ? std::nullopt : std::optional<quint64>(m_ids.front());
  }

 signals:
  void changed();

 private:
  QList<quint64> m_ids;
};

}  // namespace pimgui
