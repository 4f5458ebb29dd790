"""A small pre-norm transformer block in eager PyTorch: the "real PyTorch program" of issue 19 item 10.

One forward pass (batch 8, sequence 128, width 512, 8 heads, MLP 2048) after one warm-up pass, on
the GPU; about 15-20 kernel launches per pass (layer norms, GEMMs, softmax, GELU, residual adds).
Used by tests/gpu/issue19_round3.sh: `kopt explain -- python3 small_transformer_block.py`.
"""
import sys

import torch
import torch.nn.functional as F


def block(x, weights):
    b, s, d = x.shape
    heads = 8
    h = F.layer_norm(x, (d,), weights["ln1_w"], weights["ln1_b"])
    qkv = h @ weights["qkv"]
    q, k, v = qkv.split(d, dim=-1)
    q = q.view(b, s, heads, d // heads).transpose(1, 2)
    k = k.view(b, s, heads, d // heads).transpose(1, 2)
    v = v.view(b, s, heads, d // heads).transpose(1, 2)
    scores = (q @ k.transpose(-2, -1)) * (d // heads) ** -0.5
    attention = torch.softmax(scores, dim=-1) @ v
    x = x + attention.transpose(1, 2).reshape(b, s, d) @ weights["proj"]
    h = F.layer_norm(x, (d,), weights["ln2_w"], weights["ln2_b"])
    return x + F.gelu(h @ weights["fc1"]) @ weights["fc2"]


def main():
    torch.manual_seed(0)
    device = "cuda"
    d = 512
    weights = {
        "ln1_w": torch.ones(d, device=device), "ln1_b": torch.zeros(d, device=device),
        "ln2_w": torch.ones(d, device=device), "ln2_b": torch.zeros(d, device=device),
        "qkv": torch.randn(d, 3 * d, device=device) * 0.02,
        "proj": torch.randn(d, d, device=device) * 0.02,
        "fc1": torch.randn(d, 4 * d, device=device) * 0.02,
        "fc2": torch.randn(4 * d, d, device=device) * 0.02,
    }
    x = torch.randn(8, 128, d, device=device)
    passes = int(sys.argv[1]) if len(sys.argv) > 1 else 1
    with torch.no_grad():
        for _ in range(passes):
            y = block(x, weights)
    torch.cuda.synchronize()
    print(f"ok {float(y.float().abs().mean()):.4f}")


if __name__ == "__main__":
    main()
