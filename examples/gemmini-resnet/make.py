"""A ResNet-style CNN (seeded, untrained) for Gemmini: float ONNX, calibration and test inputs, and the QDQ model in
onnxruntime's quantizer format (onnx_qdq.py). Run: /usr/bin/python3 examples/gemmini-resnet/make.py [out_dir]
Writes model.onnx, calibration.npz (input [N, 3, 32, 32]), test.npz, sample.npz (its first input, for gen run), model.ort-qdq.onnx into out_dir (default: here).
"""
import os
import sys

import torch
import torch.nn as nn

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from onnx_qdq import write_example  # noqa: E402


class Block(nn.Module):
    """Basic residual block: conv3x3 (stride s) + ReLU, conv3x3, shortcut (1x1 stride s when the shape changes), Add, ReLU."""

    def __init__(self, cin, cout, stride):
        super().__init__()
        self.conv1 = nn.Conv2d(cin, cout, 3, stride, 1)
        self.conv2 = nn.Conv2d(cout, cout, 3, 1, 1)
        self.short = nn.Conv2d(cin, cout, 1, stride) if stride != 1 or cin != cout else None

    def forward(self, x):
        y = self.conv2(torch.relu(self.conv1(x)))
        return torch.relu(y + (self.short(x) if self.short is not None else x))


class ResNetStyle(nn.Module):
    """Stem conv 3x3 3->16 + ReLU, max pool 2, blocks 16->16, 16->32/2, 32->32/2, global average pool, Gemm 32->10."""

    def __init__(self):
        super().__init__()
        self.stem = nn.Conv2d(3, 16, 3, 1, 1)
        self.pool = nn.MaxPool2d(2)
        self.blocks = nn.Sequential(Block(16, 16, 1), Block(16, 32, 2), Block(32, 32, 2))
        self.fc = nn.Linear(32, 10)

    def forward(self, x):
        x = self.blocks(self.pool(torch.relu(self.stem(x))))
        return self.fc(torch.flatten(nn.functional.adaptive_avg_pool2d(x, 1), 1))


def main():
    out = sys.argv[1] if len(sys.argv) > 1 else os.path.dirname(os.path.abspath(__file__))
    os.makedirs(out, exist_ok=True)
    torch.manual_seed(14)
    m = ResNetStyle().eval()
    x = torch.rand(1, 3, 32, 32)
    path = os.path.join(out, 'model.onnx')
    torch.onnx.export(m, x, path, input_names=['image'], output_names=['logits'], opset_version=13)
    g = torch.Generator().manual_seed(15)
    cal = torch.rand(8, 3, 32, 32, generator=g).numpy()
    test = torch.rand(8, 3, 32, 32, generator=g).numpy()
    write_example(out, path, 'image', cal, test)


if __name__ == '__main__':
    main()
