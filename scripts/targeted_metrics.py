#!/usr/bin/env python3
"""Regenerates the metric list of src/analysis/collection_metrics.cc (the targeted live collection).

The list: every ncu metric name that appears as a string literal in src/ (tests excluded), plus every
column of the captured full-set raw pages (tests/fixtures/h200*/*/raw.csv) that matches a metric name
the sources build from a pattern ("..._op_{}.sum", "..._op_" + op + ".sum"). launch__*, device__*,
derived__* and smsp__pcsamp_* are left out: the LaunchStats/Occupancy/SourceCounters sections bring the
first three, and the analysis reads no PC-sampling counter.

Usage: scripts/targeted_metrics.py [REPO]   prints the C++ array body; paste it into kMetrics.
"""
import csv
import glob
import os
import re
import sys

repo = sys.argv[1] if len(sys.argv) > 1 else os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sources = [p for p in glob.glob(os.path.join(repo, "src", "**", "*.*"), recursive=True)
           if p.endswith((".cc", ".h")) and not p.endswith("_test.cc")]
text = "".join(open(p, encoding="utf-8").read() for p in sources)
literals = set(re.findall(r'"([a-z][a-z0-9_]*__[A-Za-z0-9_.]*)"', text))
# Patterns: fmt::format templates with {} and concatenations "prefix_" + x + ".suffix".
patterns = set(re.findall(r'"([a-z][a-z0-9_]*__[A-Za-z0-9_.{}]*\{\}[A-Za-z0-9_.{}]*)"', text))
for prefix, suffix in re.findall(r'"([a-z][a-z0-9_]*__[A-Za-z0-9_]*_)"\s*\+\s*\w+\s*\+\s*"([A-Za-z0-9_.]*)"', text):
    patterns.add(prefix + "{}" + suffix)
columns = set()
for raw in glob.glob(os.path.join(repo, "tests", "fixtures", "h200*", "*", "raw.csv")):
    with open(raw, newline="", encoding="utf-8") as stream:
        columns |= set(next(csv.reader(stream)))
selected = {name for name in literals if name in columns}
for pattern in patterns:
    regex = re.compile("^" + re.escape(pattern).replace(re.escape("{}"), "[a-z0-9_]+") + "$")
    selected |= {column for column in columns if regex.match(column)}
excluded = ("launch__", "device__", "derived__", "smsp__pcsamp_")
for name in sorted(n for n in selected if not n.startswith(excluded)):
    print(f'    "{name}",')
