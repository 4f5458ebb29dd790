#!/usr/bin/env python3
"""The downstream optimization ablation of KEET and KernelPro, driven through `kopt optimize`
(docs/eval.md "Ablation"): every task x feedback mode (none, raw, diagnosis, explanation,
diagnosis+explanation) x search policy (mcts, greedy, random) x repeat, the same budget each, with
any generator (an LLM endpoint through --llm-config, or --llm-replay of a recorded run; the same
commands, only the config differs).

Reports per (feedback, search): geomean best speedup over the tasks (mean over repeats), fast_p (the
share of runs whose best speedup exceeds p, p = 1.0 and 1.5), LLM tokens and dollars; and a paired
test of each feedback mode against `none` under the same search: over the (task, repeat) pairs, the
exact two-sided sign test and the Wilcoxon signed-rank test (normal approximation with tie and zero
corrections) on log speedups. Writes JSON `kopt.eval.ablation/1` and an HTML page with a bar chart.

  keet_ablation.py --kopt build/src/kopt --tasks examples/tasks/saxpy examples/tasks/softmax ...
                   --feedback none,raw,diagnosis,explanation --search mcts,greedy --repeats 2
                   --max-evaluations 12 --workspace /tmp/ablation -o ablation.json --html ablation.html
                   -- --generator llm --llm-config llm.toml
Everything after `--` is passed to every `kopt optimize` call.
"""
import argparse
import html
import json
import math
import os
import subprocess
import sys


def run_one(args, task, feedback, search, repeat, extra):
    workspace = os.path.join(args.workspace, f"{os.path.basename(task)}_{feedback}_{search}_{repeat}")
    report = workspace + ".json"
    command = [args.kopt, "optimize", task, "--feedback", feedback, "--search", search,
               "--seed", str(1000 + repeat), "--max-evaluations", str(args.max_evaluations),
               "--workspace", workspace, "--format", "json", "-o", report] + extra
    completed = subprocess.run(command, capture_output=True, text=True)
    if completed.returncode not in (0,) or not os.path.exists(report):
        return {"task": task, "feedback": feedback, "search": search, "repeat": repeat, "ok": False,
                "error": (completed.stderr or completed.stdout)[-500:]}
    with open(report) as source:
        document = json.load(source)
    usage = document.get("usage", {})
    return {"task": task, "feedback": feedback, "search": search, "repeat": repeat, "ok": True,
            "best_speedup": document["best_speedup"]["value"],
            "llm_tokens": usage.get("llm_tokens", 0),
            "llm_cost_usd": usage.get("llm_cost", {}).get("value", 0.0),
            "evaluations": usage.get("evaluations", 0)}


def geomean(values):
    values = [v for v in values if v and v > 0]
    return math.exp(sum(math.log(v) for v in values) / len(values)) if values else None


def sign_test(differences):
    """Exact two-sided sign test p-value; zero differences dropped."""
    nonzero = [d for d in differences if d != 0]
    n = len(nonzero)
    if n == 0:
        return 1.0
    k = min(sum(1 for d in nonzero if d > 0), sum(1 for d in nonzero if d < 0))
    tail = sum(math.comb(n, i) for i in range(k + 1)) / 2 ** n
    return min(1.0, 2 * tail)


def wilcoxon(differences):
    """Two-sided Wilcoxon signed-rank p-value (normal approximation, average ranks for ties)."""
    nonzero = sorted((abs(d), d) for d in differences if d != 0)
    n = len(nonzero)
    if n == 0:
        return 1.0
    ranks, i = [0.0] * n, 0
    while i < n:
        j = i
        while j + 1 < n and nonzero[j + 1][0] == nonzero[i][0]:
            j += 1
        for k in range(i, j + 1):
            ranks[k] = (i + j) / 2 + 1
        i = j + 1
    w_plus = sum(r for r, (_, d) in zip(ranks, nonzero) if d > 0)
    mean = n * (n + 1) / 4
    ties = {}
    for magnitude, _ in nonzero:
        ties[magnitude] = ties.get(magnitude, 0) + 1
    variance = n * (n + 1) * (2 * n + 1) / 24 - sum(t ** 3 - t for t in ties.values()) / 48
    if variance <= 0:
        return 1.0
    z = (abs(w_plus - mean) - 0.5) / math.sqrt(variance)
    return min(1.0, math.erfc(max(z, 0) / math.sqrt(2)))


