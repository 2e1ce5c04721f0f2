#!/usr/bin/python3
"""Trains a small Fashion-MNIST CNN and writes what the example ships: model.onnx (float, opset 13),
calibration.npz (200 training images) and test.npz (500 test images with labels).

The network covers the quantizer's convolutional ops: dense 3x3 convs with ReLU, max and average pooling, a
depthwise 3x3 conv, a pointwise conv, a residual Add followed by ReLU, Flatten and a classifier Gemm.
Needs python3-torch and dataset-fashion-mnist; runs once (about 10 minutes on two cores).
"""
import os
import sys

import numpy as np
import torch
from torch import nn

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', 'fashion-mlp'))
from train import load  # noqa: E402  (the idx reader of the MLP example)

HERE = os.path.dirname(os.path.abspath(__file__))


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv1 = nn.Conv2d(1, 8, 3, padding=1)
        self.conv2 = nn.Conv2d(8, 16, 3, padding=1)
        self.dw = nn.Conv2d(16, 16, 3, padding=1, groups=16)
        self.pw = nn.Conv2d(16, 16, 1)
        self.maxpool = nn.MaxPool2d(2)
        self.avgpool = nn.AvgPool2d(2)
        self.flat = nn.Flatten()
        self.fc = nn.Linear(16 * 7 * 7, 10)

    def forward(self, x):
        x = self.maxpool(torch.relu(self.conv1(x)))
        x = self.avgpool(torch.relu(self.conv2(x)))
        y = self.pw(torch.relu(self.dw(x)))
        x = torch.relu(x + y)
        return self.fc(self.flat(x))


def main():
    torch.manual_seed(0)
    torch.set_num_threads(2)
    xs, ys, xt, yt = load()
    model = Net()
    opt = torch.optim.Adam(model.parameters(), lr=2e-3)
    sched = torch.optim.lr_scheduler.StepLR(opt, 3, 0.5)
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
        sched.step()
        model.eval()
        with torch.no_grad():
            acc = (model(torch.from_numpy(xt[:2000])).argmax(1).numpy() == yt[:2000]).mean()
        print(f'epoch {epoch}: loss {loss.item():.3f}, accuracy on 2000 test images {100 * acc:.2f} %', flush=True)

    model.eval()
    torch.onnx.export(model, torch.zeros(1, 1, 28, 28), os.path.join(HERE, 'model.onnx'), opset_version=13,
                      input_names=['image'], output_names=['logits'], do_constant_folding=True)
    rng = np.random.default_rng(2)
    cal = rng.choice(len(xs), 200, replace=False)
    test = rng.choice(len(xt), 500, replace=False)
    np.savez_compressed(os.path.join(HERE, 'calibration.npz'), image=xs[cal])
    np.savez_compressed(os.path.join(HERE, 'test.npz'), image=xt[test], label=yt[test])
    with torch.no_grad():
        sub = (model(torch.from_numpy(xt[test])).argmax(1).numpy() == yt[test]).mean()
    print(f'float accuracy on the shipped test subset: {100 * sub:.2f} %')


if __name__ == '__main__':
    sys.exit(main())
