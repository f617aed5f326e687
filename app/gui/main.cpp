// SPDX-License-Identifier: Apache-2.0
// pimscope: the desktop explorer. With no arguments it opens on the default session and explores it at once;
// `--screenshot DIR` runs that session to completion, writes one PNG per view and exits. `--classroom` opens
// the classroom walkthrough alone; `--classroom-screenshots DIR` writes one PNG per walkthrough step and
// exits. A FILE.pimsession argument opens that session instead of exploring the default one;
// `--save-session FILE` runs the session to completion, saves it and exits.
#include <QApplication>
#include <QComboBox>
#include <QCommandLineParser>
#include <QLineEdit>
#include <QMessageBox>
#include <QTimer>
#include <cstdio>

#include "engine/common/memory_policy.h"
#include "views/classroom_dialog.h"
#include "views/compare_view.h"
#include "views/llm_view.h"
#include "views/main_window.h"
#include "views/network_compile_view.h"

int main(int argc, char** argv) {
  pim::keepFreedMemory();
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
  QCommandLineOption saveSession(
      QStringLiteral("save-session"),
      QStringLiteral("Run the default session (or the given one) to the end, save it as <file>, exit."),
      QStringLiteral("file"));
  cli.addOption(saveSession);
  cli.addPositionalArgument(QStringLiteral("session"),
                            QStringLiteral("A .pimsession file to open instead of the default session."),
                            QStringLiteral("[session]"));
  cli.process(app);

  if (cli.isSet(classroom) || cli.isSet(classroomShots)) {
    pimgui::ClassroomDialog dialog;
    dialog.setPresentation(cli.isSet(large));
    if (!cli.isSet(classroomShots)) {
      dialog.exec();
      return 0;
    }
    dialog.show();
    while (dialog.loading()) QCoreApplication::processEvents(QEventLoop::AllEvents, 50);  // built off-thread
    const QStringList files = dialog.saveScreenshots(cli.value(classroomShots));
    for (const QString& f : files) std::printf("%s\n", qPrintable(f));
    return files.size() == dialog.stepCount() && !files.isEmpty() ? 0 : 1;
  }

  const bool screenshot = cli.isSet(shots);
  const bool saving = cli.isSet(saveSession);
  pimgui::MainWindow window(/*persistLayout=*/!screenshot && !saving);
  window.show();
  if (screenshot) {
    const QString dir = cli.value(shots);
    // compare.png: the default problem on the backends that run gemv against GPU-only execution; the window
    // is not idle until the comparison is in, so the grab below waits for it.
    window.showCompare();
    window.compareView()->choose({QStringLiteral("hbm-pim"), QStringLiteral("attacc"),
                                  QStringLiteral("gddr6-aim"), QStringLiteral("hbm2-pim")},
                                 QStringLiteral("gpu"));
    window.compareView()->compare();
    // compile_*.png: ResNet-18 on crossbar-pimcomp with the three fixed replication rules.
    window.showNetworkCompile();
    window.networkCompileView()->compile();
    // llm_*.png: GPT-3 13B, batch 1, 2048 input and 32 output tokens on five systems (DCC Fig. 11's setting,
    // fewer output tokens so the DCC kernels compile in seconds).
    window.showLlm();
    pimgui::LlmView* llm = window.llmView();
    llm->modelBox()->setCurrentIndex(llm->modelBox()->findData(QStringLiteral("gpt3-13b")));
    llm->batchField()->setText(QStringLiteral("1"));
    llm->linField()->setText(QStringLiteral("2048"));
    llm->loutField()->setText(QStringLiteral("32"));
    llm->chooseSystems({QStringLiteral("gpu"), QStringLiteral("attacc-base"), QStringLiteral("attacc-full"),
                        QStringLiteral("attacc-full+dcc"), QStringLiteral("auto")});
    llm->run();
    // `dir` by value: this block's scope has ended when the window becomes idle.
    QObject::connect(&window, &pimgui::MainWindow::becameIdle, &app, [&, dir] {
      // Let pending layout and replots settle before grabbing.
      QTimer::singleShot(300, &app, [&, dir] {
        if (!window.idle()) return;
        const QStringList files = window.saveScreenshots(dir);
        for (const QString& f : files) std::printf("%s\n", qPrintable(f));
        QApplication::exit(files.size() >= 6 ? 0 : 1);
      });
    });
  }
  if (saving) {
    // Produces the shipped example (datasets/sessions): a fixed layout, the run complete, then one save.
    QObject::connect(&window, &pimgui::MainWindow::becameIdle, &app, [&] {
      QTimer::singleShot(300, &app, [&] {
        if (!window.idle()) return;
        QString error;
        if (!window.saveSession(cli.value(saveSession), &error)) {
          std::fprintf(stderr, "%s\n", qPrintable(error));
          QApplication::exit(2);
          return;
        }
        std::printf("%s\n", qPrintable(cli.value(saveSession)));
        QApplication::exit(0);
      });
    });
  }
  if (const QStringList args = cli.positionalArguments(); !args.isEmpty()) {
    QString error;
    if (window.openSession(args.front(), &error)) return app.exec();
    std::fprintf(stderr, "%s\n", qPrintable(error));
    if (screenshot || saving) return 2;
    QMessageBox::warning(&window, QStringLiteral("Cannot open session"), error);
  }
  if (!window.startDefaultSession()) return screenshot || saving ? 1 : app.exec();
  return app.exec();
}
