#include "core/interrupt.h"

#include <signal.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <map>
#include <mutex>
#include <set>
#include <thread>

namespace kopt {
namespace {

struct Registry {
  std::mutex mutex;
  std::set<pid_t> groups;
  std::map<int, std::function<void()>> cleanups;
  std::set<int> cleaned;     // cleanups already run by this interrupt
  bool interrupted = false;  // an interrupt is being handled: no new child may live
  bool installed = false;    // InstallInterruptHandling was called
  int next_id = 0;
};

Registry& TheRegistry() {
  static Registry* registry = new Registry;  // never destroyed: the waiting thread may outlive main
  return *registry;
}

sigset_t InterruptSignals() {
  sigset_t signals;
  sigemptyset(&signals);
  sigaddset(&signals, SIGINT);
  sigaddset(&signals, SIGTERM);
  sigaddset(&signals, SIGHUP);
  return signals;
}

// Kills every registered group (SIGTERM, SIGKILL after 2 s) and runs the cleanups not yet run, newest
// first; again while other threads, still running until the exit, registered more (a compile worker
// that saw its nvcc die and took the next job): at most a few rounds.
void MarkInterrupted() {
  Registry& registry = TheRegistry();
  std::lock_guard lock(registry.mutex);
  registry.interrupted = true;
}

void KillGroupsAndClean() {
  Registry& registry = TheRegistry();
  MarkInterrupted();
  std::set<pid_t> killed;
  for (int round = 0; round < 5; ++round) {
    std::set<pid_t> groups;
    std::map<int, std::function<void()>> cleanups;
    {
      std::lock_guard lock(registry.mutex);
      for (pid_t group : registry.groups) {
        if (!killed.count(group)) groups.insert(group);
      }
      for (const auto& [id, cleanup] : registry.cleanups) {
        if (!registry.cleaned.count(id)) cleanups.emplace(id, cleanup);
      }
      for (const auto& [id, cleanup] : cleanups) registry.cleaned.insert(id);
    }
    if (groups.empty() && cleanups.empty()) break;
    for (pid_t group : groups) kill(-group, SIGTERM);
    auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(2);
    while (std::chrono::steady_clock::now() < deadline) {
      bool alive = false;
      for (pid_t group : groups) alive = alive || kill(-group, 0) == 0;
      if (!alive) break;
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
    for (pid_t group : groups) kill(-group, SIGKILL);
    killed.insert(groups.begin(), groups.end());
    for (auto it = cleanups.rbegin(); it != cleanups.rend(); ++it) it->second();
  }
}

}  // namespace

void InstallInterruptHandling() {
  {
    Registry& registry = TheRegistry();
    std::lock_guard lock(registry.mutex);
    registry.installed = true;
  }
  sigset_t signals = InterruptSignals();
  pthread_sigmask(SIG_BLOCK, &signals, nullptr);
  std::thread([signals] {
    int signal_number = 0;
    if (sigwait(&signals, &signal_number) != 0) return;
    // The flag first: a progress line redrawn after this message would otherwise land below it
    // (redraws check InterruptRequested()).
    MarkInterrupted();
    std::fprintf(stderr, "\nkopt: interrupted (%s): stopping the children and cleaning up\n",
                 signal_number == SIGINT    ? "Ctrl-C"
                 : signal_number == SIGTERM ? "SIGTERM"
                                            : "SIGHUP");
    KillGroupsAndClean();
    std::fprintf(stderr,
                 "kopt: interrupted; what was measured is kept: run the same command again to resume\n");
    std::fflush(stderr);
    _exit(128 + signal_number);
  }).detach();
}

void RegisterChildGroup(pid_t process_group) {
  Registry& registry = TheRegistry();
  std::lock_guard lock(registry.mutex);
  registry.groups.insert(process_group);
  if (registry.interrupted) kill(-process_group, SIGKILL);  // started while kopt is ending
}

bool InterruptRequested() {
  Registry& registry = TheRegistry();
  std::lock_guard lock(registry.mutex);
  return registry.interrupted;
}

void UnregisterChildGroup(pid_t process_group) {
  Registry& registry = TheRegistry();
  std::lock_guard lock(registry.mutex);
  registry.groups.erase(process_group);
}

InterruptCleanup::InterruptCleanup(std::function<void()> cleanup) {
  Registry& registry = TheRegistry();
  std::lock_guard lock(registry.mutex);
  id_ = registry.next_id++;
  registry.cleanups.emplace(id_, std::move(cleanup));
}

InterruptCleanup::~InterruptCleanup() {
  Registry& registry = TheRegistry();
  std::lock_guard lock(registry.mutex);
  registry.cleanups.erase(id_);
}

void AwaitInterruptAfterChildSignal(int signal_number) {
  {
    Registry& registry = TheRegistry();
    std::lock_guard lock(registry.mutex);
    if (!registry.installed) return;
  }
  if (InterruptRequested()) AwaitInterruptExit();  // killed by the handler, whatever the signal
  if (signal_number != SIGTERM && signal_number != SIGINT && signal_number != SIGHUP) return;
  auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(2);
  while (!InterruptRequested() && std::chrono::steady_clock::now() < deadline)
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  AwaitInterruptExit();
}

void AwaitInterruptExit() {
  while (InterruptRequested()) std::this_thread::sleep_for(std::chrono::milliseconds(100));
}

void RunInterruptCleanupsForTest(int) {
  KillGroupsAndClean();
  Registry& registry = TheRegistry();
  std::lock_guard lock(registry.mutex);
  registry.interrupted = false;
  registry.cleaned.clear();
}

}  // namespace kopt
