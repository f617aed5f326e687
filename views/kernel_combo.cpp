// SPDX-License-Identifier: Apache-2.0
#include "views/kernel_combo.h"

#include <QComboBox>

namespace pimgui {
namespace {
constexpr auto kFileItem = "file";
}  // namespace

void selectKernelFileItem(QComboBox* box, const QString& text, const QString& path) {
  int i = box->findData(QLatin1String(kFileItem));
  if (i < 0) {
    box->addItem(text, QLatin1String(kFileItem));
    i = box->count() - 1;
  } else {
    box->setItemText(i, text);
  }
  box->setItemData(i, path, Qt::ToolTipRole);
  box->setCurrentIndex(i);
}

bool isKernelFileItem(const QComboBox* box) {
  return box->currentData().toString() == QLatin1String(kFileItem);
}

QString libraryKernelName(const QComboBox* box) {
  return isKernelFileItem(box) ? QString() : box->currentText();
}

}  // namespace pimgui
