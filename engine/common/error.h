// SPDX-License-Identifier: Apache-2.0
#pragma once
#include <stdexcept>
#include <string>

namespace pim {

/// An error caused by user input (a file, a flag, a size). The message already names what and where
/// ("datasets/backends/x.json: timing.tRCD: must be a positive integer"); callers print it as one line.
class InputError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

}  // namespace pim
