#include "cli/commands.h"
#include "core/interrupt.h"
#include "core/parent_death.h"

int main(int argc, char** argv) {
  kopt::StartOrphanSweeper();        // before any thread starts: a kill -9 leaves no child group behind
  kopt::InstallInterruptHandling();  // before any thread starts: Ctrl-C leaves no child behind
  return kopt::RunCommandLine(argc, argv);
}
