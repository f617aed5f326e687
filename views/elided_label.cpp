// SPDX-License-Identifier: Apache-2.0
#include "views/elided_label.h"

#include <QApplication>
#include <QPainter>
#include <QStatusBar>

namespace pimgui {

QSize ElidedLabel::minimumSizeHint() const {
  return {fontMetrics().averageCharWidth() * 12, QLabel::minimumSizeHint().height()};
}

void ElidedLabel::paintEvent(QPaintEvent*) {
  QPainter p(this);
  const QRect r = contentsRect();
  p.setPen(palette().color(foregroundRole()));
  p.drawText(r, static_cast<int>(alignment()) | Qt::TextSingleLine,
             fontMetrics().elidedText(text(), Qt::ElideRight, r.width()));
}

void keepTextVisible(QWidget* w) {
  // Set explicitly (a palette equal to the application's would count as unset and inherit the bar's).
  QPalette p = w->palette();
  for (const QPalette::ColorRole role : {QPalette::WindowText, QPalette::Text, QPalette::ButtonText})
    p.setColor(role, QApplication::palette().color(role));
  w->setPalette(p);
}

ElidedLabel* elideStatusMessages(QStatusBar* bar) {
  auto* label = new ElidedLabel;
  label->setAlignment(Qt::AlignLeft | Qt::AlignVCenter);
  bar->addPermanentWidget(label, 1);  // permanent: a message does not hide it
  // The bar's own message text is drawn in its window-text colour: transparent. Its children keep the
  // application's palette.
  QPalette hidden = bar->palette();
  hidden.setColor(QPalette::WindowText, Qt::transparent);
  bar->setPalette(hidden);
  keepTextVisible(label);
  QObject::connect(bar, &QStatusBar::messageChanged, label, [label](const QString& message) {
    label->setText(message);
    label->setToolTip(message);
  });
  return label;
}

}  // namespace pimgui
