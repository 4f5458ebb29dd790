// bench/output_channel_throughput: where a large candidate's output time goes
// in the parent and in the channel between child and parent (issue 16, "cost
// per candidate"), with a synthetic child and no GPU: the child writes FRAMES
// frames of FRAME_MIB MiB each (default 8 x 256 MiB: KernelBench level1/88's
// five check rounds, two verified timed samples and the round after timing)
// from an 8 MiB buffer, as kopt-runner's FrameSender writes from its pinned
// pieces, through
//   append: the pipe of CommandSpec::channel_fd, read through a 1 MiB
//           buffer and appended to a reused, pre-faulted one (kopt's
//           channel_spare_ before h16d), then OutputFrames::Parse;
//   splice: the pieces lent to the pipe (vmsplice) from three rotating
//           buffers as kopt-runner does with --output-channel pipe, appended
//           into a reused buffer on huge pages;
//   pull:   the pieces named on a pulled channel (core/channel_pull.h) from
//           three rotating buffers, each reused once acked, as kopt-runner
//           does by default, copied by the parent into the reused buffer;
//   memory: channel memory (core/channel_memory.h), prepared on a thread
//           (measure/channel_memory_supply.h) while the previous child runs,
//           written with MemoryFrameWriter, sealed, mapped and parsed;
// then every frame compared with an expected copy held by the parent
// (runner::CompareOutput, as the parent judges), and the frames released.
// Prints one line per child and a median per mode, in seconds.
//
// Usage: output_channel_throughput [--children N] [--frames F] [--frame-mib M]
//        [--modes append,splice,pull,memory] (default: all)
#include <fcntl.h>
#include <sys/ioctl.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/uio.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "core/channel_memory.h"
#include "core/channel_pull.h"
#include "core/subprocess.h"
#include "measure/channel_memory_supply.h"
#include "runner_protocol/output_comparison.h"
#include "runner_protocol/output_frames.h"

