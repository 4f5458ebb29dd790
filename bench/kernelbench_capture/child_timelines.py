"""Summarizes kopt-runner event lines (the *.stdout artifacts under a folder, e.g. the children/
folder of bench/kernelbench_capture/cost_h16e.sh): per child, seconds between events: device (CUDA
context), each outputs round with its phase_s (draw, call, input_check, send), timing (with the
sampling wall time and samples), done. Usage: child_timelines.py FOLDER"""
import json, sys, os, glob
# Summarizes kopt-runner event lines (children/**/*.stdout): context, rounds (phase_s), timing, done.
for path in sorted(glob.glob(os.path.join(sys.argv[1], "**", "*.stdout"), recursive=True)):
    events = []
    for line in open(path):
        try: events.append(json.loads(line))
        except Exception: pass
    if not events: continue
    parts = []
    last = 0.0
    for e in events:
        t = e.get("elapsed_s", 0)
        kind = e.get("event")
        if kind == "outputs":
            ph = e.get("phase_s") or {}
            parts.append(f"{e['round'][0]}{e['index']}:{t-last:.3f}(" + ",".join(f"{k[:4]}={v:.3f}" for k, v in ph.items()) + ")")
        elif kind == "timing":
            parts.append(f"timing:{t-last:.3f}(samp={e.get('sampling_wall_s',0):.3f},n={e.get('samples')})")
        else:
            parts.append(f"{kind}:{t-last:.3f}")
        last = t
    print(os.path.relpath(path, sys.argv[1]), f"total {last:.3f}:", " ".join(parts))
