// SPDX-License-Identifier: Apache-2.0
#include "views/classroom_dialog.h"

#include <QApplication>
#include <QCheckBox>
#include <QComboBox>
#include <QDir>
#include <QFormLayout>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>
#include <QMetaObject>
#include <QPushButton>
#include <QShortcut>
#include <QTextBrowser>
#include <QVBoxLayout>
#include <algorithm>
#include <exception>

#include "engine/hw/backend.h"
#include "engine/kernel/library.h"
#include "engine/target/registry.h"
#include "views/run_progress.h"

namespace pimgui {

namespace {
constexpr double kPresentationScale = 1.6;  // readable from the back of a lecture room at 1080p
}

ClassroomDialog::ClassroomDialog(QWidget* parent) : QDialog(parent) {
  setWindowTitle(tr("PIMScope — Classroom: the data-centric pipeline"));
  setObjectName(QStringLiteral("ClassroomDialog"));
  m_basePointSize = font().pointSize() > 0 ? font().pointSize() : 10;

  auto* top = new QVBoxLayout(this);
  auto* source = new QHBoxLayout;
  m_source = new QComboBox;
  m_source->addItem(tr("DCC example (section 4.2)"));
  m_source->addItem(tr("Library kernel on a backend"));
  m_backend = new QComboBox;
  for (const pim::Backend& b : pim::builtinBackends().all())
    m_backend->addItem(QString::fromStdString(b.name));
  m_backend->setCurrentText(QStringLiteral("hbm-pim"));
  m_kernel = new QComboBox;
  for (const auto& k : pim::KernelLibrary::builtin().entries())
    m_kernel->addItem(QString::fromStdString(k.name));
  m_kernel->setCurrentText(QStringLiteral("gemv"));
  m_shape = new QLineEdit(QStringLiteral("b=1,out=256,in=256"));
  m_load = new QPushButton(tr("Load"));
  m_load->setAutoDefault(false);
  source->addWidget(m_source);
  source->addWidget(m_backend);
  source->addWidget(m_kernel);
  source->addWidget(m_shape, 1);
  source->addWidget(m_load);
  top->addLayout(source);
  auto* loadRow = new QHBoxLayout;
  m_progress = new RunProgress;
  m_cancel = new QPushButton(tr("Cancel"));
  m_cancel->setAutoDefault(false);
  m_cancel->setVisible(false);
  m_cancel->setToolTip(tr("Stop waiting for this walkthrough; the steps shown stay"));
  loadRow->addWidget(m_progress, 1);
  loadRow->addWidget(m_cancel);
  top->addLayout(loadRow);

  m_subject = new QLabel;
  m_subject->setWordWrap(true);
  top->addWidget(m_subject);
  auto* heading = new QHBoxLayout;
  m_title = new QLabel;
  m_title->setObjectName(QStringLiteral("classroomTitle"));
  m_counter = new QLabel;
  m_counter->setObjectName(QStringLiteral("classroomCounter"));
  heading->addWidget(m_title, 1);
  heading->addWidget(m_counter);
  top->addLayout(heading);
  m_explanation = new QLabel;
  m_explanation->setWordWrap(true);
  top->addWidget(m_explanation);
  m_body = new QTextBrowser;
  m_body->setFocusPolicy(Qt::NoFocus);  // arrow keys step through the walkthrough instead of scrolling
  top->addWidget(m_body, 1);

  auto* nav = new QHBoxLayout;
  m_large = new QCheckBox(tr("Presentation (large font, F11)"));
  m_back = new QPushButton(tr("◀ Back"));
  m_next = new QPushButton(tr("Next ▶"));
  for (QPushButton* b : {m_back, m_next}) b->setAutoDefault(false);
  nav->addWidget(m_large);
  nav->addStretch(1);
  nav->addWidget(m_back);
  nav->addWidget(m_next);
  top->addLayout(nav);

  connect(m_back, &QPushButton::clicked, this, &ClassroomDialog::back);
  connect(m_next, &QPushButton::clicked, this, &ClassroomDialog::next);
  connect(m_large, &QCheckBox::toggled, this, &ClassroomDialog::applyFont);
  connect(m_cancel, &QPushButton::clicked, this, &ClassroomDialog::cancelLoad);
  connect(m_source, &QComboBox::currentIndexChanged, this, &ClassroomDialog::onSourceChanged);
  connect(m_load, &QPushButton::clicked, this, [this] {
    if (m_source->currentIndex() == 0)
      showExample();
    else
      showLibrary(m_backend->currentText(), m_kernel->currentText(), m_shape->text());
  });
  connect(m_kernel, &QComboBox::currentTextChanged, this, [this](const QString& name) {
    // Offer the kernel's own default sizes as a starting point.
    try {
      const pim::Kernel k = pim::KernelLibrary::builtin().get(name.toStdString());
      QStringList dims;
      for (std::size_t i = 0; i < k.dims.size(); ++i)
        dims << QStringLiteral("%1=%2")
                    .arg(QString::fromStdString(k.dims[i]))
                    .arg(k.dimDefaults[i].value_or(1));
      m_shape->setText(dims.join(QLatin1Char(',')));
    } catch (const std::exception&) {
    }
  });
  const std::pair<QKeySequence, void (ClassroomDialog::*)()> keys[] = {
      {QKeySequence(Qt::Key_Right), &ClassroomDialog::next},
      {QKeySequence(Qt::Key_PageDown), &ClassroomDialog::next},
      {QKeySequence(Qt::Key_Left), &ClassroomDialog::back},
      {QKeySequence(Qt::Key_PageUp), &ClassroomDialog::back}};
  for (const auto& [key, slot] : keys) {
    auto* s = new QShortcut(key, this);
    connect(s, &QShortcut::activated, this, slot);
  }
  auto* f11 = new QShortcut(QKeySequence(Qt::Key_F11), this);
  connect(f11, &QShortcut::activated, m_large, &QCheckBox::toggle);

  onSourceChanged();
  applyFont();
  resize(1100, 780);
  showExample();
}

void ClassroomDialog::onSourceChanged() {
  const bool library = m_source->currentIndex() == 1;
  m_backend->setEnabled(library);
  m_kernel->setEnabled(library);
  m_shape->setEnabled(library);
}

ClassroomDialog::~ClassroomDialog() { m_tasks.closeAndWait(); }

void ClassroomDialog::showExample() {
  load(
      tr("Building the DCC example (simulating its drafts)"), [] { return exampleWalkthrough(); },
      tr("DCC section 4.2 example: dcc_example n=12, m=3, p=16 on 2 groups x 4 cores, SIMD 16"));
}

bool ClassroomDialog::showLibrary(const QString& backend, const QString& kernel, const QString& shape) {
  std::shared_ptr<const pim::Problem> p;
  try {
    // Names and the shape are checked here, at once; the drafts are walked and simulated on a pool thread.
    pim::Kernel k = pim::KernelLibrary::builtin().get(kernel.toStdString());
    pim::Shape s = pim::parseShape(k, shape.toStdString());
    p = std::make_shared<const pim::Problem>(pim::builtinBackends().get(backend.toStdString()), std::move(k),
                                             std::move(s));
  } catch (const std::exception& e) {
    m_subject->setText(tr("Cannot build the walkthrough: %1").arg(QString::fromStdString(e.what())));
    return false;
  }
  const QString title = QString::fromStdString(p->title());
  load(
      tr("Building the walkthrough of %1 (simulating up to %2 drafts)")
          .arg(title)
          .arg(kWalkthroughCandidates),
      [p] { return problemWalkthrough(p); }, title);
  return true;
}

void ClassroomDialog::load(const QString& what, std::function<std::vector<WalkthroughStep>()> build,
                           const QString& subject) {
  const unsigned generation = ++m_generation;
  setLoading(true, what);
  m_tasks.start([this, generation, build = std::move(build), subject] {
    std::vector<WalkthroughStep> steps;
    QString error;
    try {
      steps = build();
    } catch (const std::exception& e) {
      error = QString::fromStdString(e.what());
    }
    QMetaObject::invokeMethod(
        this,
        [this, generation, steps = std::move(steps), error, subject]() mutable {
          if (generation != m_generation) return;  // cancelled or superseded
          setLoading(false);
          if (!error.isEmpty()) {
            m_subject->setText(tr("Cannot build the walkthrough: %1").arg(error));
            emit loaded(false);
            return;
          }
          setSteps(std::move(steps), subject);
          emit loaded(true);
        },
        Qt::QueuedConnection);
  });
}

void ClassroomDialog::cancelLoad() {
  if (!m_loading) return;
  ++m_generation;
  setLoading(false);
  m_subject->setText(m_shownSubject.isEmpty() ? tr("Cancelled: no walkthrough loaded")
                                              : tr("Cancelled; still showing %1").arg(m_shownSubject));
  emit loaded(false);
}

void ClassroomDialog::setLoading(bool on, const QString& what) {
  m_loading = on;
  if (on)
    m_progress->showBusy(what);
  else
    m_progress->hide();
  m_cancel->setVisible(on);
  m_load->setEnabled(!on);
}

QString ClassroomDialog::subjectText() const { return m_subject->text(); }

void ClassroomDialog::setSteps(std::vector<WalkthroughStep> steps, const QString& subject) {
  m_steps = std::move(steps);
  m_subject->setText(subject);
  m_shownSubject = subject;
  m_current = -1;
  setStep(0);
}

void ClassroomDialog::setStep(int i) {
  if (m_steps.empty()) return;
  i = std::clamp(i, 0, stepCount() - 1);
  m_current = i;
  const WalkthroughStep& s = m_steps[static_cast<std::size_t>(i)];
  m_title->setText(QStringLiteral("<b>%1. %2</b>").arg(i + 1).arg(s.title.toHtmlEscaped()));
  m_counter->setText(counterText());
  m_explanation->setText(s.explanation);
  // The step's picture above its tables, as a document resource under a name no earlier step used (the
  // document caches resources by name).
  QString html = s.body;
  m_shownPicture.clear();
  if (!s.picture.isNull()) {
    m_shownPicture = QUrl(QStringLiteral("picture:%1-%2").arg(++m_pictureSerial).arg(i));
    m_body->document()->addResource(QTextDocument::ImageResource, m_shownPicture, s.picture);
    html = QStringLiteral("<p><img src='%1'></p>").arg(m_shownPicture.toString()) + html;
  }
  m_body->setHtml(html);
  m_back->setEnabled(i > 0);
  m_next->setEnabled(i + 1 < stepCount());
}

QString ClassroomDialog::counterText() const {
  return tr("Step %1 of %2").arg(m_current + 1).arg(stepCount());
}

QString ClassroomDialog::bodyText() const { return m_body->toPlainText(); }

QImage ClassroomDialog::shownPicture() const {
  if (m_shownPicture.isEmpty()) return {};
  return m_body->document()->resource(QTextDocument::ImageResource, m_shownPicture).value<QImage>();
}

void ClassroomDialog::setPresentation(bool on) { m_large->setChecked(on); }
bool ClassroomDialog::presentation() const { return m_large->isChecked(); }

void ClassroomDialog::applyFont() {
  QFont f = font();
  f.setPointSizeF(m_large->isChecked() ? m_basePointSize * kPresentationScale : m_basePointSize);
  setFont(f);  // propagates to every child, the step title and the tables included
  QFont title = f;
  title.setPointSizeF(f.pointSizeF() * 1.3);
  m_title->setFont(title);
  m_body->document()->setDefaultFont(f);
}

QStringList ClassroomDialog::saveScreenshots(const QString& dir) {
  QDir().mkpath(dir);
  QStringList written;
  const int shown = m_current;
  for (int i = 0; i < stepCount(); ++i) {
    setStep(i);
    const QString path = QDir(dir).filePath(QStringLiteral("classroom_step_%1.png").arg(i + 1));
    if (grab().save(path)) written << path;
  }
  setStep(shown);
  return written;
}

}  // namespace pimgui
