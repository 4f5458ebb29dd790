// The pieces of the energy section (KernelDiagnosis::energy) and of the
// findings' energy savings that every explain format shares: the headline,
// the rows of "where the energy goes", the saving and its count changes in
// words. Renderers add their markup; strings here are not escaped.
//
// Quantities use QuantityStyle::kTrimmed ("1.2 mJ", "412 W"), as the explain
// renderers do. Thread safety: pure functions.
#pragma once

#include <string>
#include <vector>

#include "analysis/diagnosis.h"

namespace kopt {

// "predicted dynamic energy 1.2 mJ per launch · average dynamic power 412 W"
std::string EnergyHeadline(const KernelEnergy& energy);
// "coefficients: <source> (NVIDIA H200)"
std::string EnergySourceText(const KernelEnergy& energy);

// One row of "where the energy goes".
struct EnergyTermRow {
  std::string term;    // "dram_bytes"
  std::string title;   // "DRAM traffic"
  std::string count;   // "2.15 GB", "1.2M issue"
  std::string joules;  // "0.5 mJ"
  std::string share;   // "41.2%"
};
// The terms that cost energy (joules > 0), most first; `limit` > 0 keeps the
// first `limit` and folds the rest into one "other terms" row.
std::vector<EnergyTermRow> EnergyTermRows(const KernelEnergy& energy, size_t limit = 0);

// "saves 0.12 mJ per launch (9.8% of the predicted dynamic energy)"
std::string EnergySavingText(const EnergySaving& saving);
// "FP64 pipe 1.2M issue → 0" for each changed count.
std::vector<std::string> EnergyChangeLines(const EnergySaving& saving);
std::string EnergyChangesText(const EnergySaving& saving);  // the lines joined with "; "
// A term's count in its unit: bytes as bytes, seconds as a duration, others with an SI prefix.
std::string EnergyCountText(double count, EnergyTerm term);
std::string JoulesText(double joules);  // "1.2 mJ"

// The findings of `kernel` with an energy saving, largest saving first.
std::vector<const Finding*> FindingsWithEnergySaving(const KernelDiagnosis& kernel);

}  // namespace kopt
