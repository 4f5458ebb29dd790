#!/usr/bin/env python3
"""bench/mutation_score: how adequate `kopt bench`'s correctness check is, as a
mutation score (KernelBench-Verified style). Faults are injected into correct
candidates by source-level mutation operators; each mutant is checked by
`kopt bench --no-time` under several input distributions; the score is the
fraction of mutants some distribution rejects.

  generate  mutants of every correct candidate of examples/tasks (reference.cu
            and candidates/*.cu), one per (operator, site), into DIR/<task>/,
            with DIR/manifest.json (no GPU; --compile-check N compiles N of
            them with `kopt bench --compile-only`).
  score     runs kopt bench over the mutants (needs a GPU) and writes
            mutation_score.md / mutation_score.json to --out.

Distributions (kopt bench --input-scale / --input-shape): x1 (the task's
own), x3, x0.01, negated (x-1), heavy_tailed. Every mutant runs under x1; the
others run first over the mutants x1 missed (what each adds), then, while the
budget lasts, over a fixed sample (--sample) of all mutants (each one's own
detection rate). A mutant that does not compile is stillborn:
counted apart, not in the score. A mutant no distribution rejects is a miss,
listed with its operator, file, line and the changed line (some are
equivalent mutants: the fault changes nothing observable).
"""
import argparse
import collections
import json
import os
import random
import re
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(HERE)

DISTRIBUTIONS = [  # name, kopt bench arguments
    ("x1", []),
    ("x3", ["--input-scale", "3"]),
    ("x0.01", ["--input-scale", "0.01"]),
    ("negated", ["--input-scale", "-1"]),
    ("heavy_tailed", ["--input-shape", "heavy_tailed"]),
]


# ---- source helpers ----

def blank_comments(source):
    """The source with // and /* */ comments replaced by spaces (offsets kept)."""
    out = list(source)
    i, n = 0, len(source)
    state = None
    while i < n:
        c = source[i]
        nxt = source[i + 1] if i + 1 < n else ""
        if state is None:
            if c == "/" and nxt == "/":
                state = "line"
            elif c == "/" and nxt == "*":
                state = "block"
            elif c == '"':
                state = "string"
        elif state == "line" and c == "\n":
            state = None
        elif state == "block" and c == "*" and nxt == "/":
            out[i] = out[i + 1] = " "
            i += 2
            state = None
            continue
        elif state == "string":
            if c == "\\":
                i += 2
                continue
            if c == '"':
                state = None
            i += 1
            continue
        if state in ("line", "block") and c != "\n":
            out[i] = " "
        i += 1
    return "".join(out)


def matching_paren(code, open_index):
    depth = 0
    for index in range(open_index, len(code)):
        if code[index] == "(":
            depth += 1
        elif code[index] == ")":
            depth -= 1
            if depth == 0:
                return index
    return -1


def kernel_bodies(code, qualifier=r"__global__|__device__"):
    """(start, end) offsets of the braces of every function body marked by `qualifier`."""
    bodies = []
    for match in re.finditer(qualifier, code):
        brace = code.find("{", match.end())
        semicolon = code.find(";", match.end())
        if brace < 0 or 0 <= semicolon < brace:
            continue
        depth = 0
        for index in range(brace, len(code)):
            if code[index] == "{":
                depth += 1
            elif code[index] == "}":
                depth -= 1
                if depth == 0:
                    bodies.append((brace, index))
                    break
    return bodies


def in_device_code(bodies, offset):
    return any(start < offset < end for start, end in bodies)


# ---- mutation operators: each yields (offset, old_text, new_text) sites ----

def op_bound_off_by_one(code, bodies):
    """A guard or loop bound one short: `i < n` -> `i < n - 1` (the last element skipped)."""
    for match in re.finditer(r"(?<![<>=!])<(?![<=])\s*([A-Za-z_][\w.]*(?:\s*\*\s*[A-Za-z_]\w*)?)(?=\s*[;)&|])", code):
        if not in_device_code(bodies, match.start()):
            continue
        yield match.start(), match.group(0), match.group(0) + " - 1"


