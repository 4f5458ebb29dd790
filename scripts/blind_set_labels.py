#!/usr/bin/env python3
"""Writes expected.toml into each trimmed blind-set fixture folder from a blind set's labels.toml
(examples/blind_set/labels.toml, examples/blind_set2/..., examples/blind_set3/...).

usage: blind_set_labels.py LABELS_TOML FIXTURE_DIR

For every [[kernel]] of the labels file with a folder FIXTURE_DIR/<program>/ holding raw.csv: kernel or
kernel_regex, source, primary_bottleneck (the label's primary), acceptable, kind, description (the
rationale), ncu_set, launches_profiled (rows of raw.csv) and the program's own event timing when
timing.txt has one. The labels are copied, never edited (they were committed before the capture).
"""
import csv
import os
import re
import sys
import tomllib


def quote(text):
    return '"' + text.replace('\\', '\\\\').replace('"', '\\"') + '"'


def main():
    labels_path, fixture_dir = sys.argv[1], sys.argv[2]
    with open(labels_path, 'rb') as f:
        labels = tomllib.load(f)['kernel']
    for label in labels:
        folder = os.path.join(fixture_dir, label['program'])
        raw = os.path.join(folder, 'raw.csv')
        if not os.path.exists(raw):
            print(f'{label["program"]}: no capture, skipped')
            continue
        with open(raw, newline='', encoding='utf-8', errors='replace') as f:
            launches = max(0, sum(1 for _ in csv.reader(f)) - 2)
        lines = [f'# Expected diagnosis of this blind-set capture: the label of {os.path.relpath(labels_path)}.']
        if 'kernel' in label:
            lines.append(f'kernel = {quote(label["kernel"])}')
        else:
            lines.append(f'kernel_regex = {quote(label["kernel_regex"])}')
        source = os.path.relpath(os.path.join(os.path.dirname(labels_path), label['program'] + '.cu'))
        lines.append(f'source = {quote(source)}')
        lines.append(f'primary_bottleneck = {quote(label["primary"])}')
        lines.append('acceptable = [' + ', '.join(quote(a) for a in label.get('acceptable', [])) + ']')
        lines.append(f'kind = {quote(label["kind"])}')
        lines.append(f'description = {quote(label["rationale"])}')
        lines.append('ncu_set = "full"')
        lines.append(f'launches_profiled = {launches}')
        timing = os.path.join(folder, 'timing.txt')
        if os.path.exists(timing):
            m = re.search(r'median_us=([0-9.]+)', open(timing).read())
            if m:
                lines.append(f'event_median_us = {m.group(1)}  # the program\'s own CUDA-event timing, 20 launches '
                             'without ncu')
        with open(os.path.join(folder, 'expected.toml'), 'w') as f:
            f.write('\n'.join(lines) + '\n')
        print(f'{label["program"]}: {label["primary"]}')


main()
