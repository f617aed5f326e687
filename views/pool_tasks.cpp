// SPDX-License-Identifier: Apache-2.0
#include "views/pool_tasks.h"

#include <QThreadPool>

namespace pimgui {

PoolTasks::PoolTasks() : m_state(std::make_shared<State>()) {}

PoolTasks::~PoolTasks() { closeAndWait(); }

void PoolTasks::start(std::function<void()> task) {
  {
    std::lock_guard lock(m_state->mutex);
    if (m_state->closed) return;
    ++m_state->queued;
  }
  QThreadPool::globalInstance()->start([state = m_state, task = std::move(task)] {
    {
      std::lock_guard lock(state->mutex);
      --state->queued;
      if (state->closed) return;  // the owner is gone or going: do not touch it
      ++state->running;
    }
    // Decrements even if the task throws (QThreadPool would terminate, but the owner must not hang first).
    struct Done {
      State& s;
      ~Done() {
        std::lock_guard lock(s.mutex);
        --s.running;
        s.idle.notify_all();
      }
    } done{*state};
    task();
  });
}

void PoolTasks::closeAndWait() {
  std::unique_lock lock(m_state->mutex);
  m_state->closed = true;
  m_state->idle.wait(lock, [&] { return m_state->running == 0; });
}

int PoolTasks::pending() const {
  std::lock_guard lock(m_state->mutex);
  return m_state->queued + m_state->running;
}

}  // namespace pimgui