def op_bound_one_past(code, bodies):
    """A guard one past the end: `i < n` -> `i <= n` (reads and writes one element out of bounds)."""
    for match in re.finditer(r"(?<![<>=!])<(?![<=])(?=\s*[A-Za-z_][\w.]*\s*[;)&|])", code):
        if in_device_code(bodies, match.start()):
            yield match.start(), "<", "<="


def op_skipped_last_block(code, bodies):
    """The last block of the grid returns at once."""
    for start, _ in kernel_bodies(code, r"__global__"):
        yield start + 1, "", "\n  if (blockIdx.x == gridDim.x - 1 && gridDim.x > 1) return;\n"


def op_dropped_tail(code, bodies):
    """A ceiling division turned into a floor division: the tail of the range gets no thread or block."""
    pattern = r"\(\s*([^()]+?)\s*\+\s*(\(?[\w\s*]+\)?)\s*-\s*1\s*\)\s*/\s*(\(?[\w\s*]+\)?)"
    for match in re.finditer(pattern, code):
        if match.group(2).replace(" ", "") == match.group(3).replace(" ", ""):
            yield match.start(), match.group(0), f"({match.group(1)}) / {match.group(3)}"
    for match in re.finditer(r"\(\s*([^()]+?)\s*\+\s*(\d+)\s*\)\s*/\s*(\d+)", code):
        if int(match.group(2)) == int(match.group(3)) - 1:
            yield match.start(), match.group(0), f"({match.group(1)}) / {match.group(3)}"


def op_reduction_step(code, bodies):
    """A reduction or stride loop stops one step early (`> 0` -> `> 1`), or a shuffle goes the wrong way."""
    for match in re.finditer(r">\s*0\s*;", code):
        if in_device_code(bodies, match.start()):
            yield match.start(), match.group(0), "> 1;"
    for match in re.finditer(r"__shfl_down_sync", code):
        yield match.start(), match.group(0), "__shfl_up_sync"
    for match in re.finditer(r"__shfl_xor_sync", code):
        yield match.start(), match.group(0), "__shfl_down_sync"


def op_race(code, bodies):
    """A barrier removed: a data race between the threads of a block (or warp)."""
    for match in re.finditer(r"__syncthreads\s*\(\s*\)\s*;|__syncwarp\s*\([^)]*\)\s*;", code):
        yield match.start(), match.group(0), ";"


def op_precision_downgrade(code, bodies):
    """Fast-math intrinsics, f64 computed in f32, or a value rounded through f16."""
    for name, fast in (("expf", "__expf"), ("logf", "__logf"), ("sinf", "__sinf"), ("cosf", "__cosf"),
                       ("powf", "__powf"), ("tanf", "__tanf")):
        for match in re.finditer(rf"(?<![\w.]){name}\s*\(", code):
            if in_device_code(bodies, match.start()):
                yield match.start(), name, fast
    for match in re.finditer(r"\bdouble\b", code):
        if in_device_code(bodies, match.start()):
            yield match.start(), "double", "float"
    for match in re.finditer(r"\bfloat\s+(\w+)\s*=\s*([^;{}]+);", code):
        if in_device_code(bodies, match.start()) and "[" not in match.group(1):
            expression = match.group(2)
            yield match.start(), match.group(0), f"float {match.group(1)} = __half2float(__float2half({expression}));"


def op_sign_error(code, bodies):
    """Wrong on negative values: |x| fed to an odd function, fmaxf<->fminf, a -inf start value as 0."""
    for name in ("erff", "tanhf", "erf", "tanh"):
        for match in re.finditer(rf"(?<![\w.]){name}\s*\(", code):
            if not in_device_code(bodies, match.start()):
                continue
            open_index = match.end() - 1
            close = matching_paren(code, open_index)
            if close > 0:
                argument = code[open_index + 1:close]
                yield match.start(), code[match.start():close + 1], f"{name}(fabsf({argument}))"
    for a, b in (("fmaxf", "fminf"), ("fminf", "fmaxf")):
        for match in re.finditer(rf"(?<![\w.]){a}\s*\(", code):
            if in_device_code(bodies, match.start()):
                yield match.start(), a, b
    for match in re.finditer(r"-\s*INFINITY|-\s*FLT_MAX|-\s*3\.402823\w*", code):
        yield match.start(), match.group(0), "0.0f"
    for match in re.finditer(r"(?<![\w.])fabsf\s*\(", code):
        if in_device_code(bodies, match.start()):
            yield match.start(), match.group(0), "("


