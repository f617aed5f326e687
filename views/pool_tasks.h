// SPDX-License-Identifier: Apache-2.0
// Background tasks of one object, run on Qt's global thread pool, that the object can wait for on its own.
// QThreadPool::globalInstance()->waitForDone() in a destructor waits for every task of the process (another
// view's analysis, an unrelated long computation), so closing one view could freeze the window for as long
// as the slowest unrelated task. This waits only for the owner's tasks.
#pragma once
#include <condition_variable>
#include <functional>
#include <memory>
#include <mutex>

namespace pimgui {

class PoolTasks {
 public:
  PoolTasks();
  /// Calls closeAndWait().
  ~PoolTasks();
  PoolTasks(const PoolTasks&) = delete;
  PoolTasks& operator=(const PoolTasks&) = delete;

  /// Queues `task` on QThreadPool::globalInstance(). It runs unless closeAndWait() comes first: a task still
  /// queued then never runs (it may capture its owner, which is going away).
  void start(std::function<void()> task);
  /// From then on no task of this group starts; returns once the ones running have returned. Owners call it
  /// first thing in their destructor, so no task can post to a destroyed object.
  void closeAndWait();
  /// Tasks started and not yet returned or dropped (queued or running).
  int pending() const;

 private:
  // Shared with the queued tasks, which may outlive this object (dropped ones run as no-ops after it).
  struct State {
    mutable std::mutex mutex;
    std::condition_variable idle;
    bool closed = false;
    int queued = 0, running = 0;
  };
  std::shared_ptr<State> m_state;
};

}  // namespace pimgui
