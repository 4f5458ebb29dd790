#include "profile/ncu_details_page.h"

#include <fmt/format.h>

#include <array>
#include <cmath>
#include <limits>
#include <map>
#include <optional>
#include <unordered_map>

#include "core/csv_reader.h"
#include "core/text.h"
#include "core/units.h"
#include "profile/ncu_export.h"

namespace kopt {

// Checked against the raw page of the same launch in tests/fixtures/h200 (21 kernels): each raw metric's
// value equals the details value in base units (ncu_details_page_test.cc re-checks every pair).
const std::vector<DetailsMetricName> kDetailsMetricNames = {
    {"GPU Speed Of Light Throughput", "DRAM Frequency", "dram__cycles_elapsed.avg.per_second"},
    {"GPU Speed Of Light Throughput", "SM Frequency", "gpc__cycles_elapsed.avg.per_second"},
    {"GPU Speed Of Light Throughput", "Elapsed Cycles", "gpc__cycles_elapsed.max"},
    {"GPU Speed Of Light Throughput", "Memory Throughput",
     "gpu__compute_memory_throughput.avg.pct_of_peak_sustained_elapsed"},
    {"GPU Speed Of Light Throughput", "DRAM Throughput",
     "gpu__dram_throughput.avg.pct_of_peak_sustained_elapsed"},
    {"GPU Speed Of Light Throughput", "Duration", "gpu__time_duration.sum"},
    {"GPU Speed Of Light Throughput", "L1/TEX Cache Throughput",
     "l1tex__throughput.avg.pct_of_peak_sustained_active"},
    {"GPU Speed Of Light Throughput", "L2 Cache Throughput",
     "lts__throughput.avg.pct_of_peak_sustained_elapsed"},
    {"GPU Speed Of Light Throughput", "SM Active Cycles", "sm__cycles_active.avg"},
    {"GPU Speed Of Light Throughput", "Compute (SM) Throughput",
     "sm__throughput.avg.pct_of_peak_sustained_elapsed"},
    {"Compute Workload Analysis", "Executed Ipc Active", "sm__inst_executed.avg.per_cycle_active"},
    {"Compute Workload Analysis", "Executed Ipc Elapsed", "sm__inst_executed.avg.per_cycle_elapsed"},
    {"Compute Workload Analysis", "Issue Slots Busy", "sm__inst_issued.avg.pct_of_peak_sustained_elapsed"},
    {"Compute Workload Analysis", "Issued Ipc Active", "sm__inst_issued.avg.per_cycle_active"},
    {"Compute Workload Analysis", "SM Busy", "sm__instruction_throughput.avg.pct_of_peak_sustained_elapsed"},
    {"Memory Workload Analysis", "Memory Throughput", "dram__bytes.sum.per_second"},
    {"Memory Workload Analysis", "Mem Busy",
     "gpu__compute_memory_access_throughput.avg.pct_of_peak_sustained_elapsed"},
    {"Memory Workload Analysis", "Max Bandwidth",
     "gpu__compute_memory_request_throughput.avg.pct_of_peak_sustained_elapsed"},
    {"Memory Workload Analysis", "L1/TEX Hit Rate", "l1tex__t_sector_hit_rate.pct"},
    {"Memory Workload Analysis", "L2 Hit Rate", "lts__t_sector_hit_rate.pct"},
    {"Memory Workload Analysis", "L2 Persisting Size", "launch__persisting_l2_cache_size"},
    {"Memory Workload Analysis", "Mem Pipes Busy", "sm__memory_throughput.avg.pct_of_peak_sustained_elapsed"},
    {"Scheduler Statistics", "One or More Eligible", "smsp__issue_active.avg.pct_of_peak_sustained_active"},
    {"Scheduler Statistics", "Issued Warp Per Scheduler", "smsp__issue_active.avg.per_cycle_active"},
    {"Scheduler Statistics", "No Eligible", "smsp__issue_inst0.avg.pct_of_peak_sustained_active"},
    {"Scheduler Statistics", "Active Warps Per Scheduler", "smsp__warps_active.avg.per_cycle_active"},
    {"Scheduler Statistics", "Eligible Warps Per Scheduler", "smsp__warps_eligible.avg.per_cycle_active"},
    {"Warp State Statistics", "Warp Cycles Per Issued Instruction",
     "smsp__average_warp_latency_per_inst_issued.ratio"},
    {"Warp State Statistics", "Warp Cycles Per Executed Instruction",
     "smsp__average_warps_active_per_inst_executed.ratio"},
    {"Warp State Statistics", "Avg. Active Threads Per Warp",
     "smsp__thread_inst_executed_per_inst_executed.ratio"},
    {"Warp State Statistics", "Avg. Not Predicated Off Threads Per Warp",
     "smsp__thread_inst_executed_pred_on_per_inst_executed.ratio"},
    {"Instruction Statistics", "Avg. Executed Instructions Per Scheduler", "smsp__inst_executed.avg"},
    {"Instruction Statistics", "Executed Instructions", "smsp__inst_executed.sum"},
    {"Instruction Statistics", "Avg. Issued Instructions Per Scheduler", "smsp__inst_issued.avg"},
    {"Instruction Statistics", "Issued Instructions", "smsp__inst_issued.sum"},
    {"Launch Statistics", "Block Size", "launch__block_size"},
    {"Launch Statistics", "Grid Size", "launch__grid_size"},
    {"Launch Statistics", "Registers Per Thread", "launch__registers_per_thread"},
    {"Launch Statistics", "Shared Memory Configuration Size", "launch__shared_mem_config_size"},
    {"Launch Statistics", "Driver Shared Memory Per Block", "launch__shared_mem_per_block_driver"},
    {"Launch Statistics", "Dynamic Shared Memory Per Block", "launch__shared_mem_per_block_dynamic"},
    {"Launch Statistics", "Static Shared Memory Per Block", "launch__shared_mem_per_block_static"},
    {"Launch Statistics", "# SMs", "launch__sm_count"},
    {"Launch Statistics", "Stack Size", "launch__stack_size"},
    {"Launch Statistics", "Threads", "launch__thread_count"},
    {"Launch Statistics", "# TPCs", "launch__tpc_count"},
    {"Launch Statistics", "Waves Per SM", "launch__waves_per_multiprocessor"},
    {"Occupancy", "Max Cluster Size", "launch__cluster_max_potential_size"},
    {"Occupancy", "Block Limit Barriers", "launch__occupancy_limit_barriers"},
    {"Occupancy", "Block Limit SM", "launch__occupancy_limit_blocks"},
    {"Occupancy", "Block Limit Registers", "launch__occupancy_limit_registers"},
    {"Occupancy", "Block Limit Shared Mem", "launch__occupancy_limit_shared_mem"},
    {"Occupancy", "Block Limit Warps", "launch__occupancy_limit_warps"},
    {"Occupancy", "Theoretical Active Warps per SM", "sm__maximum_warps_avg_per_active_cycle"},
    {"Occupancy", "Theoretical Occupancy", "sm__maximum_warps_per_active_cycle_pct"},
    {"Occupancy", "Achieved Occupancy", "sm__warps_active.avg.pct_of_peak_sustained_active"},
    {"Occupancy", "Achieved Active Warps Per SM", "sm__warps_active.avg.per_cycle_active"},
    {"GPU and Memory Workload Distribution", "Average DRAM Active Cycles", "dram__cycles_active.avg"},
    {"GPU and Memory Workload Distribution", "Total DRAM Elapsed Cycles", "dram__cycles_elapsed.sum"},
    {"GPU and Memory Workload Distribution", "Average L1 Active Cycles", "l1tex__cycles_active.avg"},
    {"GPU and Memory Workload Distribution", "Total L1 Elapsed Cycles", "l1tex__cycles_elapsed.sum"},
    {"GPU and Memory Workload Distribution", "Average L2 Active Cycles", "lts__cycles_active.avg"},
    {"GPU and Memory Workload Distribution", "Total L2 Elapsed Cycles", "lts__cycles_elapsed.sum"},
    {"GPU and Memory Workload Distribution", "Average SM Active Cycles", "sm__cycles_active.avg"},
    {"GPU and Memory Workload Distribution", "Total SM Elapsed Cycles", "sm__cycles_elapsed.sum"},
    {"GPU and Memory Workload Distribution", "Average SMSP Active Cycles", "smsp__cycles_active.avg"},
    {"GPU and Memory Workload Distribution", "Total SMSP Elapsed Cycles", "smsp__cycles_elapsed.sum"},
    {"Source Counters", "Branch Instructions Ratio", "derived__smsp__inst_executed_op_branch_pct"},
    {"Source Counters", "Branch Instructions", "smsp__inst_executed_op_branch.sum"},
    {"Source Counters", "Branch Efficiency", "smsp__sass_average_branch_targets_threads_uniform.pct"},
    {"Source Counters", "Avg. Divergent Branches", "smsp__sass_branch_targets_threads_divergent.avg"},
};

const std::string_view kDetailsPageLosses =
    "read from ncu's details page: its section summaries stand in for the raw page's metrics. Lost against "
    "the "
    "raw page: the FLOP counts per precision (no compute side of the roofline, no arithmetic intensity), the "
    "L1 "
    "and L2 traffic, the warp-stall reasons, the per-pipe utilizations and the device name (pass --gpu); "
    "DRAM "
    "bytes are derived as Memory Throughput × Duration. The tools that need what is missing are listed as "
    "skipped. For the whole analysis export the raw page: "
    "ncu --import REPORT.ncu-rep --csv --page raw --print-units base > raw.csv";

namespace {

constexpr std::array<std::string_view, 20> kColumns = {"ID",
                                                       "Process ID",
                                                       "Process Name",
                                                       "Host Name",
                                                       "Kernel Name",
                                                       "Context",
                                                       "Stream",
                                                       "Block Size",
                                                       "Grid Size",
                                                       "Device",
                                                       "CC",
                                                       "Section Name",
                                                       "Metric Name",
                                                       "Metric Unit",
                                                       "Metric Value",
                                                       "Rule Name",
                                                       "Rule Type",
                                                       "Rule Description",
                                                       "Estimated Speedup Type",
                                                       "Estimated Speedup"};
enum Column {
  kId = 0,
  kKernelName = 4,
  kBlockSize = 7,
  kGridSize = 8,
  kDevice = 9,
  kCc = 10,
  kSection = 11,
  kMetricName,
  kMetricUnit,
  kMetricValue,
  kRuleName,
  kRuleType,
  kRuleDescription,
  kSpeedupType,
  kSpeedup
};
constexpr size_t kMetricFields =
    15;  // ncu leaves off the empty rule fields of a metric row (16 with a trailing comma)

class Builder {
 public:
  explicit Builder(std::string_view file_name) : file_name_(file_name) {
    for (const DetailsMetricName& name : kDetailsMetricNames) {
      raw_names_[std::string(name.section) + '\x1f' + std::string(name.metric)] = name.raw_name;
    }
  }

