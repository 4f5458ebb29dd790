#include "cli/commands.h"
#include "core/interrupt.h"

int main(int argc, char** argv) {
  kopt::InstallInterruptHandling();  // before any thread starts: Ctrl-C leaves no child behind
  return kopt::RunCommandLine(argc, argv);
}
