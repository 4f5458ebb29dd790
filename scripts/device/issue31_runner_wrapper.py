#!/usr/bin/env python3
"""KOPT_RUNNER for the `kopt suite` GPU run (scripts/device/issue31_suite.sh):
runs the real kopt-runner (ISSUE31_REAL_RUNNER) on the same request and
appends "start PID ROLE LIBRARY" / "end PID ROLE LIBRARY EXIT" lines to
ISSUE31_RUNNER_EVENTS, so the run can count completed evaluations (none may
run twice across a kill -9 and the resume) and find children left running.
Dies with the kopt that started it, as kopt-runner does (PR_SET_PDEATHSIG);
the runner below it dies with this wrapper. Needs --output-channel pipe or
memory (a pulled channel reads the memory of kopt's direct child)."""
import ctypes
import json
import os
import signal
import subprocess
import sys

ctypes.CDLL(None).prctl(1, signal.SIGKILL)  # PR_SET_PDEATHSIG
parent = os.environ.get("KOPT_PARENT_PID")
if parent:
    try:
        os.kill(int(parent), 0)
    except ProcessLookupError:
        sys.exit(4)
request = json.load(open(sys.argv[1]))
role = request.get("role", "candidate")
library = request.get("reference_library" if role == "reference" else "candidate_library", "")
events = os.environ["ISSUE31_RUNNER_EVENTS"]
mark = f"{os.getpid()} {role} {library}"
with open(events, "a") as log:
    log.write(f"start {mark}\n")
fd = request.get("output_fd", -1)
child = subprocess.Popen([os.environ["ISSUE31_REAL_RUNNER"]] + sys.argv[1:],
                         pass_fds=(fd,) if isinstance(fd, int) and fd >= 3 else ())
signal.signal(signal.SIGTERM, lambda *_: child.send_signal(signal.SIGTERM))
code = child.wait()
with open(events, "a") as log:
    log.write(f"end {mark} {code}\n")
sys.exit(code if code >= 0 else 128 - code)
