#include "core/parent_death.h"

#include <fcntl.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <vector>

namespace kopt {
namespace {

// kopt's end of the sweeper's socket; -1: no sweeper.
std::atomic<int> sweeper_socket{-1};

// One message to the sweeper: a group that exists (add) or has ended (remove).
struct SweeperRecord {
  int32_t add = 0;
  int32_t group = 0;
};

void SendRecord(bool add, pid_t group) {
  int socket = sweeper_socket.load(std::memory_order_relaxed);
  if (socket < 0 || group <= 1) return;
  SweeperRecord record{add ? 1 : 0, static_cast<int32_t>(group)};
  // A datagram of a SOCK_SEQPACKET socket: whole or not at all.
  while (send(socket, &record, sizeof record, MSG_NOSIGNAL) < 0 && errno == EINTR) {
  }
}

// The sweeper's life: records until kopt's end of the socket closes, then SIGKILL to every group
// still registered.
[[noreturn]] void RunSweeper(int socket) {
  prctl(PR_SET_NAME, "kopt-sweeper");
  setpgid(0, 0);
  for (int signal_number : {SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGPIPE, SIGTSTP, SIGTTIN, SIGTTOU})
    signal(signal_number, SIG_IGN);
  int null_fd = open("/dev/null", O_RDWR);
  if (null_fd >= 0) {
    for (int fd = 0; fd <= 2; ++fd) dup2(null_fd, fd);
    if (null_fd > 2) close(null_fd);
  }
  if (socket != 3) {
    dup2(socket, 3);
    close(socket);
    socket = 3;
  }
  closefrom(4);  // nothing of kopt's is held open by the sweeper
  std::vector<pid_t> groups;
  while (true) {
    SweeperRecord record;
    ssize_t got = recv(socket, &record, sizeof record, 0);
    if (got < 0 && errno == EINTR) continue;
    if (got <= 0) break;  // kopt is gone (or the socket broke: sweep as if it were)
    if (got != static_cast<ssize_t>(sizeof record)) continue;
    pid_t group = static_cast<pid_t>(record.group);
    std::erase(groups, group);
    if (record.add != 0) groups.push_back(group);
  }
  for (pid_t group : groups) kill(-group, SIGKILL);
  _exit(0);
}

}  // namespace

bool DieWithParent() {
  prctl(PR_SET_PDEATHSIG, SIGKILL);
  const char* value = std::getenv(std::string(kParentPidVariable).c_str());
  if (value == nullptr) return true;
  char* end = nullptr;
  long parent = std::strtol(value, &end, 10);
  if (end == value || *end != '\0' || parent <= 1) return true;
  // The starter may be an ancestor (ncu between kopt and the runner): alive
  // is what matters, and the signal follows the direct parent.
  if (kill(static_cast<pid_t>(parent), 0) != 0 && errno == ESRCH) return false;
  return true;
}

void StartOrphanSweeper() {
  if (sweeper_socket.load() >= 0) return;
  int ends[2];
  if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, ends) != 0) return;
  pid_t sweeper = fork();
  if (sweeper < 0) {
    close(ends[0]);
    close(ends[1]);
    return;
  }
  if (sweeper == 0) {
    close(ends[0]);
    RunSweeper(ends[1]);
  }
  close(ends[1]);
  sweeper_socket.store(ends[0]);
}

void SweeperAddGroup(pid_t group) {
  SendRecord(true, group);
}

void SweeperRemoveGroup(pid_t group) {
  SendRecord(false, group);
}

}  // namespace kopt
