// The command table: every kopt command with its options. The same table
// builds the argument parser and `--help`. Nothing outside cli/ sees argv.
#pragma once

#include "core/status.h"

namespace kopt {

// Parses argv, runs the selected command, prints errors; returns the exit code.
int RunCommandLine(int argc, char** argv);

}  // namespace kopt
