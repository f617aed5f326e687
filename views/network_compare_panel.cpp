// SPDX-License-Identifier: Apache-2.0
#include "views/network_compare_panel.h"

#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QListWidget>
#include <QMetaObject>
#include <QPushButton>
#include <QSplitter>
#include <QTableWidget>
#include <QVBoxLayout>

#include "engine/kernel/onnx_network.h"
#include "engine/target/registry.h"

namespace pimgui {
namespace {

QString microseconds(std::optional<double> ns) {
  return ns ? QString::number(*ns / 1000.0, 'f', 1) : QStringLiteral("—");
}

QTableWidgetItem* cell(const QString& text, Qt::Alignment align = Qt::AlignLeft | Qt::AlignVCenter) {
  auto* item = new QTableWidgetItem(text);
  item->setTextAlignment(align);
  return item;
}

}  // namespace

NetworkComparePanel::NetworkComparePanel(std::function<std::string()> networkPath,
                                         std::function<pim::xbar::TimingModel()> timing, QWidget* parent)
    : QWidget(parent), m_networkPath(std::move(networkPath)), m_timing(std::move(timing)) {
  m_backends = new QListWidget;
  for (const pim::Backend& b : pim::builtinBackends().all()) {
    auto* item = new QListWidgetItem(QString::fromStdString(b.name), m_backends);
    item->setToolTip(QString::fromStdString(b.description));
    item->setFlags(item->flags() | Qt::ItemIsUserCheckable);
    item->setCheckState(Qt::Unchecked);
  }
  choose({QStringLiteral("crossbar-pimcomp"), QStringLiteral("crossbar-arch-a"),
          QStringLiteral("pimopt-hbm-pim"), QStringLiteral("hbm-pim")});
  m_backends->setMaximumWidth(230);
  m_compare = new QPushButton(tr("Compare"));
  m_stop = new QPushButton(tr("Cancel"));
  m_stop->setEnabled(false);
  m_status =
      new QLabel(tr("Tick 1 to 6 backends: crossbar ones compile the network, the others run its layers "
                    "one by one (batch 1)"));
  m_status->setWordWrap(true);
  m_verdict = new QLabel;
  m_verdict->setWordWrap(true);
  QFont bold = m_verdict->font();
  bold.setBold(true);
  m_verdict->setFont(bold);

  m_totals = new QTableWidget(0, 7);
  m_totals->setHorizontalHeaderLabels({tr("Backend"), tr("Family"), tr("How"), tr("Total µs"),
                                       tr("Layers run"), tr("Energy µJ"), tr("Note")});
  m_layers = new QTableWidget(0, 0);
  for (QTableWidget* t : {m_totals, m_layers}) {
    t->setEditTriggers(QAbstractItemView::NoEditTriggers);
    t->verticalHeader()->setVisible(false);
    t->horizontalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);
    t->horizontalHeader()->setStretchLastSection(true);
  }

  auto* left = new QVBoxLayout;
  left->addWidget(new QLabel(tr("Backends:")));
  left->addWidget(m_backends, 1);
  auto* buttons = new QHBoxLayout;
  buttons->addWidget(m_compare);
  buttons->addWidget(m_stop);
  left->addLayout(buttons);
  auto* split = new QSplitter(Qt::Vertical);
  split->addWidget(m_totals);
  split->addWidget(m_layers);
  split->setStretchFactor(1, 2);
  auto* right = new QVBoxLayout;
  right->addWidget(m_status);
  right->addWidget(m_verdict);
  right->addWidget(split, 1);
  auto* layout = new QHBoxLayout(this);
  layout->addLayout(left);
  layout->addLayout(right, 1);

  connect(m_compare, &QPushButton::clicked, this, &NetworkComparePanel::compare);
  connect(m_stop, &QPushButton::clicked, this, &NetworkComparePanel::cancel);
}

NetworkComparePanel::~NetworkComparePanel() {
  if (m_cancel) m_cancel->store(true);
  m_tasks.closeAndWait();
}

void NetworkComparePanel::choose(const QStringList& backends) {
  for (int i = 0; i < m_backends->count(); ++i)
    m_backends->item(i)->setCheckState(backends.contains(m_backends->item(i)->text()) ? Qt::Checked
                                                                                      : Qt::Unchecked);
}

void NetworkComparePanel::finish(const QString& status) {
  m_running = false;
  m_compare->setEnabled(true);
  m_stop->setEnabled(false);
  m_status->setText(status);
  emit done();
}

void NetworkComparePanel::cancel() {
  if (!m_running) return;
  m_cancel->store(true);
  ++m_generation;  // what the task still reports is dropped
  finish(tr("Cancelled"));
}

