// SPDX-License-Identifier: Apache-2.0
// What ResultsStore::open checks about the path before SQLite sees it (store.cpp).
#pragma once
#include <string>

namespace pim {

/// Throws InputError "<path>: its folder F is read-only (...)" or "<path>: is read-only (...)" when the store
/// or its folder cannot be written (permissions, an immutable file, a read-only file system). Other problems
/// (a missing folder) are left to SQLite's open, which names them.
void requireWritableStore(const std::string& path);

}  // namespace pim
