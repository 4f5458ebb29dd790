// Pieces the search policies share (search_policy.h): which nodes may be
// expanded, the baselines' child limits, proposal construction and the
// per-proposal random generator. Internal to src/search/.
//
// Thread safety: pure functions over a tree.
#pragma once

#include <cstdint>
#include <optional>
#include <random>
#include <string>
#include <vector>

#include "search/search_policy.h"
#include "search/search_tree.h"

namespace kopt {

// Finished, not a duplicate, not closed: a node a policy may give a child.
bool IsOpenParent(const SearchTree& tree, NodeId id);

// True when the root is recorded and verified (a search can start).
bool RootUsable(const SearchTree& tree);

// The baselines' rule: a failed node gets one repair unless it is itself a
// repair; any other node up to baseline_max_children children.
int BaselineChildLimit(const SearchTree& tree, NodeId id, const SearchSettings& settings);

// Open failed nodes that have not had their one repair yet (baselines), newest first.
std::vector<NodeId> NodesAwaitingRepair(const SearchTree& tree, const SearchSettings& settings);

// Open verified nodes below the baseline child limit, in id order.
std::vector<NodeId> ExpandableVerifiedNodes(const SearchTree& tree, const SearchSettings& settings);

// The `count` best of `candidates` by IsBetterCandidate, best first
// (selection by repeated scans: the order is not a strict weak ordering).
std::vector<NodeId> BestNodes(const SearchTree& tree, std::vector<NodeId> candidates, size_t count);

// A kExpand proposal for `parent` with ChildModeFor's mode.
Proposal ExpandProposal(const SearchTree& tree, NodeId parent, std::string reason);
// kWait when something is pending, else kExhausted.
Proposal NothingToExpand(const SearchTree& tree);

// A generator seeded from (seed, tree.size()): the same tree, the same draws.
std::mt19937_64 ProposalGenerator(uint64_t seed, const SearchTree& tree);

}  // namespace kopt