def op_overflow(code, bodies):
    """The max subtraction before an exponential dropped: exp overflows on large (scaled) inputs."""
    for match in re.finditer(r"(?<![\w.])(__expf|expf|exp)\s*\(", code):
        if not in_device_code(bodies, match.start()):
            continue
        open_index = match.end() - 1
        close = matching_paren(code, open_index)
        if close < 0:
            continue
        argument = code[open_index + 1:close]
        subtraction = re.match(r"^(.*\S)\s*-\s*([A-Za-z_][\w.\[\]]*)\s*$", argument, re.S)
        if subtraction:
            yield match.start(), code[match.start():close + 1], f"{match.group(1)}({subtraction.group(1)})"


def op_arithmetic(code, bodies):
    """One arithmetic operator replaced (+ <-> -, * -> +) in a device statement."""
    for match in re.finditer(r"(?<=[\w)\]])\s*([+\-*])\s*(?=[\w(])", code):
        if not in_device_code(bodies, match.start()):
            continue
        line_start = code.rfind("\n", 0, match.start()) + 1
        line = code[line_start:code.find("\n", match.start())]
        if re.search(r"\bfor\s*\(|#|<<<|\[", line) or "e" == code[match.start() - 1:match.start()]:
            continue
        operator = match.group(1)
        before = re.search(r"(\w+)\s*$", code[line_start:match.start(1)])
        if operator == "*" and (before is None or TYPE_NAME.match(before.group(1))):
            continue  # a pointer declaration, not a product
        replacement = {"+": "-", "-": "+", "*": "+"}[operator]
        yield match.start(1), operator, replacement


TYPE_NAME = re.compile(r"^(const|float|double|int|unsigned|char|void|auto|size_t|u?int(8|16|32|64)_t|__half|half|"
                       r"__nv_bfloat16|__half2|__nv_bfloat162|float[1-4]|double[1-4]|int[1-4]|[A-Z]\w*)$")


def op_wrong_start_value(code, bodies):
    """An accumulator starts at 1 instead of 0."""
    for match in re.finditer(r"\b(float|double)\s+(\w+)\s*=\s*(0\.0*f?|0)\s*;", code):
        if in_device_code(bodies, match.start()):
            yield match.start(), match.group(0), f"{match.group(1)} {match.group(2)} = 1.0f;"


def op_constant_perturbed(code, bodies):
    """A floating-point constant off by 0.1 % (a wrong coefficient)."""
    for match in re.finditer(r"(?<![\w.])(\d+\.\d+)(f?)(?![\w.])", code):
        if in_device_code(bodies, match.start()) and float(match.group(1)) not in (0.0, 1.0):
            yield match.start(), match.group(0), f"({match.group(0)} * 1.001{match.group(2)})"


OPERATORS = [
    ("bound_off_by_one", op_bound_off_by_one),
    ("bound_one_past", op_bound_one_past),
    ("skipped_last_block", op_skipped_last_block),
    ("dropped_tail", op_dropped_tail),
    ("reduction_step", op_reduction_step),
    ("race", op_race),
    ("precision_downgrade", op_precision_downgrade),
    ("sign_error", op_sign_error),
    ("overflow", op_overflow),
    ("arithmetic", op_arithmetic),
    ("wrong_start_value", op_wrong_start_value),
    ("constant_perturbed", op_constant_perturbed),
]


def mutants_of(source, max_per_operator, rng):
    code = blank_comments(source)
    bodies = kernel_bodies(code)
    for name, operator in OPERATORS:
        sites = []
        seen = set()
        for offset, old, new in operator(code, bodies):
            if (offset, old) in seen or source[offset:offset + len(old)] != old:
                continue
            seen.add((offset, old))
            sites.append((offset, old, new))
        if len(sites) > max_per_operator:
            sites = sorted(rng.sample(sites, max_per_operator))
        for offset, old, new in sites:
            mutated = source[:offset] + new + source[offset + len(old):]
            line = source.count("\n", 0, offset) + 1
            yield name, line, mutated


