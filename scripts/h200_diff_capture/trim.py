#!/usr/bin/env python3
"""Turns an unpacked issue-14 capture into tests/fixtures/h200_diff/.

  trim.py CAPTURE_DIR FIXTURE_DIR         round 1 (run.sh's h14/ folder): pairs, sweeps, repeat
  trim.py pairs CAPTURE_DIR FIXTURE_DIR   round 2 (pairs.sh's h14_pairs/ folder): replaces pairs/ and
                                          writes repeat_identity/, timing.txt, timing_cold.txt and
                                          pairs/env.txt, stall_counters.txt, metrics_query.txt; the
                                          sweeps and repeat/ of round 1 are kept; then `repeats`
  trim.py repeats FIXTURE_DIR             splits repeat_identity/raw.csv per task into
                                          repeat_identity/<task>/before.csv and after.csv (five
                                          launches per side: `kopt diff` reads them as repeats)

Round 1:

  pairs/<task>/before.csv, after.csv   the reference's and its fastest candidate's launches (raw page,
                                       base units), split from the one ncu export by Stream (drive.cu
                                       opens one stream per item, items in items.txt order)
  sweep_saxpy/<point>.csv              one file per point of the saxpy sweep, named by its parameters
                                       ("n=4096_block=128.csv")
  sweep_softmax_export/raw.csv         the softmax sweep as ONE multi-kernel export, with sweep.csv
                                       (launch ID -> rows, block) as its sidecar
  repeat/raw.csv                       three references profiled three times each (the noise of metrics)
  timing.txt, env.txt                  CUDA-event times (no profiler) and the capture environment
Every CSV keeps the columns that are non-empty in at least one of its rows.
"""
import csv
import os
import re
import shutil
import sys


def read_export(path):
    rows = list(csv.reader(open(path, newline="", encoding="utf-8", errors="replace")))
    start = next(i for i, r in enumerate(rows) if r and r[0] == "ID")
    return rows[start], rows[start + 1], [r for r in rows[start + 2:] if r]


def write_export(path, header, units, data):
    keep = [j for j in range(len(header)) if j < 11 or any(j < len(r) and r[j].strip() != "" for r in data)]
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w", newline="", encoding="utf-8") as f:
        w = csv.writer(f, quoting=csv.QUOTE_ALL, lineterminator="\n")
        for row in [header, units] + data:
            w.writerow([row[j] if j < len(row) else "" for j in keep])


def items(path):
    return [line.split()[0] for line in open(path) if line.strip()]


def by_stream(header, data):
    """Rows grouped by Stream, groups in order of first appearance."""
    column = header.index("Stream")
    groups, order = {}, []
    for row in data:
        if row[column] not in groups:
            groups[row[column]] = []
            order.append(row[column])
        groups[row[column]].append(row)
    return [groups[s] for s in order]


