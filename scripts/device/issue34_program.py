#!/usr/bin/env python3
"""One training step of a small transformer (PyTorch), for ncu: the program whose kernels `kopt plan`
ranks. Warm-up steps run outside the profiled range (cudaProfilerStart/Stop around step 3 only), so ncu
with --profile-from-start off captures one forward, backward and optimizer step: embedding, attention
(QKV, scaled dot product, softmax), MLP, layer norms, cross-entropy, their backward kernels and Adam.
Prints the kernel launches of the profiled step (torch.profiler is not used: ncu counts them)."""
import torch

torch.manual_seed(0)
device = "cuda"
vocab, d_model, heads, layers, seq, batch = 4096, 256, 4, 2, 128, 8
layer = torch.nn.TransformerEncoderLayer(d_model, heads, dim_feedforward=4 * d_model, dropout=0.0,
                                         batch_first=True, norm_first=True)
embedding = torch.nn.Embedding(vocab, d_model).to(device)
encoder = torch.nn.TransformerEncoder(layer, layers, enable_nested_tensor=False).to(device)
head = torch.nn.Linear(d_model, vocab).to(device)
parameters = list(embedding.parameters()) + list(encoder.parameters()) + list(head.parameters())
optimizer = torch.optim.Adam(parameters, lr=1e-3, foreach=True)
tokens = torch.randint(0, vocab, (batch, seq), device=device)
targets = torch.randint(0, vocab, (batch, seq), device=device)
mask = torch.nn.Transformer.generate_square_subsequent_mask(seq, device=device)


def step():
    optimizer.zero_grad(set_to_none=True)
    hidden = encoder(embedding(tokens), mask=mask, is_causal=True)
    loss = torch.nn.functional.cross_entropy(head(hidden).view(-1, vocab), targets.view(-1))
    loss.backward()
    optimizer.step()
    return loss


for _ in range(3):
    step()
torch.cuda.synchronize()
torch.cuda.cudart().cudaProfilerStart()
loss = step()
torch.cuda.synchronize()
torch.cuda.cudart().cudaProfilerStop()
print(f"loss {loss.item():.4f}")
