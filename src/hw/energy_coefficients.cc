#include "hw/energy_coefficients.h"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <filesystem>
#include <sstream>

#include "core/enum_names.h"
#include "core/file_io.h"
#include "core/text.h"
#include "core/toml_document.h"
#include "energy_model_tables.h"  // generated: kBuiltinEnergyTables (data/energy/*.energy.toml)
#include "hw/ceilings_table.h"

namespace kopt {
namespace {

struct TermInfo {
  std::string_view unit;
  std::string_view title;
};

constexpr EnumNameTable<EnergyTerm, kEnergyTermCount> kTermNames{{
    {EnergyTerm::kDramBytes, "dram_bytes"},
    {EnergyTerm::kL2Bytes, "l2_bytes"},
    {EnergyTerm::kL1Bytes, "l1_bytes"},
    {EnergyTerm::kLocalBytes, "local_bytes"},
    {EnergyTerm::kSharedWavefronts, "shared_wavefronts"},
    {EnergyTerm::kFmaPipe, "fma_pipe"},
    {EnergyTerm::kAluPipe, "alu_pipe"},
    {EnergyTerm::kFp64Pipe, "fp64_pipe"},
    {EnergyTerm::kXuPipe, "xu_pipe"},
    {EnergyTerm::kLsuPipe, "lsu_pipe"},
    {EnergyTerm::kTensor16BitOps, "tensor_16bit_ops"},
    {EnergyTerm::kTensorTf32Ops, "tensor_tf32_ops"},
    {EnergyTerm::kTensor8BitOps, "tensor_8bit_ops"},
    {EnergyTerm::kTensorFp64Ops, "tensor_fp64_ops"},
    {EnergyTerm::kActiveSeconds, "active_seconds"},
    {EnergyTerm::kLaunches, "launches"},
}};

constexpr std::array<TermInfo, kEnergyTermCount> kTermInfo{{
    {"byte", "DRAM traffic"},
    {"byte", "L2 traffic"},
    {"byte", "L1 global traffic"},
    {"byte", "local memory (spills)"},
    {"wavefront", "shared memory"},
    {"issue", "FMA pipe (FP32, IMAD)"},
    {"issue", "ALU pipe (integer, logic)"},
    {"issue", "FP64 pipe"},
    {"issue", "XU pipe (MUFU, conversions)"},
    {"issue", "LSU pipe (load/store instructions)"},
    {"op", "tensor cores, FP16/BF16"},
    {"op", "tensor cores, TF32"},
    {"op", "tensor cores, INT8/FP8"},
    {"op", "tensor cores, FP64"},
    {"s", "busy GPU above idle (static)"},
    {"launch", "kernel launches (fixed cost each)"},
}};

Status FieldError(std::string_view file, size_t index, std::string_view field, std::string_view expected) {
  return InvalidInput(
      fmt::format("{}: coefficient {}: field \"{}\" must be {}", file, index + 1, field, expected));
}

Result<EnergyCoefficient> ReadCoefficient(const toml::table& row, std::string_view file, size_t index) {
  EnergyCoefficient coefficient;
  auto name = row["term"].value<std::string>();
  auto term = name ? ParseEnergyTerm(*name) : std::nullopt;
  if (!term) {
    std::string names;
    for (const auto& [value, term_name] : kTermNames)
      names += (names.empty() ? "" : " | ") + std::string(term_name);
    return FieldError(file, index, "term", "one of " + names);
  }
  coefficient.term = *term;
  auto joules = row["joules_per_unit"].value<double>();
  if (!joules || !std::isfinite(*joules) || *joules < 0)
    return FieldError(file, index, "joules_per_unit", "a number >= 0 (joules per unit of the term)");
  coefficient.joules_per_unit = *joules;
  coefficient.source = row["source"].value_or(std::string());
  return coefficient;
}

Result<EnergyCoefficients> ReadFile(const std::filesystem::path& file) {
  KOPT_ASSIGN_OR_RETURN(std::string text, ReadWholeFile(file.string()));
  KOPT_ASSIGN_OR_RETURN(EnergyCoefficients table, ParseEnergyCoefficients(text, file.string()));
  table.path = file.string();
  return table;
}

bool SameGpu(const EnergyCoefficients& table, std::string_view gpu_name) {
  return ToLowerAscii(table.gpu_name) == ToLowerAscii(gpu_name);
}

// A matching *.energy.toml in `directory`; NotFound when none.
Result<EnergyCoefficients> SearchDirectory(const std::string& directory, std::string_view gpu_name,
                                           std::vector<std::string>& notes) {
  namespace fs = std::filesystem;
  std::error_code error;
  std::vector<fs::path> files;
  for (const auto& entry : fs::directory_iterator(directory, error)) {
    if (entry.path().filename().string().ends_with(".energy.toml")) files.push_back(entry.path());
  }
  std::sort(files.begin(), files.end());
  for (const fs::path& file : files) {
    auto table = ReadFile(file);
    if (!table.ok()) {
      notes.push_back("energy coefficient table skipped: " + table.status().message());
      continue;
    }
    if (SameGpu(*table, gpu_name)) return table;
  }
  return NotFound(fmt::format("no energy coefficient table for \"{}\" in {}", gpu_name, directory));
}

}  // namespace

const std::array<EnergyTerm, kEnergyTermCount>& AllEnergyTerms() {
  static const std::array<EnergyTerm, kEnergyTermCount> terms = [] {
    std::array<EnergyTerm, kEnergyTermCount> out{};
    for (size_t i = 0; i < out.size(); ++i) out[i] = kTermNames[i].first;
    return out;
  }();
  return terms;
}

std::string_view EnergyTermName(EnergyTerm term) {
  return EnumName(kTermNames, term, "unknown");
}
std::optional<EnergyTerm> ParseEnergyTerm(std::string_view name) {
  return EnumFromName(kTermNames, name);
}
std::string_view EnergyTermUnit(EnergyTerm term) {
  return kTermInfo[static_cast<size_t>(term)].unit;
}
std::string_view EnergyTermTitle(EnergyTerm term) {
  return kTermInfo[static_cast<size_t>(term)].title;
}

const EnergyCoefficient* EnergyCoefficients::Find(EnergyTerm term) const {
  for (const EnergyCoefficient& coefficient : coefficients) {
    if (coefficient.term == term) return &coefficient;
  }
  return nullptr;
}

double EnergyCoefficients::JoulesPerUnit(EnergyTerm term) const {
  const EnergyCoefficient* coefficient = Find(term);
  return coefficient ? coefficient->joules_per_unit : 0.0;
}

std::string FormatEnergyCoefficients(const EnergyCoefficients& coefficients) {
  toml::table root{{"format", "kopt.energy_model"},
                   {"version", EnergyCoefficients::kVersion},
                   {"gpu", coefficients.gpu_name},
                   {"measured_at", coefficients.measured_at},
                   {"tool", coefficients.tool}};
  root.insert("fit", toml::table{{"kernels", coefficients.fit.kernels},
                                 {"mape_percent", coefficients.fit.mape_percent},
                                 {"max_error_percent", coefficients.fit.max_error_percent}});
  toml::array rows;
  for (const EnergyCoefficient& coefficient : coefficients.coefficients) {
    rows.push_back(toml::table{{"term", std::string(EnergyTermName(coefficient.term))},
                               {"unit", std::string(EnergyTermUnit(coefficient.term))},
                               {"joules_per_unit", coefficient.joules_per_unit},
                               {"source", coefficient.source}});
  }
  root.insert("coefficient", std::move(rows));
  std::ostringstream out;
  out << "# Energy proxy coefficients of one GPU, written by `kopt calibrate --energy`\n"
         "# (format and terms: docs/energy.md). joules_per_unit: dynamic energy (above idle) per unit.\n"
      << toml::toml_formatter(root) << "\n";
  return out.str();
}

Result<EnergyCoefficients> ParseEnergyCoefficients(std::string_view text, std::string_view file_name) {
  KOPT_ASSIGN_OR_RETURN(toml::table root, ParseTomlDocument(text, file_name));
  if (root["format"].value<std::string>() != "kopt.energy_model")
    return InvalidInput(fmt::format(
        "{}: not a kopt energy coefficient table (expected format = \"kopt.energy_model\")", file_name));
  if (root["version"].value<int64_t>() != EnergyCoefficients::kVersion)
    return InvalidInput(
        fmt::format("{}: field \"version\" must be {}", file_name, EnergyCoefficients::kVersion));
  EnergyCoefficients table;
  auto gpu = root["gpu"].value<std::string>();
  if (!gpu || gpu->empty())
    return InvalidInput(fmt::format("{}: field \"gpu\" must name the device (\"NVIDIA H200\")", file_name));
  table.gpu_name = *gpu;
  table.measured_at = root["measured_at"].value_or(std::string());
  table.tool = root["tool"].value_or(std::string());
  table.fit.kernels = static_cast<int>(root["fit"]["kernels"].value_or<int64_t>(0));
  table.fit.mape_percent = root["fit"]["mape_percent"].value_or(0.0);
  table.fit.max_error_percent = root["fit"]["max_error_percent"].value_or(0.0);
  std::vector<std::optional<EnergyCoefficient>> by_term(kEnergyTermCount);
  const toml::array* rows = root["coefficient"].as_array();
  if (!rows || rows->empty())
    return InvalidInput(
        fmt::format("{}: no [[coefficient]] tables (run kopt calibrate --energy)", file_name));
  for (size_t i = 0; i < rows->size(); ++i) {
    const toml::table* row = (*rows)[i].as_table();
    if (!row) return InvalidInput(fmt::format("{}: coefficient {}: must be a table", file_name, i + 1));
    KOPT_ASSIGN_OR_RETURN(EnergyCoefficient coefficient, ReadCoefficient(*row, file_name, i));
    auto& slot = by_term[static_cast<size_t>(coefficient.term)];
    if (slot)
      return InvalidInput(fmt::format("{}: coefficient {}: term \"{}\" is listed twice", file_name, i + 1,
                                      EnergyTermName(coefficient.term)));
    slot = std::move(coefficient);
  }
  for (EnergyTerm term : AllEnergyTerms()) {
    auto& slot = by_term[static_cast<size_t>(term)];
    if (!slot) slot = EnergyCoefficient{term, 0.0, fmt::format("absent from {}: 0", file_name)};
    table.coefficients.push_back(std::move(*slot));
  }
  return table;
}

std::string EnergyCoefficientsFileName(std::string_view gpu_name) {
  std::string name = CeilingsFileName(gpu_name);  // "nvidia-h200.toml"
  return name.substr(0, name.size() - 5) + ".energy.toml";
}

const std::vector<EnergyCoefficients>& BuiltinEnergyCoefficients() {
  static const std::vector<EnergyCoefficients> tables = [] {
    std::vector<EnergyCoefficients> out;
    for (const auto& [file_name, text] : kBuiltinEnergyTables) {
      if (file_name.empty()) continue;  // the generated list's end marker
      auto table = ParseEnergyCoefficients(text, file_name);
      if (!table.ok()) continue;  // a broken shipped table fails energy_coefficients_test
      table->path = fmt::format("built-in: {}", file_name);
      out.push_back(std::move(*table));
    }
    return out;
  }();
  return tables;
}

Result<EnergyCoefficients> FindEnergyCoefficients(const std::string& path, std::string_view gpu_name,
                                                  std::vector<std::string>& notes) {
  namespace fs = std::filesystem;
  std::error_code error;
  if (!path.empty()) {
    if (fs::is_regular_file(path, error)) {
      KOPT_ASSIGN_OR_RETURN(EnergyCoefficients table, ReadFile(path));
      if (!SameGpu(table, gpu_name))
        return NotFound(fmt::format("{}: the energy coefficients are for \"{}\", the profile's GPU is \"{}\"",
                                    path, table.gpu_name, gpu_name));
      return table;
    }
    if (!fs::is_directory(path, error))
      return NotFound(fmt::format("no energy coefficient table at {}", path));
    return SearchDirectory(path, gpu_name, notes);
  }
  if (std::string directory = DefaultCeilingsDirectory();
      !directory.empty() && fs::is_directory(directory, error)) {
    auto table = SearchDirectory(directory, gpu_name, notes);
    if (table.ok()) return table;
  }
  for (const EnergyCoefficients& table : BuiltinEnergyCoefficients()) {
    if (SameGpu(table, gpu_name)) return table;
  }
  return NotFound(
      fmt::format("no energy coefficient table for \"{}\" (kopt calibrate --energy writes one)", gpu_name));
}

}  // namespace kopt