  Status Add(const CsvRecord& record) {
    const std::vector<std::string>& f = record.fields;
    if (f.size() != kColumns.size() && f.size() != kMetricFields && f.size() != kMetricFields + 1) {
      return InvalidInput(fmt::format(
          "{}:{}: {} fields; expected {} (a rule row) or {} (a metric row) as in ncu's details page",
          file_name_, record.line, f.size(), kColumns.size(), kMetricFields + 1));
    }
    auto id = ParseNumber(f[kId]);
    if (!id || *id != std::floor(*id) || std::abs(*id) > 9e15) {
      return InvalidInput(fmt::format("{}:{}: column \"ID\" is \"{}\"; expected an integer", file_name_,
                                      record.line, Abbreviate(f[kId], 40)));
    }
    KOPT_ASSIGN_OR_RETURN(KernelLaunch * launch, LaunchFor(static_cast<long long>(*id), record));
    bool is_rule = f.size() == kColumns.size() && !f[kRuleName].empty();
    if (is_rule) {
      NcuRuleResult rule;
      rule.section = f[kSection];
      rule.name = f[kRuleName];
      rule.type = f[kRuleType];
      rule.description = f[kRuleDescription];
      rule.speedup_type = f[kSpeedupType];
      rule.estimated_speedup_percent = ParseNumber(f[kSpeedup]);
      launch->ncu_rules.push_back(std::move(rule));
      return Status::Ok();
    }
    if (f[kMetricName].empty()) return Status::Ok();
    std::string key = f[kSection] + '\x1f' + f[kMetricName];
    auto known = raw_names_.find(key);
    std::string name =
        known != raw_names_.end() ? std::string(known->second) : f[kSection] + ": " + f[kMetricName];
    std::optional<double> value = ParseNumber(f[kMetricValue]);
    BaseQuantity base = ToBaseUnits(value.value_or(1.0), f[kMetricUnit]);
    int index = IndexOf(name, base.unit);
    if (static_cast<int>(launch->values.size()) <= index)
      launch->values.resize(index + 1, std::numeric_limits<double>::quiet_NaN());
    if (value) {
      launch->values[index] = base.value;
    } else if (!f[kMetricValue].empty()) {
      launch->text_values.emplace_back(index, f[kMetricValue]);
    }
    return Status::Ok();
  }

