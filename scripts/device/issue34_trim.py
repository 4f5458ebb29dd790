#!/usr/bin/env python3
"""Trims an `ncu --csv --page raw --print-units base` export for a fixture: keeps the header and units
rows and every launch, and drops the columns that are empty in every launch.
  issue34_trim.py IN.csv OUT.csv"""
import csv
import sys

with open(sys.argv[1], newline="") as source:
    rows = [row for row in csv.reader(source) if row]
start = next(i for i, row in enumerate(rows) if row and row[0] == "ID")
header, units, launches = rows[start], rows[start + 1], rows[start + 2:]
keep = [c for c in range(len(header)) if any(c < len(row) and row[c].strip() for row in launches)]
with open(sys.argv[2], "w", newline="") as out:
    writer = csv.writer(out, quoting=csv.QUOTE_ALL, lineterminator="\n")
    for row in [header, units] + launches:
        writer.writerow([row[c] if c < len(row) else "" for c in keep])
print(f"{len(launches)} launches, {len(keep)} of {len(header)} columns kept", file=sys.stderr)
