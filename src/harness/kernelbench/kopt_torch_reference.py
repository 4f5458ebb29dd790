# kopt_torch_reference.py: the PyTorch side of an imported KernelBench task's
# reference (written by `kopt task import-kernelbench`; docs/kernelbench.md).
#
# Usage: python3 kopt_torch_reference.py TASK_DIR   (started by the bridge in
# reference.cu, see kopt_torch_bridge.cuh for the framing on stdin/stdout).
# Loads TASK_DIR/problem.py with real PyTorch, builds Model(*get_init_inputs())
# the way KernelBench does (seed 42, on the GPU, training mode, no grad), then
# answers calls: the harness's values for the forward arguments and the
# model's parameters in, the model's output out. Anything the problem prints
# goes to stderr.
import ctypes
import json
import os
import struct
import sys
import traceback

DTYPES = {"f32": "float32", "f16": "float16", "bf16": "bfloat16", "f64": "float64",
          "i64": "int64", "i32": "int32", "u8": "uint8"}
SCALARS = {"i32": "<i", "i64": "<q", "f32": "<f", "f64": "<d"}


def read_exact(stream, count):
    buffer = bytearray(count)
    view = memoryview(buffer)
    done = 0
    while done < count:
        n = stream.readinto(view[done:])
        if not n:
            raise EOFError
        done += n
    return buffer


def main():
    task_dir = sys.argv[1]
    out = os.fdopen(os.dup(1), "wb", buffering=0)
    inp = os.fdopen(os.dup(0), "rb", buffering=0)
    os.dup2(2, 1)
    try:
        import torch
        with open(os.path.join(task_dir, "kernelbench.json")) as f:
            spec = json.load(f)
        ns = {"__name__": "kopt_kernelbench_problem", "__file__": os.path.join(task_dir, "problem.py")}
        with open(ns["__file__"]) as f:
            exec(compile(f.read(), ns["__file__"], "exec"), ns)
        device = torch.device("cuda", torch.cuda.current_device())
        torch.manual_seed(42)
        torch.cuda.manual_seed(42)
        init_inputs = ns["get_init_inputs"]()
        torch.manual_seed(42)
        torch.cuda.manual_seed(42)
        model = ns["Model"](*init_inputs).to(device)
        parameters = dict(model.named_parameters())
        arguments = spec["arguments"]
    except Exception:
        sys.stderr.write("kopt torch reference: building the PyTorch model failed:\n" + traceback.format_exc())
        return 1
    while True:
        values = []
        try:
            for arg in arguments:
                if arg["role"] == "output":
                    continue
                (count,) = struct.unpack("<Q", read_exact(inp, 8))
                values.append((arg, read_exact(inp, count)))
        except EOFError:
            return 0
        try:
            forward_args = {}
            with torch.no_grad():
                for arg, data in values:
                    if arg["role"] == "scalar":
                        (value,) = struct.unpack(SCALARS[arg["dtype"]], data)
                        forward_args[arg["position"]] = value
                        continue
                    dtype = getattr(torch, DTYPES[arg["dtype"]])
                    tensor = torch.frombuffer(data, dtype=dtype).reshape(arg["shape"]).to(device)
                    if arg.get("torch_dtype") == "bool":  # a bool tensor travels as u8 0/1
                        tensor = tensor.bool()
                    if arg["source"] == "parameter":
                        parameters[arg["parameter"]].copy_(tensor)
                    else:
                        forward_args[arg["position"]] = tensor
                result = model(*[forward_args[i] for i in sorted(forward_args)])
                results = list(result) if isinstance(result, (list, tuple)) else [result]
                written = [a for a in arguments if a["role"] == "output"]
                if len(results) != len(written):
                    raise RuntimeError(f"forward returned {len(results)} outputs, the task declares {len(written)}")
                frames = []
                for arg, r in zip(written, results):
                    if arg.get("torch_dtype") == "bool" and r.dtype == torch.bool:
                        r = r.to(torch.uint8)
                    if list(r.shape) != arg["shape"] or str(r.dtype) != "torch." + DTYPES[arg["dtype"]]:
                        raise RuntimeError(f"forward returned {tuple(r.shape)} {r.dtype}, the task declares "
                                           f"{tuple(arg['shape'])} {DTYPES[arg['dtype']]}")
                    host = r.contiguous().cpu()
                    frames.append(ctypes.string_at(host.data_ptr(), host.numel() * host.element_size()))
                torch.cuda.synchronize()
            out.write(struct.pack("<Q", 0))
            for frame in frames:
                out.write(struct.pack("<Q", len(frame)))
                out.write(frame)
        except Exception as e:
            message = ("the PyTorch model failed:\n" + traceback.format_exc()).encode()
            out.write(struct.pack("<Q", len(message)))
            out.write(message)
            return 1


if __name__ == "__main__":
    sys.exit(main())
