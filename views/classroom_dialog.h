// SPDX-License-Identifier: Apache-2.0
// Classroom mode: a guided, step-by-step walkthrough of the data-centric pipeline for teaching. It shows one
// WalkthroughStep at a time (title, "Step k of N", a short explanation, the engine's numbers), on DCC's 4.2
// example or on a chosen library kernel and backend, with Next/Back, arrow and page keys, and a large-font
// presentation toggle (F11) for projectors. A walkthrough is built on a pool thread (it simulates up to
// kWalkthroughCandidates drafts), with a busy bar and Cancel, so the window never freezes while it loads.
#pragma once
#include <QDialog>
#include <QImage>
#include <QStringList>
#include <QUrl>
#include <functional>
#include <vector>

#include "views/pool_tasks.h"
#include "views/walkthrough.h"

class QCheckBox;
class QComboBox;
class QLabel;
class QLineEdit;
class QPushButton;
class QTextBrowser;

namespace pimgui {

class RunProgress;

class ClassroomDialog : public QDialog {
  Q_OBJECT
 public:
  explicit ClassroomDialog(QWidget* parent = nullptr);

  /// Starts loading DCC's section 4.2 example (the default, started by the constructor).
  void showExample();
  /// Starts loading library kernel `kernel` at `shape` on `backend`; false (message shown, nothing started)
  /// when the kernel, shape or backend is invalid. The steps arrive with `loaded`; the previous ones stay
  /// until then.
  bool showLibrary(const QString& backend, const QString& kernel, const QString& shape);
  /// A walkthrough is being built.
  bool loading() const { return m_loading; }
  /// Drops the walkthrough being built (its pool task finishes and is ignored); the shown steps stay.
  void cancelLoad();
  QString subjectText() const;

  int stepCount() const { return static_cast<int>(m_steps.size()); }
  int currentStep() const { return m_current; }  // 0-based
  const WalkthroughStep& step(int i) const { return m_steps[static_cast<std::size_t>(i)]; }
  void setStep(int i);
  void next() { setStep(m_current + 1); }
  void back() { setStep(m_current - 1); }
  QString counterText() const;
  QString bodyText() const;  // plain text of what is displayed
  /// The picture the shown step's body displays (null for a step without one).
  QImage shownPicture() const;
  void setPresentation(bool on);
  bool presentation() const;
  /// One PNG per step into `dir` (classroom_step_1.png, …); returns the paths.
  QStringList saveScreenshots(const QString& dir);
  ~ClassroomDialog() override;

 signals:
  /// A load ended: the steps are shown (ok), or the reason is in subjectText().
  void loaded(bool ok);

 private:
  void setSteps(std::vector<WalkthroughStep> steps, const QString& subject);
  /// Runs `build` on a pool thread; its steps (or its error) come back here unless another load or Cancel
  /// came first.
  void load(const QString& what, std::function<std::vector<WalkthroughStep>()> build, const QString& subject);
  void setLoading(bool on, const QString& what = {});
  void onSourceChanged();
  void applyFont();

  std::vector<WalkthroughStep> m_steps;
  int m_current = 0;
  unsigned m_pictureSerial = 0;  // names each shown picture's resource afresh
  QUrl m_shownPicture;           // the resource the body's <img> shows; empty without a picture
  int m_basePointSize = 0;
  QComboBox* m_source;
  QComboBox* m_backend;
  QComboBox* m_kernel;
  QLineEdit* m_shape;
  QPushButton* m_load;
  QLabel* m_subject;
  QLabel* m_title;
  QLabel* m_counter;
  QLabel* m_explanation;
  QTextBrowser* m_body;
  QPushButton* m_back;
  QPushButton* m_next;
  QCheckBox* m_large;
  RunProgress* m_progress;
  QPushButton* m_cancel;
  bool m_loading = false;
  unsigned m_generation = 0;  // drops a superseded or cancelled load
  QString m_shownSubject;
  PoolTasks m_tasks;  // last: its tasks capture `this`
};

}  // namespace pimgui
