// SPDX-License-Identifier: Apache-2.0
// Classroom mode: a guided, step-by-step walkthrough of the data-centric pipeline for teaching. It shows one
// WalkthroughStep at a time (title, "Step k of N", a short explanation, the engine's numbers), on DCC's 4.2
// example or on a chosen library kernel and backend, with Next/Back, arrow and page keys, and a large-font
// presentation toggle (F11) for projectors.
#pragma once
#include <QDialog>
#include <QStringList>
#include <vector>

#include "views/walkthrough.h"

class QCheckBox;
class QComboBox;
class QLabel;
class QLineEdit;
class QPushButton;
class QTextBrowser;

namespace pimgui {

class ClassroomDialog : public QDialog {
  Q_OBJECT
 public:
  explicit ClassroomDialog(QWidget* parent = nullptr);

  /// Loads DCC's section 4.2 example (the default).
  bool showExample();
  /// Loads library kernel `kernel` at `shape` on `backend`; false (message shown) on invalid input.
  bool showLibrary(const QString& backend, const QString& kernel, const QString& shape);

  int stepCount() const { return static_cast<int>(m_steps.size()); }
  int currentStep() const { return m_current; }  // 0-based
  const WalkthroughStep& step(int i) const { return m_steps[static_cast<std::size_t>(i)]; }
  void setStep(int i);
  void next() { setStep(m_current + 1); }
  void back() { setStep(m_current - 1); }
  QString counterText() const;
  QString bodyText() const;  // plain text of what is displayed
  void setPresentation(bool on);
  bool presentation() const;
  /// One PNG per step into `dir` (classroom_step_1.png, …); returns the paths.
  QStringList saveScreenshots(const QString& dir);

 private:
  void setSteps(std::vector<WalkthroughStep> steps, const QString& subject);
  void onSourceChanged();
  void applyFont();

  std::vector<WalkthroughStep> m_steps;
  int m_current = 0;
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
};

}  // namespace pimgui
