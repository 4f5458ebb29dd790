// orphan_driver DIR: a parent that starts children the way kopt does
// (core/subprocess.h SystemCommandRunner, core/parent_death.h's orphan
// sweeper), for run_orphan_tests.sh to kill -9 and then look for survivors.
//
// Each child writes its pid (and its grandchild's) under DIR before it holds:
//   worker.pid, worker_grandchild.pid  a child started from a worker thread,
//                                      with a grandchild (a compiler's cicc)
//   done.pid                           a child of a second worker thread, which
//                                      ended, and whose thread then exited
//   left_grandchild.pid                the grandchild a third worker's child
//                                      left running when it exited itself
//   main.pid, main_grandchild.pid      a child of the main thread, with a grandchild
// Then DIR/ready appears and the driver holds (the main thread in its child's
// Run) until it is killed.
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <filesystem>
#include <memory>
#include <string>
#include <thread>

#include "core/parent_death.h"
#include "core/subprocess.h"

namespace {

// A shell child that records its pid in NAME.pid, starts `sleep` as a grandchild recorded in
// NAME_grandchild.pid, and waits for it.
kopt::CommandSpec HoldingChild(const std::string& directory, const std::string& name) {
  kopt::CommandSpec spec;
  spec.argv = {"/bin/sh", "-c",
               "echo $$ > \"$0/$1.pid.tmp\" && mv \"$0/$1.pid.tmp\" \"$0/$1.pid\"; sleep 300 & "
               "echo $! > \"$0/$1_grandchild.pid.tmp\" && mv \"$0/$1_grandchild.pid.tmp\" "
               "\"$0/$1_grandchild.pid\"; wait",
               directory, name};
  return spec;
}

bool WaitForFile(const std::filesystem::path& path) {
  for (int attempt = 0; attempt < 500; ++attempt) {
    if (std::filesystem::exists(path)) return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  std::fprintf(stderr, "orphan_driver: %s never appeared\n", path.c_str());
  return false;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: orphan_driver DIR\n");
    return 2;
  }
  const std::string directory = argv[1];
  kopt::StartOrphanSweeper();
  std::unique_ptr<kopt::CommandRunner> runner = kopt::MakeSystemCommandRunner();

  std::thread worker([&] { (void)runner->Run(HoldingChild(directory, "worker")); });
  worker.detach();
  if (!WaitForFile(directory + "/worker_grandchild.pid")) return 1;

  // A worker thread whose child ends and which then exits: the other threads' children live on.
  std::thread([&] {
    kopt::CommandSpec spec;
    spec.argv = {"/bin/sh", "-c", "echo $$ > \"$0/done.pid\"", directory};
    (void)runner->Run(spec);
  }).join();

  // A child that exits leaving a grandchild running: the grandchild goes with it.
  std::thread([&] {
    kopt::CommandSpec spec;
    spec.argv = {"/bin/sh", "-c", "sleep 300 & echo $! > \"$0/left_grandchild.pid\"", directory};
    (void)runner->Run(spec);
  }).join();

  std::thread ready([&] {
    if (!WaitForFile(directory + "/main_grandchild.pid")) return;
    std::FILE* file = std::fopen((directory + "/ready").c_str(), "w");
    if (file != nullptr) std::fclose(file);
  });
  ready.detach();
  (void)runner->Run(HoldingChild(directory, "main"));
  return 0;
}
