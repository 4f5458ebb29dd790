#!/usr/bin/env python3
"""KernelBench's own evaluation (its eval.py, eval_kernel_against_ref, with
KernelBench's defaults of scripts/eval_from_generations: 5 correctness trials,
100 perf trials, cuda-event timing) of one ModelNew candidate, timed whole.
Modules KernelBench imports but does not use in this path (pydantic,
requests, its LLM utils) are stood in for when missing.
Usage: kb_eval_driver.py KB_PKG_DIR PROBLEM.py CANDIDATE.py BUILD_DIR"""
import json, os, sys, time, types
started = time.perf_counter()
pkg_dir, problem, candidate, build_dir = sys.argv[1:5]
stood_in = []
try:
    import pydantic  # noqa
except ImportError:
    m = types.ModuleType("pydantic")
    class BaseModel:
        def __init__(self, **kw):
            for k, v in type(self).__dict__.items():
                if not k.startswith("_") and not callable(v):
                    setattr(self, k, dict(v) if isinstance(v, dict) else v)
            for k, v in kw.items():
                setattr(self, k, v)
        def model_dump(self):
            return {k: v for k, v in self.__dict__.items()}
    m.BaseModel = BaseModel
    sys.modules["pydantic"] = m
    stood_in.append("pydantic")
for name in ("requests",):
    try:
        __import__(name)
    except ImportError:
        sys.modules[name] = types.ModuleType(name); stood_in.append(name)
import importlib.util
import torch
pkg = types.ModuleType("kernelbench"); pkg.__path__ = [pkg_dir]; sys.modules["kernelbench"] = pkg
utils = types.ModuleType("kernelbench.utils"); utils.get_gpu_vendor = lambda device=None: "nvidia"
sys.modules["kernelbench.utils"] = utils; pkg.utils = utils
def load(name):
    spec = importlib.util.spec_from_file_location("kernelbench." + name, os.path.join(pkg_dir, name + ".py"))
    mod = importlib.util.module_from_spec(spec); sys.modules["kernelbench." + name] = mod
    spec.loader.exec_module(mod); setattr(pkg, name, mod); return mod
load("timing"); load("dataset"); ev = load("eval")
import_s = time.perf_counter() - started
os.makedirs(build_dir, exist_ok=True)
t0 = time.perf_counter()
res = ev.eval_kernel_against_ref(open(problem).read(), open(candidate).read(), seed_num=42,
                                 num_correct_trials=5, num_perf_trials=100, measure_performance=True,
                                 build_dir=build_dir, device=torch.device("cuda:0"))
eval_s = time.perf_counter() - t0
out = {"problem": os.path.basename(problem), "candidate": os.path.basename(candidate),
       "stood_in": stood_in, "import_s": round(import_s, 3), "eval_s": round(eval_s, 3),
       "total_s": round(time.perf_counter() - started, 3)}
if res is None:
    out["result"] = None
else:
    out.update({"compiled": res.compiled, "correctness": res.correctness, "runtime_us": res.runtime,
                "ref_runtime_us": res.ref_runtime,
                "metadata": {k: str(v)[:300] for k, v in res.metadata.items()}})
print("KBRESULT " + json.dumps(out), flush=True)
