// JSON renderer: the Diagnosis as a versioned document (docs/json-schema.md).
#include "report/json_renderer.h"

#include <cmath>
#include <string>

#include "report/renderer.h"
#include "report/summary.h"

namespace kopt {

nlohmann::ordered_json JsonQuantity(double value, std::string_view unit) {
  nlohmann::ordered_json quantity;
  quantity["value"] = std::isfinite(value) ? nlohmann::ordered_json(value) : nlohmann::ordered_json(nullptr);
  quantity["unit"] = std::string(unit);
  return quantity;
}

namespace {

using Json = nlohmann::ordered_json;

Json Quantity(double value, std::string_view unit) {
  return JsonQuantity(value, unit);
}

// A quantity whose zero means "unknown" (peaks in the spec and the roofline): null then.
Json KnownQuantity(double value, std::string_view unit) {
  return value > 0 ? Quantity(value, unit) : Json(nullptr);
}

Json OptionalQuantity(const std::optional<double>& value, std::string_view unit) {
  return value ? Quantity(*value, unit) : Json(nullptr);
}

Json OptionalText(const std::string& text) {
  return text.empty() ? Json(nullptr) : Json(text);
}

Json StringList(const std::vector<std::string>& strings) {
  Json list = Json::array();
  for (const std::string& text : strings) list.push_back(text);
  return list;
}

Json DimensionsJson(const LaunchDimensions& dimensions, std::string_view unit) {
  Json json;
  json["x"] = dimensions.x;
  json["y"] = dimensions.y;
  json["z"] = dimensions.z;
  json["unit"] = std::string(unit);
  return json;
}

Json GpuPeaksJson(const GpuSpec& gpu) {
  Json peaks;
  peaks["fp64"] = KnownQuantity(gpu.fp64_flops, "FLOP/s");
  peaks["tensor_fp64"] = KnownQuantity(gpu.fp64_tensor_flops, "FLOP/s");
  peaks["fp32"] = KnownQuantity(gpu.fp32_flops, "FLOP/s");
  peaks["fp16"] = KnownQuantity(gpu.fp16_flops, "FLOP/s");
  peaks["tensor_tf32"] = KnownQuantity(gpu.tf32_tensor_flops, "FLOP/s");
  peaks["tensor_fp16"] = KnownQuantity(gpu.fp16_tensor_flops, "FLOP/s");
  peaks["tensor_bf16"] = KnownQuantity(gpu.bf16_tensor_flops, "FLOP/s");
  peaks["tensor_fp8"] = KnownQuantity(gpu.fp8_tensor_flops, "FLOP/s");
  peaks["tensor_int8"] = KnownQuantity(gpu.int8_tensor_ops, "OP/s");
  return peaks;
}

Json GpuJson(const GpuSpec& gpu) {
  Json json;
  json["key"] = gpu.key;
  json["name"] = gpu.name;
  json["device_names"] = StringList(gpu.device_names);
  json["compute_capability"] = gpu.compute_capability;
  json["sm_count"] = KnownQuantity(gpu.sm_count, "SM");
  json["boost_clock"] = KnownQuantity(gpu.boost_clock_hz, "Hz");
  json["memory_clock"] = KnownQuantity(gpu.memory_clock_hz, "Hz");
  json["peaks"] = GpuPeaksJson(gpu);
  json["dram_bandwidth"] = KnownQuantity(gpu.dram_bytes_per_second, "byte/s");
  json["dram_capacity"] = KnownQuantity(gpu.dram_capacity_bytes, "byte");
  json["l2_cache"] = KnownQuantity(gpu.l2_cache_bytes, "byte");
  json["shared_memory_per_sm"] = KnownQuantity(gpu.shared_memory_per_sm_bytes, "byte");
  json["registers_per_sm"] = KnownQuantity(gpu.registers_per_sm, "register");
  json["max_warps_per_sm"] = KnownQuantity(gpu.max_warps_per_sm, "warp");
  json["tdp"] = KnownQuantity(gpu.tdp_watts, "W");
  json["source"] = gpu.source;
  return json;
}

Json ComputeJson(const ComputeWork& work) {
  std::string unit(OperationUnit(work.precision));
  Json json;
  json["precision"] = work.precision;
  json["work"] = Quantity(work.operations, unit);
  json["achieved"] = Quantity(work.achieved_per_second, unit + "/s");
  json["peak"] = KnownQuantity(work.peak_per_second, unit + "/s");
  json["percent_of_peak"] = work.peak_per_second > 0 ? Quantity(work.percent_of_peak, "%") : Json(nullptr);
  json["peak_source"] = OptionalText(work.peak_source);
  return json;
}

Json MemoryJson(const MemoryTraffic& traffic) {
  Json json;
  json["level"] = traffic.level;
  json["bytes"] = Quantity(traffic.bytes, "byte");
  json["achieved"] = Quantity(traffic.achieved_bytes_per_second, "byte/s");
  json["peak"] = KnownQuantity(traffic.peak_bytes_per_second, "byte/s");
  json["percent_of_peak"] =
      traffic.peak_bytes_per_second > 0 ? Quantity(traffic.percent_of_peak, "%") : Json(nullptr);
  json["peak_source"] = OptionalText(traffic.peak_source);
  return json;
}

Json Stage1Json(const RooflineAnalysis& roofline) {
  Json json;
  json["bottleneck_class"] = std::string(BottleneckClassName(roofline.bottleneck));
  json["reason"] = roofline.reason;
  json["duration"] = Quantity(roofline.duration_ns, "ns");
  json["floor"] = KnownQuantity(roofline.floor_ns, "ns");
  json["speed_of_light"] = Quantity(roofline.speed_of_light_percent, "%");
  // false: nothing behind the speed of light was measured, and its 0% is no measurement (schema 1.7).
  json["speed_of_light_measured"] = roofline.speed_of_light_known;
  json["sm_throughput"] = OptionalQuantity(roofline.sm_throughput_percent, "%");
  json["memory_throughput"] = OptionalQuantity(roofline.memory_throughput_percent, "%");
  json["total_work"] = Quantity(roofline.total_flops, "FLOP");
  json["arithmetic_intensity"] = Quantity(roofline.arithmetic_intensity, "FLOP/byte");
  json["ridge_point"] = KnownQuantity(roofline.ridge_point, "FLOP/byte");
  json["dominant_precision"] = OptionalText(roofline.dominant_precision);
  json["compute_percent_of_peak"] = Quantity(roofline.compute_percent_of_peak, "%");
  json["busiest_memory_level"] = OptionalText(roofline.busiest_memory_level);
  json["memory_percent_of_peak"] = Quantity(roofline.memory_percent_of_peak, "%");
  json["compute"] = Json::array();
  for (const ComputeWork& work : roofline.compute) json["compute"].push_back(ComputeJson(work));
  json["memory"] = Json::array();
  for (const MemoryTraffic& traffic : roofline.memory) json["memory"].push_back(MemoryJson(traffic));
  json["missing_metrics"] = StringList(roofline.missing_metrics);
  return json;
}

Json StallJson(const StallReason& stall) {
  Json json;
  json["name"] = stall.name;
  json["cycles_per_issue"] = Quantity(stall.cycles_per_issue, "cycle/inst");
  json["share"] = Quantity(stall.share, "fraction");
  return json;
}

Json EvidenceJson(const Evidence& evidence) {
  Json json;
  json["metric"] = evidence.metric;
  json["value"] = Quantity(evidence.value, evidence.unit);
  json["comparison"] = OptionalText(evidence.comparison);
  json["threshold"] =
      evidence.comparison.empty() ? Json(nullptr) : Quantity(evidence.threshold, evidence.unit);
  return json;
}

Json RecommendationJson(const Recommendation& recommendation, size_t rank) {
  Json json;
  json["rank"] = rank;
  json["change"] = recommendation.change;
  json["why"] = recommendation.why;
  json["expected_effect"] = recommendation.expected_effect;
  return json;
}

Json LocationJson(const Location& location) {
  bool has_sass = !location.sass_text.empty() || location.sass_offset != 0;
  Json json;
  json["source_line"] = OptionalText(location.source_line);
  json["sass_offset"] =
      has_sass ? Quantity(static_cast<double>(location.sass_offset), "byte") : Json(nullptr);
  json["sass_text"] = OptionalText(location.sass_text);
  json["stall_share"] = Quantity(location.stall_share, "fraction");
  bool waited_on = location.waiting_share > 0;
  json["waiting_share"] = Quantity(location.waiting_share, "fraction");
  json["waiting_sass_offset"] =
      waited_on ? Quantity(static_cast<double>(location.waiting_sass_offset), "byte") : Json(nullptr);
  json["waiting_sass_text"] = waited_on ? OptionalText(location.waiting_sass_text) : Json(nullptr);
  return json;
}

Json EnergySavingJson(const EnergySaving& saving) {
  Json json;
  json["energy"] = Quantity(saving.joules, "J");
  json["share"] = Quantity(saving.fraction, "fraction");
  json["method"] = saving.method;
  json["changes"] = Json::array();
  for (const EnergyCountChange& change : saving.changes) {
    std::string_view unit = EnergyTermUnit(change.term);
    json["changes"].push_back(Json{{"term", std::string(EnergyTermName(change.term))},
                                   {"before", Quantity(change.before, unit)},
                                   {"after", Quantity(change.after, unit)}});
  }
  return json;
}

Json KernelEnergyJson(const KernelEnergy& energy) {
  const EnergyPrediction& prediction = energy.prediction;
  Json json;
  json["coefficients"] =
      Json{{"gpu", OptionalText(energy.gpu_name)}, {"source", OptionalText(prediction.coefficients_source)}};
  json["skipped"] = energy.skipped;
  json["dynamic_energy"] = energy.skipped ? Json(nullptr) : Quantity(prediction.dynamic_joules, "J");
  json["average_dynamic_power"] = KnownQuantity(prediction.average_dynamic_watts, "W");
  json["terms"] = Json::array();
  for (const EnergyTermShare& term : prediction.terms) {
    json["terms"].push_back(Json{{"term", std::string(EnergyTermName(term.term))},
                                 {"title", std::string(EnergyTermTitle(term.term))},
                                 {"count", Quantity(term.count, EnergyTermUnit(term.term))},
                                 {"energy", Quantity(term.joules, "J")},
                                 {"share", Quantity(term.share, "fraction")}});
  }
  json["missing_metrics"] = StringList(prediction.missing_metrics);
  json["notes"] = StringList(energy.notes);
  return json;
}

Json FindingJson(const Finding& finding, size_t rank) {
  Json json;
  json["rank"] = rank;
  json["tool"] = finding.tool;
  json["title"] = finding.title;
  json["severity"] = std::string(SeverityName(finding.severity));
  json["estimated_gain"] = Quantity(finding.estimated_gain, "fraction");
  json["gain_method"] = finding.gain_method;
  json["confidence"] = Quantity(finding.confidence, "fraction");
  json["root_cause"] = finding.root_cause;
  json["evidence"] = Json::array();
  for (const Evidence& evidence : finding.evidence) json["evidence"].push_back(EvidenceJson(evidence));
  json["recommendations"] = Json::array();
  for (size_t index = 0; index < finding.recommendations.size(); ++index) {
    json["recommendations"].push_back(RecommendationJson(finding.recommendations[index], index + 1));
  }
  json["locations"] = Json::array();
  for (const Location& location : finding.locations) json["locations"].push_back(LocationJson(location));
  json["merged_tools"] = StringList(finding.merged_tools);
  json["energy_saving"] = finding.energy_saving ? EnergySavingJson(*finding.energy_saving) : Json(nullptr);
  return json;
}

Json SkippedToolJson(const SkippedTool& skipped) {
  Json json;
  json["tool"] = skipped.tool;
  json["missing"] = StringList(skipped.missing);
  json["how_to_collect"] = OptionalText(skipped.how_to_collect);
  return json;
}

Json LaunchSpreadJson(const LaunchSpread& spread) {
  Json json;
  json["count"] = Quantity(static_cast<double>(spread.count), "launch");
  json["first_launch_id"] = spread.first_launch_id;
  json["last_launch_id"] = spread.last_launch_id;
  json["duration_min"] = OptionalQuantity(spread.minimum_duration_ns, "ns");
  json["duration_median"] = OptionalQuantity(spread.median_duration_ns, "ns");
  json["duration_max"] = OptionalQuantity(spread.maximum_duration_ns, "ns");
  json["duration_total"] = OptionalQuantity(spread.total_duration_ns, "ns");
  return json;
}

Json KernelJson(const KernelDiagnosis& kernel) {
  Json json;
  json["launch_id"] = kernel.launch_id;
  json["launches"] = LaunchSpreadJson(kernel.launches);
  json["kernel_name"] = kernel.kernel_name;
  json["function_name"] = kernel.function_name;
  json["grid"] = DimensionsJson(kernel.grid, "block");
  json["block"] = DimensionsJson(kernel.block, "thread");
  json["registers_per_thread"] = OptionalQuantity(kernel.registers_per_thread, "register/thread");
  json["shared_memory_per_block"] = OptionalQuantity(kernel.shared_memory_per_block_bytes, "byte");
  json["stage1"] = Stage1Json(kernel.roofline);
  json["stalls"] = Json::array();
  for (const StallReason& stall : kernel.stalls) json["stalls"].push_back(StallJson(stall));
  json["findings"] = Json::array();
  for (size_t index = 0; index < kernel.findings.size(); ++index) {
    json["findings"].push_back(FindingJson(kernel.findings[index], index + 1));
  }
  json["skipped_tools"] = Json::array();
  for (const SkippedTool& skipped : kernel.skipped_tools)
    json["skipped_tools"].push_back(SkippedToolJson(skipped));
  json["ncu_rules"] = Json::array();
  for (const NcuRuleResult& rule : kernel.ncu_rules) {
    json["ncu_rules"].push_back(
        Json{{"name", rule.name},
             {"type", rule.type},
             {"section", rule.section},
             {"estimated_speedup", OptionalQuantity(rule.estimated_speedup_percent, "%")},
             {"speedup_type", OptionalText(rule.speedup_type)},
             {"description", rule.description}});
  }
  json["notes"] = StringList(kernel.notes);
  json["energy"] = kernel.energy ? KernelEnergyJson(*kernel.energy) : Json(nullptr);
  return json;
}

Json ClaimJson(const NumericClaim& claim) {
  Json json;
  json["text"] = claim.text;
  json["offset"] = claim.offset;
  json["value"] = Quantity(claim.value, claim.unit);
  json["supported"] = claim.supported;
  if (claim.supported) {
    json["evidence"] =
        Json{{"label", claim.evidence_label}, {"value", Quantity(claim.evidence_value, claim.evidence_unit)}};
  } else {
    json["evidence"] = nullptr;
  }
  return json;
}

Json HypothesisJson(const HypothesisOutcome& hypothesis) {
  Json json;
  json["prediction"] = hypothesis.prediction;
  json["origin"] = hypothesis.origin;
  json["kernel"] = OptionalText(hypothesis.kernel);
  json["location"] = OptionalText(hypothesis.location);
  json["rationale"] = OptionalText(hypothesis.rationale);
  json["verdict"] = hypothesis.verdict;
  json["finding"] = OptionalText(hypothesis.finding);
  json["explanation"] = OptionalText(hypothesis.explanation);
  json["evidence"] = Json::array();
  for (const HypothesisEvidence& evidence : hypothesis.evidence) {
    json["evidence"].push_back(
        Json{{"metric", evidence.metric}, {"value", Quantity(evidence.value, evidence.unit)}});
  }
  return json;
}

class JsonRenderer : public Renderer {
 public:
  std::string Render(const Diagnosis& diagnosis) const override {
    // Invalid UTF-8 in untrusted names is replaced rather than thrown on.
    return DiagnosisToJson(diagnosis).dump(2, ' ', false, Json::error_handler_t::replace) + "\n";
  }
};

}  // namespace

nlohmann::ordered_json NarrativeToJson(const Narrative& narrative) {
  using Json = nlohmann::ordered_json;
  Json json;
  json["text"] = OptionalText(narrative.text);
  json["missing_reason"] = OptionalText(narrative.missing_reason);
  json["model"] = OptionalText(narrative.model);
  json["prompt_templates"] = Json::array();
  for (const PromptTemplateUse& use : narrative.templates) {
    json["prompt_templates"].push_back(Json{{"id", use.id}, {"version", use.version}, {"sha256", use.hash}});
  }
  json["regenerated"] = narrative.regenerated;
  json["first_attempt_unsupported"] = StringList(narrative.first_attempt_unsupported);
  json["regeneration_error"] = OptionalText(narrative.regeneration_error);
  json["unsupported_claims"] = Quantity(static_cast<double>(narrative.UnsupportedCount()), "claim");
  json["claims"] = Json::array();
  for (const NumericClaim& claim : narrative.claims) json["claims"].push_back(ClaimJson(claim));
  json["input_tokens"] = Quantity(static_cast<double>(narrative.input_tokens), "token");
  json["output_tokens"] = Quantity(static_cast<double>(narrative.output_tokens), "token");
  json["replayed"] = narrative.replayed;
  return json;
}

nlohmann::ordered_json DiagnosisToJson(const Diagnosis& diagnosis) {
  Json json;
  json["schema_version"] = std::string(kJsonSchemaVersion);
  json["tool"] = "kopt";
  json["version"] = KOPT_VERSION;
  json["source"] = diagnosis.source;
  json["device_name"] = diagnosis.device_name;
  json["gpu"] = diagnosis.gpu ? GpuJson(*diagnosis.gpu) : Json(nullptr);
  json["inputs"] = Json::array();
  for (const InputUse& input : diagnosis.inputs) {
    json["inputs"].push_back(Json{{"path", input.path},
                                  {"role", input.role},
                                  {"origin", input.origin},
                                  {"effects", StringList(input.effects)}});
  }
  json["kernels"] = Json::array();
  for (const KernelDiagnosis& kernel : diagnosis.kernels) json["kernels"].push_back(KernelJson(kernel));
  json["notes"] = StringList(diagnosis.notes);
  json["hypotheses"] = Json(nullptr);
  if (diagnosis.hypotheses_run) {
    json["hypotheses"] = Json::array();
    for (const HypothesisOutcome& hypothesis : diagnosis.hypotheses) {
      json["hypotheses"].push_back(HypothesisJson(hypothesis));
    }
  }
  json["narrative"] = diagnosis.narrative ? NarrativeToJson(*diagnosis.narrative) : Json(nullptr);
  if (!diagnosis.collection_phases.empty()) {  // live collection only (schema 1.6)
    json["collection_phases"] = Json::array();
    for (const PhaseTiming& phase : diagnosis.collection_phases) {
      json["collection_phases"].push_back(
          Json{{"name", phase.name}, {"start_s", phase.start_seconds}, {"seconds", phase.seconds}});
    }
  }
  return json;
}

std::unique_ptr<Renderer> MakeJsonRenderer(const RenderOptions& /*options*/) {
  return std::make_unique<JsonRenderer>();
}

nlohmann::ordered_json KernelDiagnosisToJson(const KernelDiagnosis& kernel) {
  return KernelJson(kernel);
}

}  // namespace kopt
