// SPDX-License-Identifier: Apache-2.0
// The kernel box of the control panel and of the comparison: the library's kernels by name, at most one
// item for a kernel file, and (the control panel's) the shipped networks explored whole, told apart by their
// item data.
#pragma once
#include <QString>

class QComboBox;

namespace pimgui {

/// Selects the kernel-file item of `box`, adding it if missing, labelled `text` with `path` as its tooltip.
void selectKernelFileItem(QComboBox* box, const QString& text, const QString& path);
/// Whether the current item of `box` is its kernel-file item (not a library kernel).
bool isKernelFileItem(const QComboBox* box);
/// The library kernel `box` selects, or "" when it selects the kernel file or a network.
QString libraryKernelName(const QComboBox* box);
/// Appends the shipped networks (pim::builtinNetworkNames) after a separator, as "resnet18 (network)".
void addNetworkItems(QComboBox* box);
/// The shipped network `box` selects, or "" when it selects a kernel.
QString selectedNetwork(const QComboBox* box);
/// The index of network `name`'s item, -1 when there is none.
int networkItemIndex(const QComboBox* box, const QString& name);

}  // namespace pimgui
