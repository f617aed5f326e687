// SPDX-License-Identifier: Apache-2.0
#include "views/llm_runner.h"

#include <QMetaObject>
#include <QTimer>
#include <chrono>
#include <exception>

#include "engine/target/registry.h"

namespace pimgui {
namespace {

using namespace pim::llm;

/// Whether a simulator built for `a` serves `b` (its PIM kernel table is keyed by all of these; whether the
/// LM head is timed is not a key: the runner sets it on the simulator it keeps).
bool sameSetup(const LlmSetup& a, const LlmSetup& b) {
  return a.model == b.model && a.dtype == b.dtype && a.gpus == b.gpus &&
         a.pimDevicesPerGpu == b.pimDevicesPerGpu && a.powerConstraint == b.powerConstraint &&
         a.backend == b.backend && a.edits == b.edits && a.checkCapacity == b.checkCapacity &&
         a.threads == b.threads && a.topK == b.topK && a.store == b.store;
}

/// Reports at most every 50 ms (a decode step can take microseconds), and always the last step.
class Throttle {
 public:
  bool due(bool last) {
    const auto now = std::chrono::steady_clock::now();
    if (!last && now - m_last < std::chrono::milliseconds(50)) return false;
    m_last = now;
    return true;
  }

 private:
  std::chrono::steady_clock::time_point m_last{};
};

/// "attacc-full (2 of 5): step 17 of 127, 36 shapes in the lookup table"; before the first step the
/// request is prefilled and its new shapes compiled.
std::function<QString(std::size_t)> stepLine(const std::string& system, std::size_t i, std::size_t n,
                                             std::int64_t step, std::int64_t steps) {
  const QString head = QObject::tr("%1 (%2 of %3): ").arg(QString::fromStdString(system)).arg(i + 1).arg(n);
  const QString what = step == 0 ? QObject::tr("prefill and compiling new shapes")
                                 : QObject::tr("step %1 of %2").arg(step).arg(steps);
  return [head, what](std::size_t table) {
    return head + what + QObject::tr(", %1 shapes in the lookup table").arg(table);
  };
}

}  // namespace

LlmRunner::LlmRunner(QObject* parent) : QObject(parent), m_tick(new QTimer(this)) {
  m_tick->setInterval(300);
  connect(m_tick, &QTimer::timeout, this, &LlmRunner::refresh);
}

void LlmRunner::report(std::shared_ptr<LlmSimulator> sim, std::function<QString(std::size_t)> line) {
  post([this, sim = std::move(sim), line = std::move(line)]() mutable {
    m_live = std::move(sim);
    m_line = std::move(line);
    refresh();
  });
}

void LlmRunner::refresh() {
  if (!m_running || !m_live || !m_line) return;
  const QString text = m_line(m_live->table().size());
  emit progressed(text);
}

LlmRunner::~LlmRunner() { stopAndWait(); }

bool LlmRunner::stopping() const { return m_running && m_cancel && m_cancel->load(); }

void LlmRunner::post(std::function<void()> onGui) {
  const unsigned generation = m_launched;  // set before the worker started, constant while it runs
  QMetaObject::invokeMethod(
      this,
      [this, generation, onGui = std::move(onGui)] {
        if (generation == m_generation) onGui();  // nothing reaches a runner that was stopped
      },
      Qt::QueuedConnection);
}

void LlmRunner::cancel() {
  if (m_running && m_cancel) m_cancel->store(true);
}

void LlmRunner::end() {
  m_running = false;
  m_tick->stop();
  m_live.reset();  // the serve's simulators go with the job; the request's stays in m_sim
  m_line = nullptr;
}

void LlmRunner::stopAndWait() {
  ++m_generation;
  end();
  if (m_cancel) m_cancel->store(true);
  if (m_thread.joinable()) m_thread.join();
}

QString LlmRunner::begin() {
  if (m_running) return tr("a run is still going (Cancel it first)");
  // The worker has posted its last report, so it returns at once.
  if (m_thread.joinable()) m_thread.join();
  return {};
}

void LlmRunner::launch(std::function<void(const std::atomic<bool>& cancel)> work) {
  m_cancel = std::make_shared<std::atomic<bool>>(false);
  m_running = true;
  m_launched = ++m_generation;
  m_live.reset();
  m_line = nullptr;
  m_tick->start();
  // `this` outlives the thread: the destructor joins it.
  m_thread = std::thread([this, work = std::move(work), cancel = m_cancel] {
    try {
      work(*cancel);
    } catch (const std::exception& e) {
      post([this, message = QString::fromStdString(e.what())] {
        end();
        emit failed(message);
      });
      return;
    }
    post([this, stopped = cancel->load()] {
      end();
      emit finished(stopped);
    });
  });
}

std::shared_ptr<LlmSimulator> LlmRunner::simulatorFor(const LlmSetup& setup) {
  if (!m_sim || !sameSetup(m_sim->setup(), setup)) {
    m_sim.reset();  // a table of another setup is of no use to this one
    m_sim = std::make_shared<LlmSimulator>(setup);
  }
  m_sim->setLmHead(setup.lmHead);
  return m_sim;
}

QString LlmRunner::startInference(const LlmSetup& setup, std::vector<SystemChoice> systems,
                                  std::int64_t batch, std::int64_t lin, std::int64_t lout) {
  if (QString busy = begin(); !busy.isEmpty()) return busy;
  auto run = std::make_shared<LlmRun>();
  std::shared_ptr<LlmSimulator> sim;
  try {
    sim = simulatorFor(setup);  // loads the model and backend: an unknown name or bad GPUs is refused here
    run->setup = setup;
    run->backend = std::make_shared<const pim::Backend>(sim->table().backend());
    run->backendEdited = run->backend->hash() != pim::builtinBackend(setup.backend).hash();
  } catch (const std::exception& e) {
    return QString::fromStdString(e.what());
  }
  launch([this, sim, run, systems = std::move(systems), batch, lin, lout](const std::atomic<bool>& cancel) {
    for (std::size_t i = 0; i < systems.size() && !cancel.load(); ++i) {
      Throttle throttle;
      const std::string name = systems[i].name();
      report(sim, stepLine(name, i, systems.size(), 0, lout - 1));
      InferenceResult one = runInference(
          *sim, {systems[i]}, batch, lin, lout,
          [&](const LlmProgress& p) {
            if (throttle.due(p.step == p.steps))
              report(sim, stepLine(name, i, systems.size(), p.step, p.steps));
          },
          &cancel);
      if (cancel.load() && !one.systems.front().available) break;  // cut short: not a result
      SystemResult done = std::move(one.systems.front());
      one.systems = std::move(run->result.systems);
      run->result = std::move(one);  // the request's heading (model, sizes) with the systems so far
      run->result.systems.push_back(std::move(done));
      post([this, copy = std::make_shared<const LlmRun>(*run)] { emit inferenceUpdated(copy); });
    }
  });
  return {};
}

QString LlmRunner::startServe(const LlmSetup& setup, SystemChoice system, const StreamSpec& spec) {
  if (QString busy = begin(); !busy.isEmpty()) return busy;
  std::shared_ptr<LlmSimulator> online, offline;
  try {
    streamRequests(spec);  // an empty range or no requests is refused before anything runs
    online = std::make_shared<LlmSimulator>(setup);
    offline = std::make_shared<LlmSimulator>(setup);
  } catch (const std::exception& e) {
    return QString::fromStdString(e.what());
  }
  launch([this, online, offline, system, spec](const std::atomic<bool>& cancel) {
    auto runs = std::make_shared<std::vector<ServeResult>>();
    for (LookupMode mode : {LookupMode::Online, LookupMode::Offline}) {
      if (cancel.load()) break;
      // Each mode from its own empty table: offline fills it before the stream, online while serving.
      const std::shared_ptr<LlmSimulator>& sim = mode == LookupMode::Online ? online : offline;
      const QString modeName = QString::fromLatin1(lookupModeName(mode));
      report(sim, [modeName, fill = mode == LookupMode::Offline && system.usesPim()](std::size_t table) {
        return fill ? tr("%1: compiling every shape of the stream before its first request, %2 shapes in "
                         "the lookup table")
                          .arg(modeName)
                          .arg(table)
                    : tr("%1: request 1, %2 shapes in the lookup table").arg(modeName).arg(table);
      });
      Throttle throttle;
      ServeResult partial;  // the requests served so far, drawn while the stream runs
      partial.mode = mode;
      partial.system = system.name();
      ServeResult r = serveStream(
          *sim, system, spec, mode,
          [&](const ServedRequest& q) {
            partial.requests.push_back(q);
            if (q.compileMs > 0) partial.warmup = q.index + 1;  // as serveStream counts it
            partial.tableSize = q.tableSize;
            if (!throttle.due(q.index + 1 == spec.requests)) return;
            auto copy = std::make_shared<std::vector<ServeResult>>(*runs);
            copy->push_back(partial);
            post([this, copy = std::shared_ptr<const std::vector<ServeResult>>(std::move(copy))] {
              emit served(copy);
            });
            report(sim, [modeName, q, n = spec.requests](std::size_t table) {
              return tr("%1: request %2 of %3 served, %4 shapes in the lookup table")
                  .arg(modeName)
                  .arg(q.index + 1)
                  .arg(n)
                  .arg(table);
            });
          },
          &cancel);
      if (cancel.load() && r.requests.empty()) break;  // stopped before its first request: nothing to show
      runs->push_back(std::move(r));
      post([this, copy = std::make_shared<const std::vector<ServeResult>>(*runs)] { emit served(copy); });
    }
  });
  return {};
}

}  // namespace pimgui