namespace {

using Clock = std::chrono::steady_clock;
double Since(Clock::time_point start) {
  return std::chrono::duration<double>(Clock::now() - start).count();
}

constexpr size_t kPiece = size_t{8} << 20;

// splice: the pieces lent to the pipe (vmsplice) from three rotating
// buffers, each reused once the parent has read it (FIONREAD), as
// kopt-runner's FrameSender does.
int SpliceChild(size_t frames, size_t frame_bytes) {
  fcntl(3, F_SETPIPE_SZ, 1 << 20);
  std::vector<std::vector<float>> buffers(3, std::vector<float>(kPiece / sizeof(float), 1.5f));
  uint64_t written = 0;
  uint64_t lent_until[3] = {0, 0, 0};
  size_t slot = 0;
  for (size_t frame = 0; frame < frames; ++frame) {
    std::string head = kopt::EncodeFrameHead({"check", static_cast<int64_t>(frame), "out"}, frame_bytes);
    if (write(3, head.data(), head.size()) != static_cast<ssize_t>(head.size())) return 1;
    written += head.size();
    for (size_t offset = 0; offset < frame_bytes; offset += kPiece, slot = (slot + 1) % 3) {
      while (true) {  // the parent has read what this buffer lent
        int unread = 0;
        if (ioctl(3, FIONREAD, &unread) != 0) return 1;
        if (written - static_cast<uint64_t>(unread) >= lent_until[slot]) break;
        usleep(20);
      }
      std::fill_n(buffers[slot].data(), 16, 1.5f);  // "the device copy" into it
      size_t length = std::min(kPiece, frame_bytes - offset);
      auto* bytes = reinterpret_cast<char*>(buffers[slot].data());
      for (size_t done = 0; done < length;) {
        iovec piece{bytes + done, length - done};
        ssize_t spliced = vmsplice(3, &piece, 1, 0);
        if (spliced <= 0) return 1;
        done += static_cast<size_t>(spliced);
      }
      written += length;
      lent_until[slot] = written;
    }
  }
  return 0;
}

// pull: the pieces named on the pulled channel from three rotating buffers,
// each reused once the parent's ack covers it, as kopt-runner's FrameSender
// does; a frame ends when its last piece is acked.
int PullChild(size_t frames, size_t frame_bytes) {
  std::vector<std::vector<float>> buffers(3, std::vector<float>(kPiece / sizeof(float), 1.5f));
  uint64_t written = 0, acknowledged = 0;
  uint64_t lent_until[3] = {0, 0, 0};
  auto send_all = [](const std::string& bytes) {
    for (size_t done = 0; done < bytes.size();) {
      ssize_t sent = send(3, bytes.data() + done, bytes.size() - done, MSG_NOSIGNAL);
      if (sent <= 0) return false;
      done += static_cast<size_t>(sent);
    }
    return true;
  };
  auto wait_for = [&](uint64_t offset) {
    while (acknowledged < offset) {
      uint64_t acks[32];
      ssize_t got = read(3, acks, sizeof acks);  // whole acks: the parent sends 8 bytes at a time
      if (got < static_cast<ssize_t>(sizeof(uint64_t))) return false;
      acknowledged = std::max(acknowledged, acks[got / sizeof(uint64_t) - 1]);
    }
    return true;
  };
  size_t slot = 0;
  for (size_t frame = 0; frame < frames; ++frame) {
    std::string head = kopt::EncodeFrameHead({"check", static_cast<int64_t>(frame), "out"}, frame_bytes);
    if (!send_all(kopt::EncodeInlineRecord(head.size()) + head)) return 1;
    written += head.size();
    uint64_t last = 0;
    for (size_t offset = 0; offset < frame_bytes; offset += kPiece, slot = (slot + 1) % 3) {
      if (!wait_for(lent_until[slot])) return 1;
      std::fill_n(buffers[slot].data(), 16, 1.5f);  // "the device copy" into it
      size_t length = std::min(kPiece, frame_bytes - offset);
      if (!send_all(kopt::EncodePullRecord(buffers[slot].data(), length))) return 1;
      written += length;
      lent_until[slot] = last = written;
    }
    if (!wait_for(last)) return 1;
  }
  return 0;
}

// The child: writes the frames to descriptor 3, a pipe or channel memory.
int Child(bool memory, size_t frames, size_t frame_bytes) {
  std::vector<float> piece(kPiece / sizeof(float), 1.5f);
  const auto* bytes = reinterpret_cast<const std::byte*>(piece.data());
  kopt::MemoryFrameWriter writer(3);
  for (size_t frame = 0; frame < frames; ++frame) {
    kopt::FrameKey key{"check", static_cast<int64_t>(frame), "out"};
    if (memory) {
      if (!writer.Begin(key, frame_bytes).ok()) return 1;
    } else {
      std::string head = kopt::EncodeFrameHead(key, frame_bytes);
      if (write(3, head.data(), head.size()) != static_cast<ssize_t>(head.size())) return 1;
    }
    for (size_t offset = 0; offset < frame_bytes; offset += kPiece) {
      size_t length = std::min(kPiece, frame_bytes - offset);
      if (memory) {
        if (!writer.Write(std::span(bytes, length)).ok()) return 1;
        continue;
      }
      for (size_t done = 0; done < length;) {
        ssize_t wrote = write(3, bytes + done, length - done);
        if (wrote <= 0) return 1;
        done += static_cast<size_t>(wrote);
      }
    }
  }
  return 0;
}

struct Phases {
  double prepare = 0, child = 0, receive = 0, compare = 0, release = 0, total = 0;
  double child_cpu = 0, parent_cpu = 0;  // CPU seconds (user + system): robust on a loaded machine
};

double CpuSeconds(int who) {
  rusage usage{};
  getrusage(who, &usage);
  auto seconds = [](const timeval& t) { return t.tv_sec + t.tv_usec / 1e6; };
  return seconds(usage.ru_utime) + seconds(usage.ru_stime);
}

}  // namespace

