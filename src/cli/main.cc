#include "cli/commands.h"

int main(int argc, char** argv) {
  return kopt::RunCommandLine(argc, argv);
}