  Result<std::vector<KernelLaunch>> Finish() {
    if (launches_.empty()) {
      return InvalidInput(
          fmt::format("{}: the details page lists no kernel launch (a header only)", file_name_));
    }
    // dram__bytes.sum = Memory Throughput (byte/s) × Duration (ns): the roofline's DRAM traffic.
    int bytes = IndexOf("dram__bytes.sum", "byte");
    auto rate = schema_->IndexOf("dram__bytes.sum.per_second");
    auto duration = schema_->IndexOf("gpu__time_duration.sum");
    for (KernelLaunch& launch : launches_) {
      launch.values.resize(schema_->size(), std::numeric_limits<double>::quiet_NaN());
      if (rate && duration && !std::isnan(launch.values[*rate]) && !std::isnan(launch.values[*duration])) {
        launch.values[bytes] = launch.values[*rate] * launch.values[*duration] * 1e-9;
      }
    }
    return std::move(launches_);
  }

 private:
  int IndexOf(const std::string& name, const std::string& unit) {
    if (auto index = schema_->IndexOf(name)) return *index;
    return schema_->Add(name, unit);
  }

  Result<KernelLaunch*> LaunchFor(long long id, const CsvRecord& record) {
    auto [slot, added] = index_.try_emplace(id, launches_.size());
    if (!added) return &launches_[slot->second];
    const std::vector<std::string>& f = record.fields;
    KernelLaunch launch;
    launch.launch_id = id;
    launch.schema = schema_;
    launch.process_id = static_cast<long long>(ParseNumber(f[1]).value_or(0));
    launch.process_name = f[2];
    launch.host_name = f[3];
    launch.kernel_name = f[kKernelName];
    launch.context_id = static_cast<long long>(ParseNumber(f[5]).value_or(0));
    launch.stream_id = static_cast<long long>(ParseNumber(f[6]).value_or(0));
    launch.device = f[kDevice];
    launch.compute_capability = f[kCc];
    if (launch.kernel_name.empty()) {
      return InvalidInput(
          fmt::format("{}:{}: empty \"Kernel Name\"; expected the kernel's name", file_name_, record.line));
    }
    for (auto [column, dimensions] :
         {std::pair{kBlockSize, &launch.block}, std::pair{kGridSize, &launch.grid}}) {
      if (f[column].empty()) continue;
      auto parsed = ParseLaunchDimensions(f[column]);
      if (!parsed) {
        return InvalidInput(fmt::format("{}:{}: column \"{}\" is \"{}\"; expected \"(x, y, z)\"", file_name_,
                                        record.line, kColumns[column], Abbreviate(f[column], 40)));
      }
      *dimensions = *parsed;
    }
    launches_.push_back(std::move(launch));
    return &launches_.back();
  }