def correct_candidates(task_directory):
    files = [os.path.join(task_directory, "reference.cu")]
    folder = os.path.join(task_directory, "candidates")
    if os.path.isdir(folder):
        files += sorted(os.path.join(folder, f) for f in os.listdir(folder) if f.endswith(".cu"))
    return files


def generate(arguments):
    rng = random.Random(arguments.seed)
    tasks_root = os.path.join(REPO, "examples", "tasks")
    manifest = []
    for task in sorted(os.listdir(tasks_root)):
        task_directory = os.path.join(tasks_root, task)
        if not os.path.exists(os.path.join(task_directory, "task.toml")):
            continue
        out_directory = os.path.join(arguments.out, task)
        os.makedirs(out_directory, exist_ok=True)
        for path in correct_candidates(task_directory):
            with open(path) as f:
                source = f.read()
            stem = os.path.splitext(os.path.basename(path))[0]
            counts = collections.Counter()
            for operator, line, mutated in mutants_of(source, arguments.max_per_operator, rng):
                counts[operator] += 1
                name = f"{stem}__{operator}_{counts[operator]}"
                mutant_path = os.path.join(out_directory, name + ".cu")
                header = (f"// mutant of {os.path.relpath(path, REPO)} by bench/mutation_score.py: "
                          f"{operator} at line {line}\n")
                with open(mutant_path, "w") as f:
                    f.write(header + mutated)
                manifest.append({"task": task, "name": name, "file": os.path.relpath(mutant_path, arguments.out),
                                 "source": os.path.relpath(path, REPO), "operator": operator, "line": line,
                                 "change": mutated.splitlines()[line - 1].strip()[:160]})
    with open(os.path.join(arguments.out, "manifest.json"), "w") as f:
        json.dump({"schema": "kopt.mutants/1", "mutants": manifest}, f, indent=1)
    by_operator = collections.Counter(m["operator"] for m in manifest)
    print(f"{len(manifest)} mutants in {arguments.out}")
    for operator, count in sorted(by_operator.items()):
        print(f"  {operator}: {count}")
    if arguments.compile_check:
        compile_check(arguments, manifest, rng)


def compile_check(arguments, manifest, rng):
    sample = rng.sample(manifest, min(arguments.compile_check, len(manifest)))
    by_task = collections.defaultdict(list)
    for mutant in sample:
        by_task[mutant["task"]].append(mutant)
    failed = []
    with tempfile.TemporaryDirectory() as workspace:
        for task, mutants in by_task.items():
            report = run_bench(arguments.kopt, task, [os.path.join(arguments.out, m["file"]) for m in mutants],
                               workspace, ["--compile-only", "--arch", arguments.arch], None)
            for entry in report["candidates"]:
                if entry["status"] != "compiled":
                    failed.append((task, entry["name"], entry["message"][:200]))
    print(f"compile check: {len(sample) - len(failed)} of {len(sample)} sampled mutants compile")
    for task, name, message in failed:
        print(f"  stillborn {task}/{name}: {message}")


# ---- scoring (GPU) ----

def run_bench(kopt, task, files, workspace, extra, log):
    with tempfile.NamedTemporaryFile(suffix=".json", delete=False) as handle:
        report_path = handle.name
    command = [kopt, "bench", os.path.join(REPO, "examples", "tasks", task), *files, "--workspace", workspace,
               "-f", "json", "-o", report_path, *extra]
    completed = subprocess.run(command, capture_output=True, text=True)
    if log is not None:
        log.write(f"$ {' '.join(command[:3])} ... ({len(files)} files) {' '.join(extra)} -> {completed.returncode}\n")
        if completed.returncode != 0:
            log.write(completed.stderr[-2000:] + "\n")
    try:
        with open(report_path) as f:
            return json.load(f)
    except (OSError, json.JSONDecodeError):
        return {"candidates": [], "reference": {"status": "missing"}}
    finally:
        os.unlink(report_path)


