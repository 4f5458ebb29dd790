#include "report/energy_section.h"

#include <fmt/format.h>

#include <algorithm>

#include "analysis/energy_analysis.h"
#include "core/quantity_format.h"

namespace kopt {

std::string JoulesText(double joules) {
  return FormatScaled(joules, "J", QuantityStyle::kTrimmed);
}

std::string EnergyCountText(double count, EnergyTerm term) {
  return FormatEnergyCount(count, term, QuantityStyle::kTrimmed);
}

std::string EnergyHeadline(const KernelEnergy& energy) {
  if (energy.skipped) return "no prediction";
  const EnergyPrediction& prediction = energy.prediction;
  std::string text = "predicted dynamic energy " + JoulesText(prediction.dynamic_joules) + " per launch";
  if (prediction.average_dynamic_watts > 0)
    text += " · average dynamic power " +
            FormatScaled(prediction.average_dynamic_watts, "W", QuantityStyle::kTrimmed);
  if (!prediction.missing_metrics.empty()) text += " (a lower bound)";
  return text;
}

std::string EnergySourceText(const KernelEnergy& energy) {
  std::string source =
      energy.prediction.coefficients_source.empty() ? "unknown" : energy.prediction.coefficients_source;
  return fmt::format("coefficients: {}{}", source,
                     energy.gpu_name.empty() ? "" : " (" + energy.gpu_name + ")");
}

std::vector<EnergyTermRow> EnergyTermRows(const KernelEnergy& energy, size_t limit) {
  std::vector<EnergyTermShare> terms;
  for (const EnergyTermShare& term : energy.prediction.terms)
    if (term.joules > 0) terms.push_back(term);
  std::stable_sort(terms.begin(), terms.end(),
                   [](const EnergyTermShare& a, const EnergyTermShare& b) { return a.joules > b.joules; });
  std::vector<EnergyTermRow> rows;
  double other_joules = 0, other_share = 0;
  size_t others = 0;
  for (size_t index = 0; index < terms.size(); ++index) {
    const EnergyTermShare& term = terms[index];
    if (limit > 0 && index >= limit && terms.size() > limit + 1) {
      other_joules += term.joules;
      other_share += term.share;
      ++others;
      continue;
    }
    rows.push_back({std::string(EnergyTermName(term.term)), std::string(EnergyTermTitle(term.term)),
                    EnergyCountText(term.count, term.term), JoulesText(term.joules),
                    FormatFraction(term.share, QuantityStyle::kTrimmed)});
  }
  if (others > 0)
    rows.push_back({"other", fmt::format("{} other terms", others), "", JoulesText(other_joules),
                    FormatFraction(other_share, QuantityStyle::kTrimmed)});
  return rows;
}

std::string EnergySavingText(const EnergySaving& saving) {
  return fmt::format("saves {} per launch ({} of the predicted dynamic energy)", JoulesText(saving.joules),
                     FormatFraction(saving.fraction, QuantityStyle::kTrimmed));
}

std::vector<std::string> EnergyChangeLines(const EnergySaving& saving) {
  std::vector<std::string> lines;
  for (const EnergyCountChange& change : saving.changes) {
    lines.push_back(fmt::format("{} {} → {}", EnergyTermTitle(change.term),
                                EnergyCountText(change.before, change.term),
                                EnergyCountText(change.after, change.term)));
  }
  return lines;
}

std::string EnergyChangesText(const EnergySaving& saving) {
  std::string text;
  for (const std::string& line : EnergyChangeLines(saving)) text += (text.empty() ? "" : "; ") + line;
  return text;
}

std::vector<const Finding*> FindingsWithEnergySaving(const KernelDiagnosis& kernel) {
  std::vector<const Finding*> findings;
  for (const Finding& finding : kernel.findings)
    if (finding.energy_saving) findings.push_back(&finding);
  std::stable_sort(findings.begin(), findings.end(), [](const Finding* a, const Finding* b) {
    return a->energy_saving->joules > b->energy_saving->joules;
  });
  return findings;
}

}  // namespace kopt
