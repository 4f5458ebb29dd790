// The targeted live collection: what ncu collects when `kopt explain` runs
// a program or a .cu file without --set (the fast collection).
//
// TargetedCollectionMetrics() lists every ncu metric that stage 1 (roofline,
// stalls, time attribution), the micro-profiling tools (analysis/tools/) and
// the reports read, by name or by a name pattern expanded over the values ncu
// reports on sm_90 (ops ld/st/atom/red, pipes, stall reasons). Besides them
// the collection asks for the sections TargetedCollectionSections() names:
// LaunchStats and Occupancy (the launch__* facts). device__attribute_* come
// with any collection. ncu prints the raw page (no report), so there is no
// source page: the tools that read one use it only to refine (locations, a
// finer estimate), never to decide whether they fire.
//
// The list is data, checked two ways by collection_metrics_test.cc: every
// metric a tool declares in `required` is in it, and on every captured H200
// fixture (both example sets) the diagnosis of the raw page cut down to these
// metrics (plus launch__*/device__*), without the source page, ranks the
// findings of the full bundle the same (the test says what may differ). A tool
// that starts reading a new metric fails the second test until the metric is
// added here. scripts/targeted_metrics.py regenerates the list from the
// sources and a full-set raw page.
//
// Thread safety: immutable data.
#pragma once

#include <span>
#include <string_view>

#include "profile/profile.h"

namespace kopt {

// ncu metric names, sorted, without duplicates.
std::span<const std::string_view> TargetedCollectionMetrics();

// ncu section identifiers collected beside the metrics.
std::span<const std::string_view> TargetedCollectionSections();

// True for a metric the targeted collection records: one of the list, or a
// launch__* / device__* metric (its sections' and any collection's).
bool IsTargetedCollectionMetric(std::string_view metric);

// `profile` as the targeted collection would have recorded it: every other
// metric of its launches made absent (the accuracy check of both example
// sets: collection_metrics_test.cc and bench/diagnosis_accuracy's
// "targeted" input).
void KeepOnlyTargetedCollectionMetrics(Profile& profile);

}  // namespace kopt
