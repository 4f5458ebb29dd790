// The restriction installed in a forked child (it cannot be lifted, so never
// in the test process): each case exits 0 when every expectation held, else
// the number of the first that failed.
#include "core/file_write_restriction.h"

#include <arpa/inet.h>
#include <fcntl.h>
#include <gtest/gtest.h>
#include <linux/landlock.h>
#include <netinet/in.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <filesystem>
#include <functional>
#include <string>

#include "core/forked_child_test_util.h"

namespace kopt {
namespace {

bool KernelHasLandlock() {
  return syscall(SYS_landlock_create_ruleset, nullptr, 0, LANDLOCK_CREATE_RULESET_VERSION) >= 1;
}

bool Refused(int result) {
  return result < 0 && (errno == EACCES || errno == EPERM || errno == EXDEV);
}

class FileWriteRestrictionTest : public testing::Test {
 protected:
  void SetUp() override {
    if (!KernelHasLandlock()) GTEST_SKIP() << "this kernel has no Landlock";
    char pattern[] = "/tmp/kopt_landlock_XXXXXX";
    ASSERT_NE(mkdtemp(pattern), nullptr);
    root_ = pattern;
    std::filesystem::create_directory(root_ + "/tree");
    std::filesystem::create_directory(root_ + "/elsewhere");
    for (const char* name : {"/allowed_file", "/other_file"})
      close(open((root_ + name).c_str(), O_CREAT | O_WRONLY, 0600));
  }
  void TearDown() override {
    if (!root_.empty()) std::filesystem::remove_all(root_);
  }
  std::string root_;
};

TEST_F(FileWriteRestrictionTest, WritesOnlyWhereAllowedAndReadsEverywhere) {
  std::string root = root_;
  int code = InChild([root] {
    Result<FileWriteRestriction> restriction =
        RestrictFileWrites({{root + "/allowed_file", root + "/missing"}, {root + "/tree"}});
    if (!restriction.ok() || restriction->landlock_abi < 1) return 1;
    if (restriction->allowed.size() != 2) return 2;  // the missing path is skipped
    int allowed = open((root + "/allowed_file").c_str(), O_WRONLY);
    if (allowed < 0 || write(allowed, "x", 1) != 1) return 3;
    close(allowed);
    if (!Refused(open((root + "/other_file").c_str(), O_WRONLY))) return 4;
    if (!Refused(open((root + "/other_file").c_str(), O_RDWR))) return 5;
    if (!Refused(open((root + "/elsewhere/new").c_str(), O_CREAT | O_WRONLY, 0600))) return 6;
    if (!Refused(open("/proc/self/mem", O_RDWR))) return 7;
    if (!Refused(open((std::string("/proc/") + std::to_string(getppid()) + "/mem").c_str(), O_WRONLY)))
      return 8;
    if (!Refused(unlink((root + "/other_file").c_str()))) return 9;
    if (!Refused(mkdir((root + "/elsewhere/directory").c_str(), 0700))) return 10;
    if (!Refused(rename((root + "/other_file").c_str(), (root + "/tree/moved").c_str()))) return 11;
    int created = open((root + "/tree/new").c_str(), O_CREAT | O_WRONLY, 0600);
    if (created < 0) return 12;
    close(created);
    if (mkdir((root + "/tree/directory").c_str(), 0700) != 0) return 13;
    if (unlink((root + "/tree/new").c_str()) != 0) return 14;
    int readable = open((root + "/other_file").c_str(), O_RDONLY);
    if (readable < 0) return 15;
    close(readable);
    if (open("/proc/self/status", O_RDONLY) < 0) return 16;
    return 0;
  });
  EXPECT_EQ(code, 0);
  EXPECT_TRUE(std::filesystem::exists(root_ + "/other_file"));
}

TEST_F(FileWriteRestrictionTest, DeniesTcpAndSignalsToOutsideProcessesWhereTheKernelCan) {
  int code = InChild([] {
    Result<FileWriteRestriction> restriction = RestrictFileWrites({});
    if (!restriction.ok()) return 1;
    if (restriction->network_denied != (restriction->landlock_abi >= 4)) return 2;
    if (restriction->signals_scoped != (restriction->landlock_abi >= 6)) return 3;
    if (restriction->network_denied) {
      int socket_fd = socket(AF_INET, SOCK_STREAM, 0);
      sockaddr_in address{};
      address.sin_family = AF_INET;
      address.sin_port = htons(9);
      address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
      if (!Refused(connect(socket_fd, reinterpret_cast<sockaddr*>(&address), sizeof address))) return 4;
      if (!Refused(bind(socket_fd, reinterpret_cast<sockaddr*>(&address), sizeof address))) return 5;
    }
    if (restriction->signals_scoped && !Refused(kill(getppid(), 0))) return 6;
    if (kill(getpid(), 0) != 0) return 7;  // its own process stays reachable
    return 0;
  });
  EXPECT_EQ(code, 0);
}

TEST_F(FileWriteRestrictionTest, LaterThreadsAndChildrenInheritTheRestriction) {
  std::string root = root_;
  int code = InChild([root] {
    if (!RestrictFileWrites({}).ok()) return 1;
    int grandchild_code =
        InChild([root] { return Refused(open((root + "/other_file").c_str(), O_WRONLY)) ? 0 : 1; });
    return grandchild_code == 0 ? 0 : 2;
  });
  EXPECT_EQ(code, 0);
}

TEST(CudaDriverFileWritesTest, AllowsTheDriverNodesNullAndSharedMemoryOnly) {
  FileWriteAllowance allowance = CudaDriverFileWrites(false);
  for (const std::string& path : allowance.files) {
    EXPECT_TRUE(path.rfind("/dev/nvidia", 0) == 0 || path == "/dev/null") << path;
  }
  EXPECT_NE(std::find(allowance.files.begin(), allowance.files.end(), "/dev/null"), allowance.files.end());
  EXPECT_EQ(allowance.trees, std::vector<std::string>{"/dev/shm"});
  EXPECT_TRUE(allowance.deny_tcp);
  EXPECT_TRUE(allowance.deny_outside_signals_and_sockets);
}

TEST(CudaDriverFileWritesTest, UnderAProfilerTemporaryFilesAndSocketsStay) {
  FileWriteAllowance allowance = CudaDriverFileWrites(true);
  EXPECT_NE(std::find(allowance.trees.begin(), allowance.trees.end(), "/tmp"), allowance.trees.end());
  EXPECT_FALSE(allowance.deny_tcp);
  EXPECT_FALSE(allowance.deny_outside_signals_and_sockets);
}

TEST_F(FileWriteRestrictionTest, KeptNetworkStaysUsable) {
  int code = InChild([] {
    FileWriteAllowance allowance;
    allowance.deny_tcp = false;
    allowance.deny_outside_signals_and_sockets = false;
    Result<FileWriteRestriction> restriction = RestrictFileWrites(allowance);
    if (!restriction.ok() || restriction->network_denied || restriction->signals_scoped) return 1;
    int socket_fd = socket(AF_INET, SOCK_STREAM, 0);
    sockaddr_in address{};
    address.sin_family = AF_INET;
    address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    if (bind(socket_fd, reinterpret_cast<sockaddr*>(&address), sizeof address) != 0) return 2;
    return kill(getppid(), 0) == 0 ? 0 : 3;
  });
  EXPECT_EQ(code, 0);
}

}  // namespace
}  // namespace kopt
