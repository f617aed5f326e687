// SPDX-License-Identifier: Apache-2.0
// pimscope: the desktop explorer. With no arguments it opens on the default session and explores it at once;
// `--screenshot DIR` runs that session to completion, writes one PNG per view and exits. `--classroom` opens
// the classroom walkthrough alone; `--classroom-screenshots DIR` writes one PNG per walkthrough step and
// exits.
#include <QApplication>
#include <QCommandLineParser>
#include <QTimer>
#include <cstdio>

#include "views/classroom_dialog.h"
#include "views/main_window.h"

int main(int argc, char** argv) {
  QApplication app(argc, argv);
  QApplication::setOrganizationName(QStringLiteral("PIMScope"));
  QApplication::setApplicationName(QStringLiteral("pimscope"));
  QApplication::setApplicationVersion(QStringLiteral("0.1.0"));

  QCommandLineParser cli;
  cli.setApplicationDescription(QStringLiteral("PIMScope design-space explorer"));
  cli.addHelpOption();
  cli.addVersionOption();
  QCommandLineOption shots(QStringLiteral("screenshot"),
                           QStringLiteral("Run the default session, save one PNG per view into <dir>, exit."),
                           QStringLiteral("dir"));
  cli.addOption(shots);
  QCommandLineOption classroom(
      QStringLiteral("classroom"),
      QStringLiteral("Open the classroom walkthrough of the data-centric pipeline."));
  cli.addOption(classroom);
  QCommandLineOption classroomShots(QStringLiteral("classroom-screenshots"),
                                    QStringLiteral("Save one PNG per classroom step into <dir>, exit."),
                                    QStringLiteral("dir"));
  cli.addOption(classroomShots);
  QCommandLineOption large(QStringLiteral("presentation"),
                           QStringLiteral("Classroom in presentation mode (large font)."));
  cli.addOption(large);
  cli.process(app);

  if (cli.isSet(classroom) || cli.isSet(classroomShots)) {
    pimgui::ClassroomDialog dialog;
    dialog.setPresentation(cli.isSet(large));
    if (!cli.isSet(classroomShots)) {
      dialog.exec();
      return 0;
    }
    dialog.show();
    const QStringList files = dialog.saveScreenshots(cli.value(classroomShots));
    for (const QString& f : files) std::printf("%s\n", qPrintable(f));
    return files.size() == dialog.stepCount() && !files.isEmpty() ? 0 : 1;
  }

  const bool screenshot = cli.isSet(shots);
  pimgui::MainWindow window(/*persistLayout=*/!screenshot);
  window.show();
  if (screenshot) {
    const QString dir = cli.value(shots);
    QObject::connect(&window, &pimgui::MainWindow::becameIdle, &app, [&] {
      // Let pending layout and replots settle before grabbing.
      QTimer::singleShot(300, &app, [&] {
        if (!window.idle()) return;
        const QStringList files = window.saveScreenshots(dir);
        for (const QString& f : files) std::printf("%s\n", qPrintable(f));
        QApplication::exit(files.size() >= 6 ? 0 : 1);
      });
    });
  }
  if (!window.startDefaultSession()) return screenshot ? 1 : app.exec();
  return app.exec();
}
