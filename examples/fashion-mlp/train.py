#!/usr/bin/python3
"""Trains the Fashion-MNIST MLP (784-512-256-10, output padded to 16) and writes what the example ships:
model.onnx (float, opset 13), calibration.npz (200 training images) and test.npz (500 test images with labels).

Needs the Debian packages python3-torch and dataset-fashion-mnist; runs once (about a minute on two cores).
The shipped files are the output of this script, so running the example needs neither torch nor the data set.
"""
import gzip
import os
import sys

import numpy as np
import torch
from torch import nn

DATA = '/usr/share/datasets/fashion-mnist'
HERE = os.path.dirname(os.path.abspath(__file__))


def idx(name):
    """An idx file (big-endian header: magic, dims) as a numpy array."""
    with gzip.open(os.path.join(DATA, name), 'rb') as f:
        raw = f.read()
    ndim = raw[3]
    dims = [int.from_bytes(raw[4 + 4 * i:8 + 4 * i], 'big') for i in range(ndim)]
    return np.frombuffer(raw, dtype=np.uint8, offset=4 + 4 * ndim).reshape(dims)


def load():
    xs = idx('train-images-idx3-ubyte.gz').astype(np.float32)[:, None] / 255.0
    ys = idx('train-labels-idx1-ubyte.gz').astype(np.int64)
    xt = idx('t10k-images-idx3-ubyte.gz').astype(np.float32)[:, None] / 255.0
    yt = idx('t10k-labels-idx1-ubyte.gz').astype(np.int64)
    return xs, ys, xt, yt


def main():
    torch.manual_seed(0)
    torch.set_num_threads(2)
    xs, ys, xt, yt = load()
    model = nn.Sequential(nn.Flatten(), nn.Linear(784, 512), nn.ReLU(), nn.Linear(512, 256), nn.ReLU(), nn.Linear(256, 10))
    opt = torch.optim.Adam(model.parameters(), lr=1e-3)
    X, Y = torch.from_numpy(xs), torch.from_numpy(ys)
    for epoch in range(8):
        perm = torch.randperm(len(X))
        model.train()
        for i in range(0, len(X), 128):
            b = perm[i:i + 128]
            opt.zero_grad()
            loss = nn.functional.cross_entropy(model(X[b]), Y[b])
            loss.backward()
            opt.step()
        model.eval()
        with torch.no_grad():
            acc = (model(torch.from_numpy(xt)).argmax(1).numpy() == yt).mean()
        print(f'epoch {epoch}: loss {loss.item():.3f}, test accuracy {100 * acc:.2f} %', flush=True)

    # Pad the classifier to 16 outputs (hardware-friendly widths, as the SpiNNaker2 example wants): the six extra
    # rows have zero weights and biases, so their logits are 0; the example takes the argmax over the first 10.
    last = nn.Linear(256, 16)
    with torch.no_grad():
        last.weight.zero_()
        last.bias.zero_()
        last.weight[:10] = model[5].weight
        last.bias[:10] = model[5].bias
    model[5] = last
    model.eval()
    torch.onnx.export(model, torch.zeros(1, 1, 28, 28), os.path.join(HERE, 'model.onnx'), opset_version=13,
                      input_names=['image'], output_names=['logits'], do_constant_folding=True)

    # Calibration images from the training set, test images from the test set, both seeded.
    rng = np.random.default_rng(1)
    cal = rng.choice(len(xs), 200, replace=False)
    test = rng.choice(len(xt), 500, replace=False)
    np.savez_compressed(os.path.join(HERE, 'calibration.npz'), image=xs[cal])
    np.savez_compressed(os.path.join(HERE, 'test.npz'), image=xt[test], label=yt[test])
    with torch.no_grad():
        sub = (model(torch.from_numpy(xt[test]))[:, :10].argmax(1).numpy() == yt[test]).mean()
    print(f'float accuracy on the shipped test subset: {100 * sub:.2f} %')


if __name__ == '__main__':
    sys.exit(main())
