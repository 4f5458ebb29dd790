#pragma once

// The absolute path of tests/fixtures in the source tree the test binary was built from.
// KOPT_FIXTURE_DIR names this function rather than a string literal so that the test files'
// compile commands do not carry the checkout's path: ccache (base_dir) then shares their objects
// between checkouts and worktrees. Only fixture_directory.cc is compiled with the path.
namespace kopt_fixtures {
const char* FixtureDirectory();
}  // namespace kopt_fixtures
