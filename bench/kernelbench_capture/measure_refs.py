#!/usr/bin/env python3
"""Round-1 capture (h16): for each KernelBench problem file, the reference
measured with PyTorch on this GPU the way KernelBench times it (cuda events,
3 warm-up calls, L2 thrash before each trial), plus the ground truth kopt's
importer must reproduce: input shapes/dtypes, parameter shapes, output
shape/dtype. Writes one JSON file. Stops starting problems after BUDGET s."""
import json, math, os, sys, time
import torch

def main():
    root, out_path, budget = sys.argv[1], sys.argv[2], float(sys.argv[3])
    started = time.perf_counter()
    files = []
    for level in ("level1", "level2"):
        d = os.path.join(root, level)
        files += [(level, os.path.join(d, f)) for f in sorted(os.listdir(d)) if f.endswith(".py")]
    dev = torch.device("cuda:0")
    results = {"device": torch.cuda.get_device_name(0), "torch": torch.__version__,
               "torch_cuda": torch.version.cuda, "problems": []}
    l2 = torch.empty((32, 1024, 1024), dtype=torch.int64, device=dev)
    for level, path in files:
        if time.perf_counter() - started > budget:
            results["problems"].append({"level": level, "file": os.path.basename(path), "skipped": "budget"})
            continue
        rec = {"level": level, "file": os.path.basename(path)}
        t0 = time.perf_counter()
        try:
            ns = {"__name__": "problem"}
            exec(compile(open(path).read(), path, "exec"), ns)
            torch.manual_seed(42)
            with torch.device(dev):
                init = ns["get_init_inputs"]()
                torch.manual_seed(42)
                model = ns["Model"](*init).to(dev)
                torch.manual_seed(42)
                inputs = [x.to(dev) if isinstance(x, torch.Tensor) else x for x in ns["get_inputs"]()]
            rec["inputs"] = [{"shape": list(x.shape), "dtype": str(x.dtype)} if isinstance(x, torch.Tensor)
                             else {"value": x} for x in inputs]
            rec["parameters"] = [{"name": n, "shape": list(p.shape)} for n, p in model.named_parameters()]
            with torch.no_grad():
                y = model(*inputs)
                torch.cuda.synchronize()
                rec["output"] = {"shape": list(y.shape), "dtype": str(y.dtype)}
                for _ in range(3):
                    model(*inputs)
                torch.cuda.synchronize()
                times = []
                for _ in range(20):
                    l2.fill_(42)
                    torch.cuda.synchronize()
                    s, e = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
                    s.record(); model(*inputs); e.record(); torch.cuda.synchronize()
                    times.append(s.elapsed_time(e))
            rec["eager_mean_ms"] = sum(times) / len(times)
            rec["eager_median_ms"] = sorted(times)[len(times) // 2]
            rec["eager_min_ms"] = min(times)
        except Exception as e:
            rec["error"] = f"{type(e).__name__}: {e}"
        rec["wall_s"] = round(time.perf_counter() - t0, 3)
        results["problems"].append(rec)
        del ns
        inputs = model = y = None
        torch.cuda.empty_cache()
        print(json.dumps(rec), flush=True)
    results["total_s"] = round(time.perf_counter() - started, 3)
    with open(out_path, "w") as f:
        json.dump(results, f, indent=1)

if __name__ == "__main__":
    main()