int main(int argc, char** argv) {
  size_t children = 4, frames = 8, frame_mib = 256;
  std::string modes = "append,splice,pull,memory";
  for (int i = 1; i < argc; ++i) {
    std::string arg = argv[i];
    if (arg == "--child" && i + 3 < argc) {
      if (std::string(argv[i + 1]) == "splice")
        return SpliceChild(std::stoul(argv[i + 2]), std::stoul(argv[i + 3]));
      if (std::string(argv[i + 1]) == "pull")
        return PullChild(std::stoul(argv[i + 2]), std::stoul(argv[i + 3]));
      return Child(std::string(argv[i + 1]) == "memory", std::stoul(argv[i + 2]), std::stoul(argv[i + 3]));
    }
    if (i + 1 >= argc) break;
    if (arg == "--children") children = std::stoul(argv[++i]);
    if (arg == "--frames") frames = std::stoul(argv[++i]);
    if (arg == "--frame-mib") frame_mib = std::stoul(argv[++i]);
    if (arg == "--modes") modes = argv[++i];
  }
  const size_t frame_bytes = frame_mib << 20;
  std::string self = "/proc/self/exe";
  char path[4096];
  ssize_t length = readlink("/proc/self/exe", path, sizeof path - 1);
  if (length > 0) self.assign(path, static_cast<size_t>(length));
  std::unique_ptr<kopt::CommandRunner> runner = kopt::MakeSystemCommandRunner();
  std::vector<float> expected(frame_bytes / sizeof(float), 1.5f);
  auto expected_bytes = std::as_bytes(std::span(expected));
  size_t channel_bytes = 0;
  for (size_t frame = 0; frame < frames; ++frame) {
    channel_bytes +=
        kopt::EncodeFrameHead({"check", static_cast<int64_t>(frame), "out"}, frame_bytes).size() +
        frame_bytes;
  }
  std::printf(
      "output_channel_throughput: %zu children x %zu frames x %zu MiB (%.2f GB per child), %u cores\n",
      children, frames, frame_mib, channel_bytes / 1e9, std::max(1u, std::thread::hardware_concurrency()));
  std::printf("%-7s %5s %9s %9s %9s %9s %9s %9s %10s %9s %9s\n", "mode", "child", "prepare", "child_s",
              "receive", "compare", "release", "total", "child_GB/s", "child_cpu", "kopt_cpu");
  std::map<std::string, std::vector<Phases>> all;
  for (const std::string mode :
       {std::string("append"), std::string("splice"), std::string("pull"), std::string("memory")}) {
    if (("," + modes + ",").find("," + mode + ",") == std::string::npos) continue;
    bool memory = mode == "memory";
    std::string spare;
    kopt::ChannelMemorySupply supply;
    if (memory) {
      supply.Prepare(channel_bytes);
    } else {
      auto started = Clock::now();
      // kopt's channel_spare_, faulted in while the reference runs; on huge pages since h16d.
      spare.reserve(channel_bytes);
      if (mode != "append") kopt::AdviseHugePages(spare.data(), channel_bytes);
      spare.resize(channel_bytes);
      // A pipe: capacity only, read through a 1 MiB buffer and appended; pulled: copied into the bytes.
      if (mode != "pull") spare.clear();
      std::printf("pipe: pre-faulting the reused channel buffer (once per kopt bench): %.3f s\n",
                  Since(started));
    }
    std::shared_ptr<void> previous;
    for (size_t child = 0; child < children; ++child) {
      Phases phases;
      auto started = Clock::now();
      double child_cpu = CpuSeconds(RUSAGE_CHILDREN), parent_cpu = CpuSeconds(RUSAGE_SELF);
      kopt::CommandSpec spec{{self, "--child", mode, std::to_string(frames), std::to_string(frame_bytes)}};
      spec.channel_fd = 3;
      spec.timeout_seconds = 600;
      kopt::ChannelMemory channel;
      if (memory) {
        auto prepared = supply.Take(channel_bytes, children - child - 1, &phases.prepare);
        if (!prepared.ok()) {
          std::printf("memory: %s\n", prepared.status().message().c_str());
          return 1;
        }
        channel = std::move(prepared).value();
        spec.channel_memory_fd = channel.descriptor();
      } else {
        spec.channel_storage = &spare;
        spec.expected_channel_bytes = channel_bytes;
        spec.channel_pull = mode == "pull";
      }
      auto child_started = Clock::now();
      kopt::Result<kopt::CommandResult> result = runner->Run(spec);
      phases.child = Since(child_started);
      if (!result.ok() || result->exit_code != 0) {
        std::printf("%s: child failed: %s\n", mode.c_str(),
                    result.ok() ? result->stderr_text.c_str() : result.status().message().c_str());
        return 1;
      }
      auto receive_started = Clock::now();
      kopt::Result<kopt::OutputFrames> parsed = kopt::Result<kopt::OutputFrames>(kopt::Internal("unset"));
      if (memory) {
        auto sealed = channel.Seal(size_t{16} << 30);
        if (!sealed.ok()) {
          std::printf("memory: %s\n", sealed.status().message().c_str());
          return 1;
        }
        parsed = kopt::OutputFrames::ParseMemory(std::move(sealed).value());
      } else {
        parsed = kopt::OutputFrames::Parse(std::move(result->channel_bytes));
      }
      phases.receive = Since(receive_started);
      if (!parsed.ok() || parsed->size() != frames) {
        std::printf("%s: parse failed: %s\n", mode.c_str(),
                    parsed.ok() ? "frames missing" : parsed.status().message().c_str());
        return 1;
      }
      auto compare_started = Clock::now();
      for (const auto& [key, payload] : parsed->frames()) {
        kopt::runner::OutputCheck check = kopt::runner::CompareOutput(
            key.tensor, kopt::DataType::kF32, payload, expected_bytes, kopt::Tolerance{1e-4, 1e-5});
        if (check.mismatches != 0) {
          std::printf("%s: frame %lld compared wrong\n", mode.c_str(), static_cast<long long>(key.index));
          return 1;
        }
      }
      phases.compare = Since(compare_started);
      auto release_started = Clock::now();
      if (memory) {
        // As kopt does: freed on a thread of its own.
        supply.Release(std::make_shared<kopt::OutputFrames>(std::move(parsed).value()));
      } else {
        spare = parsed->ReleaseChannel();
      }
      phases.release = Since(release_started);
      phases.total = Since(started);
      phases.child_cpu = CpuSeconds(RUSAGE_CHILDREN) - child_cpu;
      phases.parent_cpu = CpuSeconds(RUSAGE_SELF) - parent_cpu;
      std::printf("%-7s %5zu %9.3f %9.3f %9.3f %9.3f %9.3f %9.3f %10.2f %9.3f %9.3f\n", mode.c_str(), child,
                  phases.prepare, phases.child, phases.receive, phases.compare, phases.release, phases.total,
                  channel_bytes / phases.child / 1e9, phases.child_cpu, phases.parent_cpu);
      std::fflush(stdout);
      all[mode].push_back(phases);
    }
  }
  for (auto& [mode, list] : all) {
    auto median = [&](double Phases::*field) {
      std::vector<double> values;
      for (const Phases& p : list) values.push_back(p.*field);
      std::sort(values.begin(), values.end());
      return values[values.size() / 2];
    };
    std::printf(
        "median %-7s prepare %.3f child %.3f receive %.3f compare %.3f release %.3f total %.3f s; cpu: child "
        "%.3f kopt %.3f s\n",
        mode.c_str(), median(&Phases::prepare), median(&Phases::child), median(&Phases::receive),
        median(&Phases::compare), median(&Phases::release), median(&Phases::total),
        median(&Phases::child_cpu), median(&Phases::parent_cpu));
  }
  return 0;
}
