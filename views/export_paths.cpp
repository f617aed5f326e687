// SPDX-License-Identifier: Apache-2.0
#include "views/export_paths.h"

#include <QDir>
#include <QFileInfo>
#include <QRegularExpression>
#include <QSettings>
#include <QStandardPaths>

namespace pimgui {

namespace {
const char* const kKey = "export/folder";

QString& folder() {
  static QString f;  // the process's last export folder
  return f;
}
bool& persistent() {
  static bool on = false;
  return on;
}
}  // namespace

QString exportBaseName(const SessionConfig& c, const QString& what) {
  const QString kernel = !c.network.empty() ? QString::fromStdString(c.network)
                         : c.kernelFile.empty()
                             ? QString::fromStdString(c.kernel)
                             : QFileInfo(QString::fromStdString(c.kernelFile)).completeBaseName();
  // "b=1,out=4096" -> "b1_out4096": readable, and no '=' or ',' for shells and spreadsheets to trip on.
  QString shape = QString::fromStdString(c.shape);
  shape.remove(QLatin1Char('=')).replace(QLatin1Char(','), QLatin1Char('_'));
  QStringList parts{kernel, shape, QString::fromStdString(c.backend)};
  parts.removeAll(QString());  // a network has no shape
  QString name = parts.join(QLatin1Char('_'));
  if (c.backendOverride) name += QStringLiteral("_whatif");
  name += QLatin1Char('_') + what;
  static const QRegularExpression unsafe(QStringLiteral("[^A-Za-z0-9._+-]"));
  return name.replace(unsafe, QStringLiteral("_"));
}

QString lastExportFolder() { return folder(); }

void rememberExportFolder(const QString& filePath) {
  folder() = QFileInfo(filePath).absolutePath();
  if (persistent()) QSettings().setValue(QLatin1String(kKey), folder());
}

void restoreExportFolder() {
  persistent() = true;
  const QString saved = QSettings().value(QLatin1String(kKey)).toString();
  if (!saved.isEmpty() && QFileInfo(saved).isDir()) folder() = saved;
}

QString suggestedExportPath(const QString& fileName) {
  QString dir = folder();
  if (dir.isEmpty() || !QFileInfo(dir).isDir())
    dir = QStandardPaths::writableLocation(QStandardPaths::DocumentsLocation);
  if (dir.isEmpty() || !QFileInfo(dir).isDir()) dir = QDir::homePath();
  return QDir(dir).filePath(fileName);
}

}  // namespace pimgui
