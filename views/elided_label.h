// SPDX-License-Identifier: Apache-2.0
// One-line labels that shrink below their text's width and end in "…" instead of widening their container,
// and a status bar whose message does the same. At 1280 pixels the status bar's message ran into the counts
// ("… measured on 128 condone · generated …"), cut mid-word, and the counts pushed the status bar wider than
// the window.
#pragma once
#include <QLabel>

class QStatusBar;

namespace pimgui {

class ElidedLabel : public QLabel {
  Q_OBJECT
 public:
  using QLabel::QLabel;
  /// A dozen characters: the layout may give it less than its text.
  QSize minimumSizeHint() const override;

 protected:
  void paintEvent(QPaintEvent* e) override;
};

/// Shows `bar`'s messages (showMessage, currentMessage unchanged) in an ElidedLabel at its left, sharing the
/// width with the permanent widgets added after this call, with the whole message as the label's tooltip.
/// QStatusBar draws a message clipped at the permanent widgets; its own drawing is made invisible.
ElidedLabel* elideStatusMessages(QStatusBar* bar);
/// For a widget added to such a bar: keeps the application's text colours instead of the bar's.
void keepTextVisible(QWidget* w);

}  // namespace pimgui
