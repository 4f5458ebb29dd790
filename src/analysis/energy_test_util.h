// Test utilities for the energy tests (analysis/energy_analysis_test.cc,
// analysis/tools/hidden_compute_energy_test.cc): a coefficient table of the
// test's own round numbers (never a real GPU's) and hand-made SASS
// instructions. Header-only, linked into kopt_tests.
#pragma once

#include <map>
#include <string>
#include <utility>

#include "hw/energy_coefficients.h"
#include "profile/sass.h"

namespace kopt {

// A table for "NVIDIA H200" (path "test table") with `joules` per unit for the
// listed terms and 0 for the others.
inline EnergyCoefficients TestEnergyTable(const std::map<EnergyTerm, double>& joules) {
  EnergyCoefficients table;
  table.gpu_name = "NVIDIA H200";
  table.path = "test table";
  for (EnergyTerm term : AllEnergyTerms()) {
    auto found = joules.find(term);
    table.coefficients.push_back({term, found == joules.end() ? 0.0 : found->second, "test value"});
  }
  return table;
}

// Plausible per-unit energies of the shape a fit gives, in round numbers (not a
// real GPU's; the values tests/fixtures/energy/test-h200.energy.toml gives these terms).
inline const EnergyCoefficients& PlausibleTestEnergyTable() {
  static const EnergyCoefficients table = TestEnergyTable({{EnergyTerm::kDramBytes, 2e-11},
                                                           {EnergyTerm::kL2Bytes, 5e-12},
                                                           {EnergyTerm::kL1Bytes, 2e-12},
                                                           {EnergyTerm::kLocalBytes, 2e-12},
                                                           {EnergyTerm::kSharedWavefronts, 1e-11},
                                                           {EnergyTerm::kFmaPipe, 5e-10},
                                                           {EnergyTerm::kAluPipe, 3e-10},
                                                           {EnergyTerm::kFp64Pipe, 1.5e-9},
                                                           {EnergyTerm::kXuPipe, 4e-10},
                                                           {EnergyTerm::kLsuPipe, 3e-10},
                                                           {EnergyTerm::kActiveSeconds, 150}});
  return table;
}

inline SassInstruction TestInstruction(std::string opcode, std::string modifiers = "",
                                       std::string predicate = "") {
  SassInstruction instruction;
  instruction.opcode = std::move(opcode);
  instruction.modifiers = std::move(modifiers);
  instruction.predicate = std::move(predicate);
  return instruction;
}

}  // namespace kopt
