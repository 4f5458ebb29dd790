#include "analysis/diagnosis.h"

namespace kopt {

std::string_view SeverityName(Severity severity) {
  switch (severity) {
    case Severity::kInfo: return "info";
    case Severity::kMinor: return "minor";
    case Severity::kModerate: return "moderate";
    case Severity::kMajor: return "major";
    case Severity::kCritical: return "critical";
  }
  return "unknown";
}

std::string_view BottleneckClassName(BottleneckClass bottleneck_class) {
  switch (bottleneck_class) {
    case BottleneckClass::kMemoryBound: return "memory-bound";
    case BottleneckClass::kComputeBound: return "compute-bound";
    case BottleneckClass::kLatencyBound: return "latency-bound";
    case BottleneckClass::kMixed: return "mixed";
    case BottleneckClass::kUnknown: return "unknown";
  }
  return "unknown";
}

}  // namespace kopt
