// SPDX-License-Identifier: Apache-2.0
#include "views/kernel_combo.h"

#include <QComboBox>

#include "engine/kernel/network.h"

namespace pimgui {
namespace {
constexpr auto kFileItem = "file";
const QString kNetworkPrefix = QStringLiteral("network:");
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
  return isKernelFileItem(box) || !selectedNetwork(box).isEmpty() ? QString() : box->currentText();
}

void addNetworkItems(QComboBox* box) {
  std::vector<std::string> names;
  try {
    names = pim::builtinNetworkNames();
  } catch (const std::exception&) {  // no data directory: the kernels alone
    return;
  }
  box->insertSeparator(box->count());
  for (const std::string& n : names) {
    const QString name = QString::fromStdString(n);
    box->addItem(QObject::tr("%1 (network)").arg(name), kNetworkPrefix + name);
    box->setItemData(box->count() - 1,
                     QObject::tr("Network %1, compiled whole on crossbar backends (the candidates are the "
                                 "compiler's modes, unfoldings and replication methods)")
                         .arg(name),
                     Qt::ToolTipRole);
  }
}

QString selectedNetwork(const QComboBox* box) {
  const QString data = box->currentData().toString();
  return data.startsWith(kNetworkPrefix) ? data.mid(kNetworkPrefix.size()) : QString();
}

int networkItemIndex(const QComboBox* box, const QString& name) {
  return box->findData(kNetworkPrefix + name);
}

}  // namespace pimgui
