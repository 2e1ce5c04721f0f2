"""A small BERT-style encoder (seeded, untrained) for Gemmini: 2 post-LN layers, hidden 64, 4 heads, sequence 16,
feed-forward 128 with GELU (erf form). Input: the token embeddings x [1, 16, 64] (the embedding lookup stays outside).
Run: /usr/bin/python3 examples/gemmini-bert/make.py [out_dir]
Writes model.onnx (opset 13: LayerNorm and GELU as torch decomposes them), calibration.npz, test.npz, sample.npz
(its first input, for gen run) and model.ort-qdq.onnx (onnxruntime's QDQ format, ../gemmini-resnet/onnx_qdq.py) into out_dir (default: here).
"""
import math
import os
import sys

import torch
import torch.nn as nn

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', 'gemmini-resnet'))
from onnx_qdq import write_example  # noqa: E402

SEQ, HIDDEN, HEADS, FFN, LAYERS = 16, 64, 4, 128, 2


class Layer(nn.Module):
    def __init__(self):
        super().__init__()
        self.q = nn.Linear(HIDDEN, HIDDEN)
        self.k = nn.Linear(HIDDEN, HIDDEN)
        self.v = nn.Linear(HIDDEN, HIDDEN)
        self.o = nn.Linear(HIDDEN, HIDDEN)
        self.ln1 = nn.LayerNorm(HIDDEN)
        self.up = nn.Linear(HIDDEN, FFN)
        self.down = nn.Linear(FFN, HIDDEN)
        self.ln2 = nn.LayerNorm(HIDDEN)

    def forward(self, x):
        d = HIDDEN // HEADS
        heads = lambda t: t.reshape(1, SEQ, HEADS, d).transpose(1, 2)  # noqa: E731
        q, k, v = heads(self.q(x)), heads(self.k(x)), heads(self.v(x))
        a = torch.softmax(q @ k.transpose(2, 3) / math.sqrt(d), dim=-1)
        ctx = (a @ v).transpose(1, 2).reshape(1, SEQ, HIDDEN)
        x = self.ln1(x + self.o(ctx))
        return self.ln2(x + self.down(nn.functional.gelu(self.up(x))))


class Encoder(nn.Module):
    def __init__(self):
        super().__init__()
        self.layers = nn.Sequential(*[Layer() for _ in range(LAYERS)])

    def forward(self, x):
        return self.layers(x)


def main():
    out = sys.argv[1] if len(sys.argv) > 1 else os.path.dirname(os.path.abspath(__file__))
    os.makedirs(out, exist_ok=True)
    torch.manual_seed(14)
    m = Encoder().eval()
    with torch.no_grad():
        for layer in m.layers:  # LayerNorm gains and biases away from 1 and 0, as a trained model has them
            for ln in (layer.ln1, layer.ln2):
                ln.weight.uniform_(0.5, 1.5)
                ln.bias.uniform_(-0.2, 0.2)
    path = os.path.join(out, 'model.onnx')
    torch.onnx.export(m, torch.randn(1, SEQ, HIDDEN), path, input_names=['x'], output_names=['y'], opset_version=13)
    g = torch.Generator().manual_seed(15)
    cal = torch.randn(8, SEQ, HIDDEN, generator=g).numpy()
    test = torch.randn(8, SEQ, HIDDEN, generator=g).numpy()
    write_example(out, path, 'x', cal, test)


if __name__ == '__main__':
    main()