def main():
    capture, fixtures = sys.argv[1], sys.argv[2]
    os.makedirs(fixtures, exist_ok=True)
    header, units, data = read_export(os.path.join(capture, "pairs", "raw.csv"))
    labels = items(os.path.join(capture, "pairs", "items.txt"))
    groups = by_stream(header, data)
    assert len(groups) == len(labels), (len(groups), len(labels))
    for label, rows in zip(labels, groups):
        task, name = label.split("__", 1)
        side = "before" if name == "reference" else "after"
        write_export(os.path.join(fixtures, "pairs", task, side + ".csv"), header, units, rows)
        with open(os.path.join(fixtures, "pairs", task, side + ".txt"), "w") as f:
            f.write(name + "\n")
    for kernel in ("saxpy_tunable", "softmax_tunable"):
        header, units, data = read_export(os.path.join(capture, f"sweep_{kernel}", "raw.csv"))
        labels = items(os.path.join(capture, f"sweep_{kernel}", "items.txt"))
        groups = by_stream(header, data)
        assert len(groups) == len(labels)
        short = kernel.replace("_tunable", "")
        if short == "saxpy":  # the saxpy sweep as a directory of files, the softmax one as one export
            for label, rows in zip(labels, groups):
                write_export(os.path.join(fixtures, f"sweep_{short}", label + ".csv"), header, units, rows)
        if short == "softmax":
            out = os.path.join(fixtures, "sweep_softmax_export")
            write_export(os.path.join(out, "raw.csv"), header, units, data)
            with open(os.path.join(out, "sweep.csv"), "w") as f:
                f.write("launch,rows,block\n")
                for label, rows in zip(labels, groups):
                    values = dict(token.split("=") for token in label.split("_"))
                    f.write(f"{rows[0][0]},{values['rows']},{values['block']}\n")
    header, units, data = read_export(os.path.join(capture, "repeat", "raw.csv"))
    write_export(os.path.join(fixtures, "repeat", "raw.csv"), header, units, data)
    shutil.copy(os.path.join(capture, "timing_pairs.txt"), os.path.join(fixtures, "timing.txt"))
    shutil.copy(os.path.join(capture, "env.txt"), os.path.join(fixtures, "env.txt"))
    for kernel in ("saxpy_tunable", "softmax_tunable"):
        src = os.path.join(capture, f"sweep_{kernel}", "timing.txt")
        if os.path.exists(src):
            dest = "sweep_saxpy" if kernel == "saxpy_tunable" else "sweep_softmax_export"
            shutil.copy(src, os.path.join(fixtures, dest, "timing.txt"))


def main_pairs(capture, fixtures):
    header, units, data = read_export(os.path.join(capture, "pairs", "raw.csv"))
    labels = items(os.path.join(capture, "pairs", "items.txt"))
    groups = by_stream(header, data)
    assert len(groups) == len(labels), (len(groups), len(labels))
    shutil.rmtree(os.path.join(fixtures, "pairs"), ignore_errors=True)
    for label, rows in zip(labels, groups):
        task, name = label.split("__", 1)
        side = "before" if name == "reference" else "after"
        write_export(os.path.join(fixtures, "pairs", task, side + ".csv"), header, units, rows)
        with open(os.path.join(fixtures, "pairs", task, side + ".txt"), "w") as f:
            f.write(name + "\n")
    header, units, data = read_export(os.path.join(capture, "repeat", "raw.csv"))
    write_export(os.path.join(fixtures, "repeat_identity", "raw.csv"), header, units, data)
    shutil.copy(os.path.join(capture, "repeat", "items.txt"), os.path.join(fixtures, "repeat_identity", "items.txt"))
    keep = ("TIME", "SPREAD", "CHECK", "REFERENCE", "ITEM")
    for source, dest in (("timing_warm.txt", "timing.txt"), ("timing_cold.txt", "timing_cold.txt")):
        with open(os.path.join(capture, source)) as f, open(os.path.join(fixtures, dest), "w") as out:
            for line in f:
                if line.startswith(keep):
                    out.write(re.sub(r"/tmp/h14p\.[A-Za-z0-9]+/", "<work>/", line))
    for name in ("env.txt", "stall_counters.txt", "metrics_query.txt"):
        if os.path.exists(os.path.join(capture, name)):
            shutil.copy(os.path.join(capture, name), os.path.join(fixtures, "pairs", name))
    main_repeats(fixtures)


def main_repeats(fixtures):
    """repeat_identity/raw.csv split per task: <task>/before.csv (the reference's launches) and
    after.csv (the candidate's), the inputs of `kopt diff` with five launches per side."""
    root = os.path.join(fixtures, "repeat_identity")
    header, units, data = read_export(os.path.join(root, "raw.csv"))
    labels = items(os.path.join(root, "items.txt"))
    groups = by_stream(header, data)
    assert len(groups) == len(labels), (len(groups), len(labels))
    for label, rows in zip(labels, groups):
        task, name = label.split("__", 1)
        side = "before" if name == "reference" else "after"
        write_export(os.path.join(root, task, side + ".csv"), header, units, rows)


if __name__ == "__main__":
    if len(sys.argv) == 4 and sys.argv[1] == "pairs":
        main_pairs(sys.argv[2], sys.argv[3])
    elif len(sys.argv) == 3 and sys.argv[1] == "repeats":
        main_repeats(sys.argv[2])
    else:
        main()
