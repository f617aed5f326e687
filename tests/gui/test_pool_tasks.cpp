// SPDX-License-Identifier: Apache-2.0
// Views with background tasks wait only for their own tasks when destroyed: closing one must not wait for an
// unrelated long task on Qt's global pool, and none of their tasks may post to them once they are gone.
#include <gtest/gtest.h>

#include <QCoreApplication>
#include <QElapsedTimer>
#include <QSemaphore>
#include <QThreadPool>
#include <atomic>
#include <functional>
#include <memory>
#include <thread>

#include "engine/core/problem.h"
#include "engine/hw/backend.h"
#include "engine/kernel/kernel.h"
#include "engine/target/registry.h"
#include "gui_test_util.h"
#include "views/draft_analysis.h"
#include "views/exploration_session.h"
#include "views/pool_tasks.h"
#include "views/pruned_lister.h"

using namespace pimgui;

namespace {

constexpr int kBlockMs = 8000;  // how long the unrelated tasks hold the pool unless released

// Occupies every thread of the global pool with an unrelated task until release() (or kBlockMs), so a task
// queued meanwhile stays queued.
class PoolHog {
 public:
  PoolHog() {
    QThreadPool* pool = QThreadPool::globalInstance();
    m_threads = pool->maxThreadCount();
    for (int i = 0; i < m_threads; ++i)
      pool->start([this] {
        m_started.release();
        m_release.tryAcquire(1, kBlockMs);
      });
    m_ok = m_started.tryAcquire(m_threads, 5000);
  }
  ~PoolHog() { release(); }
  bool ok() const { return m_ok; }
  void release() {
    if (m_released) return;
    m_released = true;
    m_release.release(m_threads);
    QThreadPool::globalInstance()->waitForDone();
    QCoreApplication::processEvents();  // anything a dropped task posted would be delivered (and crash) here
  }

 private:
  int m_threads = 0;
  bool m_ok = false, m_released = false;
  QSemaphore m_started, m_release;
};

using test::smallProblem;

// Milliseconds `destroy` took while the global pool was busy with unrelated tasks and `queue` had queued a
// task of the object.
qint64 destroyWhilePoolIsBusy(const std::function<void()>& queue, const std::function<void()>& destroy) {
  PoolHog hog;
  EXPECT_TRUE(hog.ok());
  queue();
  QElapsedTimer t;
  t.start();
  destroy();
  const qint64 ms = t.elapsed();
  hog.release();
  return ms;
}

}  // namespace

TEST(PoolTasks, DestroyingDraftAnalysisDoesNotWaitForUnrelatedPoolTasks) {
  auto runner = std::make_unique<DraftAnalysisRunner>();
  const auto problem = smallProblem();
  const qint64 ms = destroyWhilePoolIsBusy(
      [&] {
        runner->request(problem, 0, {true, true, true}, {});
        EXPECT_TRUE(runner->busy());
      },
      [&] { runner.reset(); });
  EXPECT_LT(ms, kBlockMs / 4);
}

TEST(PoolTasks, DestroyingPrunedListerDoesNotWaitForUnrelatedPoolTasks) {
  auto lister = std::make_unique<PrunedLister>();
  const qint64 ms = destroyWhilePoolIsBusy(
      [&] {
        lister->start(smallProblem(), {true, true, true});
        EXPECT_TRUE(lister->busy());
      },
      [&] { lister.reset(); });
  EXPECT_LT(ms, kBlockMs / 4);
}

TEST(PoolTasks, DestroyingExplorationSessionDoesNotWaitForUnrelatedPoolTasks) {
  auto session = std::make_unique<ExplorationSession>();
  ASSERT_TRUE(session->adopt(test::smallConfig(), {}, {}, {}, std::nullopt, {}));
  const qint64 ms = destroyWhilePoolIsBusy(
      [&] {
        session->requestSnapshot();
        EXPECT_TRUE(session->snapshotPending());
      },
      [&] { session.reset(); });
  EXPECT_LT(ms, kBlockMs / 4);
}

TEST(PoolTasks, CloseWaitsForTheRunningTaskAndDropsQueuedOnes) {
  PoolTasks tasks;
  QSemaphore started, release;
  std::atomic<bool> finished = false, lateRan = false;
  tasks.start([&] {
    started.release();
    release.tryAcquire(1, kBlockMs);
    finished = true;
  });
  ASSERT_TRUE(started.tryAcquire(1, 5000));
  EXPECT_EQ(tasks.pending(), 1);

  std::atomic<bool> closed = false;
  std::thread closer([&] {
    tasks.closeAndWait();
    closed = true;
  });
  std::this_thread::sleep_for(std::chrono::milliseconds(100));
  EXPECT_FALSE(closed.load());  // the running task has not returned yet
  release.release();
  closer.join();
  EXPECT_TRUE(finished.load());  // closeAndWait returned only after the task did

  tasks.start([&] { lateRan = true; });  // after close: never runs
  QThreadPool::globalInstance()->waitForDone();
  EXPECT_FALSE(lateRan.load());
  EXPECT_EQ(tasks.pending(), 0);
}

TEST(PoolTasks, ATaskQueuedAtCloseNeverRuns) {
  std::atomic<bool> ran = false;
  {
    PoolHog hog;
    ASSERT_TRUE(hog.ok());
    PoolTasks tasks;
    tasks.start([&] { ran = true; });
    EXPECT_EQ(tasks.pending(), 1);
    QElapsedTimer t;
    t.start();
    tasks.closeAndWait();
    EXPECT_LT(t.elapsed(), kBlockMs / 4);
  }  // the hog releases the pool: the queued task is dequeued as a no-op
  EXPECT_FALSE(ran.load());
}
