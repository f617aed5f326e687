// SPDX-License-Identifier: Apache-2.0
// Starting worker threads without std::terminate: std::vector<std::thread>::emplace_back throws
// std::system_error when the system refuses a thread (a thread limit, no memory for a stack), and unwinding
// past the threads already running destroys joinable std::thread objects, which terminates the process.
#pragma once
#include <algorithm>
#include <cstddef>
#include <system_error>
#include <thread>
#include <vector>

namespace pim {

/// The threads a caller asked for, where 0 asks for one per hardware thread (at least 1).
inline unsigned workerThreads(unsigned asked) {
  return asked ? asked : std::max(1u, std::thread::hardware_concurrency());
}

/// Starts up to `count` threads, the i-th running `body(i)`, and stops at the first one the system refuses.
/// Returns how many started (all joinable, in `pool`). Callers share their work out dynamically or do what
/// no thread took themselves, so fewer threads than asked is slower, never wrong.
template <class Body>
std::size_t startThreads(std::vector<std::thread>& pool, std::size_t count, const Body& body) {
  pool.reserve(pool.size() + count);  // no reallocation (and no bad_alloc) once threads run
  for (std::size_t i = 0; i < count; ++i) {
    try {
      pool.emplace_back(body, i);
    } catch (const std::system_error&) {
      return i;
    }
  }
  return count;
}

}  // namespace pim