void NetworkComparePanel::compare() {
  if (m_running) return;
  pim::NetworkCompareOptions o;
  for (int i = 0; i < m_backends->count(); ++i)
    if (m_backends->item(i)->checkState() == Qt::Checked)
      o.backends.push_back(m_backends->item(i)->text().toStdString());
  o.search.eval.keepUnitStats = false;
  o.search.eval.sim.crossbarTiming = m_timing();
  pim::Network net;
  try {
    net = pim::loadNetworkModelFile(m_networkPath());
    if (o.backends.empty() || o.backends.size() > 6)
      throw pim::InputError("tick 1 to 6 backends (" + std::to_string(o.backends.size()) + " ticked)");
  } catch (const std::exception& e) {
    m_status->setText(tr("Cannot compare: %1").arg(QString::fromStdString(e.what())));
    return;
  }
  m_cancel = std::make_shared<std::atomic<bool>>(false);
  o.cancel = m_cancel.get();
  const unsigned generation = ++m_generation;
  auto post = [this, generation](std::function<void()> onGui) {
    QMetaObject::invokeMethod(
        this,
        [this, generation, onGui = std::move(onGui)] {
          if (generation == m_generation) onGui();
        },
        Qt::QueuedConnection);
  };
  o.report = [this, post](const std::string& line) {
    post([this, text = QString::fromStdString(line)] { m_status->setText(text); });
  };
  m_running = true;
  m_compare->setEnabled(false);
  m_stop->setEnabled(true);
  m_status->setText(tr("Comparing…"));
  // The task holds the cancel flag it reads, so it outlives a cancelled run safely.
  m_tasks.start([post, net = std::move(net), o = std::move(o), cancel = m_cancel, this] {
    try {
      const auto c = std::make_shared<const pim::NetworkComparison>(pim::compareNetwork(net, o));
      post([this, c] {
        show(*c);
        finish(
            tr("Done: %1 on %2 backend(s)").arg(QString::fromStdString(c->network)).arg(c->results.size()));
      });
    } catch (const std::exception& e) {
      post([this, why = QString::fromStdString(e.what())] { finish(tr("Cannot compare: %1").arg(why)); });
    }
  });
}

void NetworkComparePanel::show(const pim::NetworkComparison& c) {
  m_verdict->setText(QString::fromStdString(c.verdict));
  m_totals->setRowCount(0);
  const Qt::Alignment right = Qt::AlignRight | Qt::AlignVCenter;
  for (const pim::NetworkBackendTime& r : c.results) {
    const int row = m_totals->rowCount();
    m_totals->insertRow(row);
    m_totals->setItem(row, 0, cell(QString::fromStdString(r.backend)));
    m_totals->setItem(row, 1, cell(QString::fromStdString(r.family)));
    m_totals->setItem(row, 2, cell(QString::fromStdString(r.how)));
    m_totals->setItem(row, 3, cell(microseconds(r.totalNs), right));
    m_totals->setItem(row, 4, cell(tr("%1 of %2").arg(r.layersRun).arg(r.layers.size()), right));
    m_totals->setItem(
        row, 5, cell(r.energyNj ? QString::number(*r.energyNj / 1e3, 'f', 1) : QStringLiteral("—"), right));
    m_totals->setItem(row, 6, cell(QString::fromStdString(r.reason)));
  }
  // Layers down, backends across: each cell the layer's time there, or a dash whose tooltip says why not.
  // Layer names from the backend that listed the most (a crossbar backend that cannot compile lists none).
  const pim::NetworkBackendTime* named = nullptr;
  for (const auto& r : c.results)
    if (!named || r.layers.size() > named->layers.size()) named = &r;
  const std::size_t layers = named ? named->layers.size() : 0;
  m_layers->clear();
  m_layers->setRowCount(static_cast<int>(layers));
  m_layers->setColumnCount(static_cast<int>(c.results.size()) + 1);
  QStringList header{tr("Layer")};
  for (const auto& r : c.results) header << tr("%1 µs").arg(QString::fromStdString(r.backend));
  m_layers->setHorizontalHeaderLabels(header);
  for (std::size_t l = 0; l < layers; ++l) {
    const auto& first = named->layers[l];
    m_layers->setItem(static_cast<int>(l), 0,
                      cell(QString::fromStdString(first.name + " (" + first.op + ")")));
    for (std::size_t b = 0; b < c.results.size(); ++b) {
      if (l >= c.results[b].layers.size()) {
        auto* none = cell(QStringLiteral("—"), right);
        none->setToolTip(QString::fromStdString(c.results[b].reason));
        m_layers->setItem(static_cast<int>(l), static_cast<int>(b) + 1, none);
        continue;
      }
      const pim::NetworkLayerTime& t = c.results[b].layers[l];
      auto* item = cell(microseconds(t.ns), right);
      QString tip =
          t.kernel.empty()
              ? QString()
              : tr("as %1 (%2)").arg(QString::fromStdString(t.kernel), QString::fromStdString(t.dims));
      if (!t.reason.empty()) tip = QString::fromStdString(t.reason);
      item->setToolTip(tip);
      m_layers->setItem(static_cast<int>(l), static_cast<int>(b) + 1, item);
    }
  }
}

}  // namespace pimgui
