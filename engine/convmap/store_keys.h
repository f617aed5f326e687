// SPDX-License-Identifier: Apache-2.0
// What a stored conv mapping is keyed by (ResultsStore::putMapping, docs/store.md): the hierarchy's numbers
// (not its name: a renamed copy is the same hardware, an edited one is not), the layer's shape (not its
// name) and the objective with its weight.
#pragma once
#include <string>

#include "engine/convmap/evaluator.h"

namespace pim::convmap {

/// SHA-256 of every number the model reads from `h` (element size, PE array, timing, each level's fields)
/// and of the model's version (bumped whenever the evaluator changes a number, so older rows no longer
/// match).
std::string hierarchyHash(const Hierarchy& h);
/// "R=3,S=3,P=56,Q=56,C=64,K=64,N=1,stride=1x1,dilation=1x1,bytes=1/1/1".
std::string layerKey(const ConvLayer& layer);
/// "latency", "energy" or "blended(alpha=0.5)".
std::string objectiveKey(const ObjectiveSpec& o);

}  // namespace pim::convmap