  std::string_view file_name_;
  std::shared_ptr<MetricSchema> schema_ = std::make_shared<MetricSchema>();
  std::unordered_map<std::string, std::string_view> raw_names_;
  std::unordered_map<long long, size_t> index_;
  std::vector<KernelLaunch> launches_;
};

}  // namespace

Result<std::vector<KernelLaunch>> ParseNcuDetailsCsv(std::string_view text, std::string_view file_name) {
  if (TrimWhitespace(text).empty()) {
    return InvalidInput(
        fmt::format("{}: the file is empty; expected an Nsight Compute details page (ncu --csv)", file_name));
  }
  if (LooksBinary(text)) {
    return InvalidInput(
        fmt::format("{}: binary data, not CSV; expected an Nsight Compute details page", file_name));
  }
  std::string storage;
  QuotedCsvText quoted = BlankUnquotedLines(text, storage);
  CsvReader reader(quoted.text, file_name);
  CsvRecord header;
  do {
    KOPT_ASSIGN_OR_RETURN(bool more, reader.Next(header));
    if (!more) return InvalidInput(fmt::format("{}: no CSV header found", file_name));
  } while (header.IsBlank());
  if (header.fields.size() != kColumns.size() ||
      !std::equal(kColumns.begin(), kColumns.end(), header.fields.begin())) {
    return InvalidInput(fmt::format(
        "{}:{}: not the header of ncu's details page; expected the 20 columns \"ID\", …, \"Section Name\", "
        "\"Metric Name\", \"Metric Unit\", \"Metric Value\", \"Rule Name\", …, \"Estimated Speedup\"",
        file_name, header.line));
  }
  Builder builder(file_name);
  CsvRecord record;
  while (true) {
    KOPT_ASSIGN_OR_RETURN(bool more, reader.Next(record));
    if (!more) break;
    if (record.IsBlank()) continue;
    KOPT_RETURN_IF_ERROR(builder.Add(record));
  }
  return builder.Finish();
}

}  // namespace kopt