def score(arguments):
    started = time.monotonic()
    with open(os.path.join(arguments.mutants, "manifest.json")) as f:
        mutants = json.load(f)["mutants"]
    rng = random.Random(arguments.seed)
    sample = {m["name"] + "@" + m["task"] for m in rng.sample(mutants, min(arguments.sample, len(mutants)))}
    verdicts = collections.defaultdict(dict)  # key -> distribution -> (status, kind)
    os.makedirs(arguments.out, exist_ok=True)
    log = open(os.path.join(arguments.out, "mutation_runs.log"), "w")
    workspace = arguments.workspace or tempfile.mkdtemp(prefix="kopt-mutants-")
    completed_distributions = []
    key_of = lambda m: m["name"] + "@" + m["task"]

    def run_distribution(distribution, extra, chosen):
        by_task = collections.defaultdict(list)
        for mutant in chosen:
            if distribution not in verdicts[key_of(mutant)]:
                by_task[mutant["task"]].append(mutant)
        for task, task_mutants in sorted(by_task.items()):
            files = [os.path.join(arguments.mutants, m["file"]) for m in task_mutants]
            report = run_bench(arguments.kopt, task, files, workspace,
                               ["--no-time", "--seed", str(arguments.seed), *extra], log)
            reference_ok = report.get("reference", {}).get("status") == "ok"
            by_name = {entry["name"]: entry for entry in report.get("candidates", [])}
            for mutant in task_mutants:
                entry = by_name.get(mutant["name"])
                if not reference_ok:
                    verdicts[key_of(mutant)][distribution] = ("reference_failed", "")
                elif entry is None:
                    verdicts[key_of(mutant)][distribution] = ("missing", "")
                else:
                    verdicts[key_of(mutant)][distribution] = (entry["status"], entry.get("kind") or "")

    # Every mutant under x1; then each other distribution over the x1 misses
    # (what it adds); then, while the budget lasts, over the fixed sample (its
    # own detection rate).
    run_distribution("x1", [], mutants)
    completed_distributions.append("x1")
    missed = [m for m in mutants if verdicts[key_of(m)].get("x1", ("", ""))[0] == "ok"]
    sampled = [m for m in mutants if key_of(m) in sample]
    for phase in (missed, sampled):
        for distribution, extra in DISTRIBUTIONS[1:]:
            if time.monotonic() - started > arguments.budget_seconds:
                log.write(f"budget spent before {distribution} ({'sample' if phase is sampled else 'misses'})\n")
                continue
            run_distribution(distribution, extra, phase)
            if distribution not in completed_distributions:
                completed_distributions.append(distribution)
    log.close()
    write_score(arguments, mutants, verdicts, sample, completed_distributions, time.monotonic() - started)


def classify(seen):
    """stillborn (did not compile), invalid (no verdict), detected, or missed."""
    kinds = [kind for status, kind in seen.values()]
    statuses = [status for status, kind in seen.values()]
    if any(kind in ("compile_error", "missing_entry_point") for kind in kinds):
        return "stillborn"
    if any(status == "failed" for status in statuses):
        return "detected"
    if statuses and all(status == "ok" for status in statuses):
        return "missed"
    return "invalid"


