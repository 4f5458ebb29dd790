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

void KillGroupsAndClean() {
  Registry& registry = TheRegistry();
  std::set<pid_t> groups;
  std::map<int, std::function<void()>> cleanups;
  {
    std::lock_guard lock(registry.mutex);
    groups = registry.groups;
    cleanups = registry.cleanups;
  }
  for (pid_t group : groups) kill(-group, SIGTERM);
  auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(2);
  while (std::chrono::steady_clock::now() < deadline) {
    bool alive = false;
    for (pid_t group : groups) alive = alive || kill(-group, 0) == 0;
    if (!alive) break;
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  for (pid_t group : groups) kill(-group, SIGKILL);
  for (auto it = cleanups.rbegin(); it != cleanups.rend(); ++it) it->second();
}

}  // namespace

void InstallInterruptHandling() {
  sigset_t signals = InterruptSignals();
  pthread_sigmask(SIG_BLOCK, &signals, nullptr);
  std::thread([signals] {
    int signal_number = 0;
    if (sigwait(&signals, &signal_number) != 0) return;
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

void RunInterruptCleanupsForTest(int) {
  KillGroupsAndClean();
}

}  // namespace kopt