def summarize(runs, feedbacks, searches):
    cells, tests = [], []
    for search in searches:
        baseline = {(r["task"], r["repeat"]): r["best_speedup"] for r in runs
                    if r["ok"] and r["search"] == search and r["feedback"] == "none"}
        for feedback in feedbacks:
            chosen = [r for r in runs if r["search"] == search and r["feedback"] == feedback]
            done = [r for r in chosen if r["ok"]]
            by_task = {}
            for r in done:
                by_task.setdefault(r["task"], []).append(r["best_speedup"])
            cells.append({"feedback": feedback, "search": search, "runs": len(chosen), "ok": len(done),
                          "geomean_speedup": geomean([sum(v) / len(v) for v in by_task.values()]),
                          "fast_1.0": sum(r["best_speedup"] > 1.0 for r in done) / len(done) if done else None,
                          "fast_1.5": sum(r["best_speedup"] > 1.5 for r in done) / len(done) if done else None,
                          "llm_tokens": sum(r["llm_tokens"] for r in done),
                          "llm_cost_usd": sum(r["llm_cost_usd"] for r in done)})
            if feedback == "none":
                continue
            pairs = [(math.log(r["best_speedup"]) - math.log(baseline[(r["task"], r["repeat"])]))
                     for r in done if (r["task"], r["repeat"]) in baseline
                     and r["best_speedup"] > 0 and baseline[(r["task"], r["repeat"])] > 0]
            tests.append({"feedback": feedback, "against": "none", "search": search, "pairs": len(pairs),
                          "better": sum(d > 0 for d in pairs), "worse": sum(d < 0 for d in pairs),
                          "sign_test_p": sign_test(pairs), "wilcoxon_p": wilcoxon(pairs)})
    return cells, tests


def write_html(path, cells, tests):
    rows = "".join(
        f"<tr><td>{html.escape(c['feedback'])}</td><td>{html.escape(c['search'])}</td><td>{c['ok']}/{c['runs']}</td>"
        f"<td>{c['geomean_speedup'] or 0:.3f}×</td><td>{(c['fast_1.0'] or 0):.0%}</td><td>{(c['fast_1.5'] or 0):.0%}</td>"
        f"<td>{c['llm_tokens']}</td><td>{c['llm_cost_usd']:.4f}</td></tr>" for c in cells)
    top = max([c["geomean_speedup"] or 0 for c in cells] + [1])
    bars = "".join(
        f'<text x="200" y="{20 + 24 * i}" font-size="12" text-anchor="end">{html.escape(c["feedback"] + " / " + c["search"])}</text>'
        f'<rect x="206" y="{8 + 24 * i}" width="{300 * (c["geomean_speedup"] or 0) / top:.1f}" height="16" fill="#4a7ab5"/>'
        for i, c in enumerate(cells))
    test_rows = "".join(
        f"<tr><td>{html.escape(t['feedback'])} vs none</td><td>{html.escape(t['search'])}</td><td>{t['pairs']}</td>"
        f"<td>{t['better']}/{t['worse']}</td><td>{t['sign_test_p']:.3g}</td><td>{t['wilcoxon_p']:.3g}</td></tr>" for t in tests)
    with open(path, "w") as out:
        out.write("<!doctype html><meta charset=utf-8><title>kopt ablation</title><h1>Feedback × search ablation</h1>"
                  f'<svg xmlns="http://www.w3.org/2000/svg" width="560" height="{24 * len(cells) + 16}">{bars}</svg>'
                  "<table border=1><tr><th>feedback</th><th>search</th><th>runs ok</th><th>geomean speedup</th>"
                  f"<th>fast_1.0</th><th>fast_1.5</th><th>LLM tokens</th><th>USD</th></tr>{rows}</table>"
                  "<h2>Paired tests against no feedback</h2><table border=1><tr><th>mode</th><th>search</th><th>pairs</th>"
                  f"<th>better/worse</th><th>sign test p</th><th>Wilcoxon p</th></tr>{test_rows}</table>")


def main():
    argv = sys.argv[1:]
    extra = argv[argv.index("--") + 1:] if "--" in argv else []
    argv = argv[:argv.index("--")] if "--" in argv else argv
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--kopt", default="build/src/kopt")
    parser.add_argument("--tasks", nargs="+", required=True)
    parser.add_argument("--feedback", default="none,raw,diagnosis,explanation")
    parser.add_argument("--search", default="mcts,greedy,random")
    parser.add_argument("--repeats", type=int, default=2)
    parser.add_argument("--max-evaluations", type=int, default=12)
    parser.add_argument("--workspace", default="/tmp/kopt_ablation")
    parser.add_argument("-o", "--output", default="ablation.json")
    parser.add_argument("--html")
    parser.add_argument("--summarize", help="recompute the summary of an earlier results JSON (no runs)")
    args = parser.parse_args(argv)
    feedbacks, searches = args.feedback.split(","), args.search.split(",")
    if args.summarize:
        with open(args.summarize) as source:
            runs = json.load(source)["runs"]
    else:
        os.makedirs(args.workspace, exist_ok=True)
        runs = []
        for task in args.tasks:
            for search in searches:
                for feedback in feedbacks:
                    for repeat in range(args.repeats):
                        runs.append(run_one(args, task, feedback, search, repeat, extra))
                        print(json.dumps(runs[-1]), file=sys.stderr, flush=True)
    cells, tests = summarize(runs, feedbacks, searches)
    with open(args.output, "w") as out:
        json.dump({"schema": "kopt.eval.ablation/1", "feedback": feedbacks, "search": searches,
                   "repeats": args.repeats, "max_evaluations": args.max_evaluations, "cells": cells,
                   "paired_tests": tests, "runs": runs}, out, indent=2)
    if args.html:
        write_html(args.html, cells, tests)
    for cell in cells:
        print(f"{cell['feedback']:>22} {cell['search']:>7} ok {cell['ok']}/{cell['runs']} "
              f"geomean {cell['geomean_speedup']} fast_1.0 {cell['fast_1.0']} tokens {cell['llm_tokens']}")


if __name__ == "__main__":
    main()