def write_score(arguments, mutants, verdicts, sample, distributions, seconds):
    rows = []
    for mutant in mutants:
        key = mutant["name"] + "@" + mutant["task"]
        seen = verdicts.get(key, {})
        rows.append({**mutant, "verdicts": {d: list(v) for d, v in seen.items()}, "class": classify(seen),
                     "in_sample": key in sample})
    valid = [r for r in rows if r["class"] in ("detected", "missed")]
    detected = [r for r in valid if r["class"] == "detected"]
    lines = ["# kopt bench: mutation score of the correctness check", "",
             f"{len(rows)} mutants generated; {sum(r['class'] == 'stillborn' for r in rows)} stillborn (do not "
             f"compile), {sum(r['class'] == 'invalid' for r in rows)} without a verdict; "
             f"{len(valid)} scored. Distributions run: {', '.join(distributions)}; {seconds:.0f} s.", ""]
    if valid:
        lines.append(f"**Mutation score: {len(detected)} / {len(valid)} = {100.0 * len(detected) / len(valid):.1f} %** "
                     "(detected by at least one distribution)")
    lines += ["", "## Per input distribution", "",
              "| distribution | detected / run (all mutants run) | on the sample | adds on the x1 misses |",
              "|---|---|---|---|"]
    x1_missed = {r["name"] + "@" + r["task"] for r in rows if r["verdicts"].get("x1", [""])[0] == "ok"}
    for distribution in distributions:
        ran = [r for r in rows if distribution in r["verdicts"] and r["class"] in ("detected", "missed")]
        caught = [r for r in ran if r["verdicts"][distribution][0] == "failed"]
        on_sample = [r for r in ran if r["in_sample"]]
        caught_sample = [r for r in on_sample if r["verdicts"][distribution][0] == "failed"]
        adds = [r for r in caught if (r["name"] + "@" + r["task"]) in x1_missed] if distribution != "x1" else []
        lines.append(f"| {distribution} | {len(caught)} / {len(ran)} | {len(caught_sample)} / {len(on_sample)} | "
                     f"{len(adds) if distribution != 'x1' else '-'} |")
    lines += ["", "## Per operator", "", "| operator | detected / scored | stillborn |", "|---|---|---|"]
    for operator, _ in OPERATORS:
        mine = [r for r in rows if r["operator"] == operator]
        scored = [r for r in mine if r["class"] in ("detected", "missed")]
        lines.append(f"| {operator} | {sum(r['class'] == 'detected' for r in scored)} / {len(scored)} | "
                     f"{sum(r['class'] == 'stillborn' for r in mine)} |")
    lines += ["", "## Per task", "", "| task | detected / scored |", "|---|---|"]
    for task in sorted({r["task"] for r in rows}):
        scored = [r for r in rows if r["task"] == task and r["class"] in ("detected", "missed")]
        lines.append(f"| {task} | {sum(r['class'] == 'detected' for r in scored)} / {len(scored)} |")
    kinds = collections.Counter(v[1] for r in rows for v in r["verdicts"].values() if v[0] == "failed")
    lines += ["", "## Kinds that rejected mutants (all runs)", "",
              ", ".join(f"{kind or '(none)'} {count}" for kind, count in kinds.most_common())]
    lines += ["", "## Misses", "", "| task | mutant | operator | source:line | changed line |", "|---|---|---|---|---|"]
    for r in rows:
        if r["class"] == "missed":
            change = r["change"].replace("|", "\\|")
            lines.append(f"| {r['task']} | {r['name']} | {r['operator']} | {r['source']}:{r['line']} | `{change}` |")
    text = "\n".join(lines) + "\n"
    with open(os.path.join(arguments.out, "mutation_score.md"), "w") as f:
        f.write(text)
    with open(os.path.join(arguments.out, "mutation_score.json"), "w") as f:
        json.dump({"schema": "kopt.mutation_score/1", "distributions": distributions, "seconds": seconds,
                   "mutants": rows}, f, indent=1)
    print(text)


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    commands = parser.add_subparsers(dest="command", required=True)
    gen = commands.add_parser("generate", help="write the mutants and their manifest")
    gen.add_argument("--out", required=True, help="directory for the mutants")
    gen.add_argument("--seed", type=int, default=30)
    gen.add_argument("--max-per-operator", type=int, default=10,
                     help="at most this many sites per operator and source file (sampled)")
    gen.add_argument("--compile-check", type=int, default=0, help="compile this many mutants (kopt bench --compile-only)")
    gen.add_argument("--kopt", default=os.path.join(REPO, "build", "src", "kopt"))
    gen.add_argument("--arch", default="sm_90a")
    run = commands.add_parser("score", help="check the mutants on the GPU and write the score")
    run.add_argument("--mutants", required=True, help="the directory `generate` wrote")
    run.add_argument("--out", required=True)
    run.add_argument("--kopt", default=os.path.join(REPO, "build", "src", "kopt"))
    run.add_argument("--workspace", default="", help="kopt workspace (default: a fresh temporary one)")
    run.add_argument("--seed", type=int, default=30)
    run.add_argument("--sample", type=int, default=60, help="mutants every distribution runs")
    run.add_argument("--budget-seconds", type=float, default=240,
                     help="start no new distribution after this many seconds")
    arguments = parser.parse_args()
    if arguments.command == "generate":
        generate(arguments)
    else:
        score(arguments)


if __name__ == "__main__":
    main()
