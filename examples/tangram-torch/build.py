#!/usr/bin/env python3
"""Small float CNN, MLP and LSTM classifiers built and briefly trained with torch, exported to ONNX for firmgen.

For each model NAME it writes into --out:
  NAME.onnx              the float model (torch.onnx.export, opset 13), input 'x' of batch 1, output 'y' (logits)
  NAME.calibration.npz   'x': calibration inputs [N, ...] (N samples of the batch-1 input)
  NAME.test.npz          'x': held-out inputs [T, ...], 'label': their classes, 'y': the float model's logits in torch
The data are synthetic (a random prototype per class plus noise; for the LSTM the class is the step at which a marker
appears in a noisy sequence), so nothing is downloaded. Seeded: the same arguments give the same files.

Usage: build.py --out DIR [--seed 0] [--calibration 256] [--test 64] [--steps 300] [--models cnn,mlp,lstm]
"""
import argparse
import os
import sys
import warnings

import numpy as np
import torch
from torch import nn

CLASSES = 5


class Cnn(nn.Module):
    """Conv-ReLU-MaxPool, a residual block (two convs, an Add), MaxPool, Linear: input [1, 1, 12, 12]."""

    def __init__(self):
        super().__init__()
        self.stem = nn.Conv2d(1, 8, 3, padding=1)
        self.a = nn.Conv2d(8, 8, 3, padding=1)
        self.b = nn.Conv2d(8, 8, 3, padding=1)
        self.fc = nn.Linear(8 * 3 * 3, CLASSES)

    def forward(self, x):
        x = nn.functional.max_pool2d(torch.relu(self.stem(x)), 2)
        x = torch.relu(x + self.b(torch.relu(self.a(x))))
        x = nn.functional.max_pool2d(x, 2)
        return self.fc(torch.flatten(x, 1))


class Mlp(nn.Module):
    """32-64-32-5 with ReLUs: input [1, 32]."""

    def __init__(self):
        super().__init__()
        self.net = nn.Sequential(nn.Linear(32, 64), nn.ReLU(), nn.Linear(64, 32), nn.ReLU(), nn.Linear(32, CLASSES))

    def forward(self, x):
        return self.net(x)


class Lstm(nn.Module):
    """Two stacked LSTM layers (8 -> 16 -> 16, batch first) over 6 steps, Linear on the last hidden state: input [1, 6, 8]."""

    def __init__(self):
        super().__init__()
        self.lstm = nn.LSTM(8, 16, num_layers=2, batch_first=True)
        self.fc = nn.Linear(16, CLASSES)

    def forward(self, x):
        _, (h, _) = self.lstm(x)
        return self.fc(h[-1])


SHAPES = {'cnn': (1, 12, 12), 'mlp': (32,), 'lstm': (6, 8)}
MODELS = {'cnn': Cnn, 'mlp': Mlp, 'lstm': Lstm}


def dataset(name, n, gen):
    """n samples and labels of the model's synthetic task."""
    labels = torch.randint(0, CLASSES, (n,), generator=gen)
    if name == 'lstm':
        # The class is the step at which a marker (feature 0 raised by 2) appears in a noisy sequence.
        x = 0.5 * torch.randn((n,) + SHAPES[name], generator=gen)
        x[torch.arange(n), labels, 0] += 2.0
        return x, labels
    prototypes = torch.randn((CLASSES,) + SHAPES[name], generator=torch.Generator().manual_seed(1234 + len(name)))
    return prototypes[labels] + 1.5 * torch.randn((n,) + SHAPES[name], generator=gen), labels


def build(name, args):
    torch.manual_seed(args.seed)
    gen = torch.Generator().manual_seed(args.seed + 1)
    model = MODELS[name]()
    opt = torch.optim.Adam(model.parameters(), lr=1e-2)
    for _ in range(args.steps):
        x, y = dataset(name, 64, gen)
        loss = nn.functional.cross_entropy(model(x), y)
        opt.zero_grad()
        loss.backward()
        opt.step()
    model.eval()
    cal, _ = dataset(name, args.calibration, gen)
    test, labels = dataset(name, args.test, gen)
    with torch.no_grad():
        logits = torch.cat([model(test[i:i + 1]) for i in range(args.test)])
    accuracy = (logits.argmax(1) == labels).float().mean().item()
    path = os.path.join(args.out, f'{name}.onnx')
    torch.onnx.export(model, (test[:1],), path, opset_version=13, input_names=['x'], output_names=['y'])
    np.savez(os.path.join(args.out, f'{name}.calibration.npz'), x=cal.numpy().astype(np.float32))
    np.savez(os.path.join(args.out, f'{name}.test.npz'), x=test.numpy().astype(np.float32), label=labels.numpy().astype(np.int64),
             y=logits.numpy().astype(np.float32))
    print(f'{name}: loss {loss.item():.3f}, float accuracy {100 * accuracy:.1f} % on {args.test} test samples -> {path}')


def main():
    p = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    p.add_argument('--out', required=True)
    p.add_argument('--seed', type=int, default=0)
    p.add_argument('--calibration', type=int, default=256)
    p.add_argument('--test', type=int, default=64)
    p.add_argument('--steps', type=int, default=300)
    p.add_argument('--models', default='cnn,mlp,lstm')
    args = p.parse_args()
    names = args.models.split(',')
    bad = [n for n in names if n not in MODELS]
    if bad or args.calibration < 1 or args.test < 1 or args.steps < 0:
        print(f'build.py: unknown model {bad[0]!r} (cnn, mlp, lstm)' if bad else 'build.py: --calibration and --test must be >= 1, --steps >= 0',
              file=sys.stderr)
        sys.exit(2)
    os.makedirs(args.out, exist_ok=True)
    torch.set_num_threads(1)
    warnings.filterwarnings('ignore')  # the exporter's notes on LSTM batch sizes and shape inference
    for name in names:
        build(name, args)


if __name__ == '__main__':
    main()
