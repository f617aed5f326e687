// SPDX-License-Identifier: Apache-2.0
// Runs the LLM view's work off the GUI thread (issue 21): one request on several systems (runInference, one
// system at a time so each finished system reaches the view at once and a Cancel keeps them), or a request
// stream served online then offline (serveStream, DCC Fig. 15). The request's simulator is kept while the
// setup is unchanged, so DCC's lookup table stays warm from one Run to the next; a stream gets two fresh
// ones (online must start from an empty table). One job at a time: a new one starts only after the last
// reported `finished` or `failed`, so the simulator is never used by two threads.
#pragma once
#include <QObject>
#include <QString>
#include <atomic>
#include <cstdint>
#include <functional>
#include <memory>
#include <thread>
#include <vector>

#include "engine/hw/backend.h"
#include "engine/llm/serve.h"

class QTimer;

namespace pimgui {

/// What one Run produced so far: the systems that finished, and the PIM backend as the run used it.
struct LlmRun {
  pim::llm::InferenceResult result;
  pim::llm::LlmSetup setup;
  std::shared_ptr<const pim::Backend> backend;  // the setup's devices and power constraint applied
  bool backendEdited = false;                   // differs from the shipped backend of that name
};

class LlmRunner : public QObject {
  Q_OBJECT
 public:
  explicit LlmRunner(QObject* parent = nullptr);
  ~LlmRunner() override;

  /// Starts `systems` on one request. Returns "" when started, else the engine's message (an unknown model,
  /// GPUs outside 1..8, a run still going); request sizes are checked by the engine on the worker, whose
  /// message arrives as `failed` before anything ran.
  QString startInference(const pim::llm::LlmSetup& setup, std::vector<pim::llm::SystemChoice> systems,
                         std::int64_t batch, std::int64_t lin, std::int64_t lout);
  /// Serves `spec` on `system` online, then offline. Returns "" when started, else the reason.
  QString startServe(const pim::llm::LlmSetup& setup, pim::llm::SystemChoice system,
                     const pim::llm::StreamSpec& spec);
  /// The running job stops within a decode step (a compilation in flight finishes first); what finished was
  /// delivered, and `finished(true)` follows.
  void cancel();
  bool running() const { return m_running; }
  bool stopping() const;
  /// Cancels and joins the worker (shutdown, tests).
  void stopAndWait();

 signals:
  /// "attacc-full (2 of 5): step 17 of 127, 36 shapes in the lookup table".
  void progressed(const QString& line);
  /// After every finished system: every system finished so far.
  void inferenceUpdated(std::shared_ptr<const pimgui::LlmRun> run);
  /// After every served mode (online, then offline): the runs so far.
  void served(std::shared_ptr<const std::vector<pim::llm::ServeResult>> runs);
  /// The engine refused the input (nothing ran) or stopped with an error; no `finished` follows.
  void failed(const QString& message);
  void finished(bool cancelled);

 private:
  QString begin();  // joins the last worker; "" when a job may start
  void post(std::function<void()> onGui);
  /// From the worker: the phase it is in now, as a line of the table size. The line is shown at once and
  /// again every 300 ms with the live size, so a compilation between two steps still shows progress.
  void report(std::shared_ptr<pim::llm::LlmSimulator> sim, std::function<QString(std::size_t)> line);
  void refresh();
  void end();  // on the GUI thread, when the job's last report arrived
  void launch(std::function<void(const std::atomic<bool>& cancel)> work);
  std::shared_ptr<pim::llm::LlmSimulator> simulatorFor(const pim::llm::LlmSetup& setup);

  std::thread m_thread;
  std::shared_ptr<std::atomic<bool>> m_cancel;
  bool m_running = false;
  unsigned m_generation = 0;  // drops what a worker reports after stopAndWait
  unsigned m_launched = 0;    // the generation of the worker's job (what post() stamps its reports with)
  std::shared_ptr<pim::llm::LlmSimulator> m_sim;   // the request's, kept while the setup is unchanged
  std::shared_ptr<pim::llm::LlmSimulator> m_live;  // the one the worker uses now (its table is thread-safe)
  std::function<QString(std::size_t)> m_line;      // the progress line, of the live table's size
  QTimer* m_tick;
};

}  // namespace pimgui
