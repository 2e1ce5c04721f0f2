"""The data set of the emulator-in-the-loop example: Fashion-MNIST when Debian's dataset-fashion-mnist is installed,
else a synthetic image set made here with a fixed seed (so the example needs no network and no download).

Synthetic set ("blobs28"): 28 x 28 grey images in [0, 1] (Fashion-MNIST's shape: 784 inputs, 7 row blocks on the
arrays), 10 classes. Each class is a prototype made of three Gaussian blobs (centres, widths and brightnesses drawn
once from a fixed seed); a sample is its class prototype shifted by up to one pixel, scaled by a contrast in
[0.5, 1.0], mixed with a random other class's prototype at a weight in [0, 0.8] (what makes classes confusable) and
with pixel noise (std 0.2), clipped to [0, 1] and rounded to 8-bit pixels. The same (seed, n) always gives the same
images and labels.
"""
import gzip
import os

import numpy as np

FASHION = '/usr/share/datasets/fashion-mnist'
SIDE = 28
CLASSES = 10


def fashion_installed():
    return os.path.exists(os.path.join(FASHION, 'train-images-idx3-ubyte.gz'))


def _idx(name):
    """An idx file (big-endian header: magic, dims) as a numpy array."""
    with gzip.open(os.path.join(FASHION, name), 'rb') as f:
        raw = f.read()
    ndim = raw[3]
    dims = [int.from_bytes(raw[4 + 4 * i:8 + 4 * i], 'big') for i in range(ndim)]
    return np.frombuffer(raw, dtype=np.uint8, offset=4 + 4 * ndim).reshape(dims)


def fashion(n_train, n_test, seed):
    """Seeded subsets of Fashion-MNIST: images [n, 1, 28, 28] float32 in [0, 1] (multiples of 1/255), labels int64."""
    rng = np.random.default_rng(seed)
    xs, ys = _idx('train-images-idx3-ubyte.gz'), _idx('train-labels-idx1-ubyte.gz')
    xt, yt = _idx('t10k-images-idx3-ubyte.gz'), _idx('t10k-labels-idx1-ubyte.gz')
    a = rng.choice(len(xs), n_train, replace=False)
    b = rng.choice(len(xt), n_test, replace=False)
    f = lambda x: (x.astype(np.float32)[:, None] / 255.0)
    return f(xs[a]), ys[a].astype(np.int64), f(xt[b]), yt[b].astype(np.int64)


def _prototypes():
    rng = np.random.default_rng(12345)
    yy, xx = np.mgrid[0:SIDE, 0:SIDE].astype(np.float64)
    protos = np.zeros((CLASSES, SIDE, SIDE))
    for c in range(CLASSES):
        for _ in range(3):
            cy, cx = rng.uniform(2, SIDE - 3, 2)
            s = rng.uniform(1.2, 3.5)
            protos[c] += rng.uniform(0.4, 1.0) * np.exp(-((yy - cy) ** 2 + (xx - cx) ** 2) / (2 * s * s))
        protos[c] /= protos[c].max()
    return protos


def synthetic(n, seed):
    """n samples of blobs28: images [n, 1, 28, 28] float32, quantized to multiples of 1/255 (8-bit pixels), labels."""
    rng = np.random.default_rng(seed)
    protos = _prototypes()
    labels = rng.integers(0, CLASSES, n)
    other = (labels + rng.integers(1, CLASSES, n)) % CLASSES
    images = np.empty((n, SIDE, SIDE))
    for i in range(n):
        p = np.roll(protos[labels[i]], tuple(rng.integers(-1, 2, 2)), axis=(0, 1))
        q = np.roll(protos[other[i]], tuple(rng.integers(-1, 2, 2)), axis=(0, 1))
        images[i] = rng.uniform(0.5, 1.0) * p + rng.uniform(0.0, 0.8) * q + rng.normal(0, 0.2, (SIDE, SIDE))
    images = np.round(np.clip(images, 0, 1) * 255) / 255
    return images.astype(np.float32)[:, None], labels.astype(np.int64)


def load(kind, n_train, n_test):
    """(train images, train labels, test images, test labels, name); kind 'auto' takes Fashion-MNIST when installed."""
    if kind == 'auto':
        kind = 'fashion' if fashion_installed() else 'synthetic'
    if kind == 'fashion':
        if not fashion_installed():
            raise SystemExit(f'--data fashion: Debian\'s dataset-fashion-mnist is not installed ({FASHION})')
        return (*fashion(n_train, n_test, 1), 'Fashion-MNIST')
    xs, ys = synthetic(n_train, 1)
    xt, yt = synthetic(n_test, 2)
    return xs, ys, xt, yt, 'synthetic blobs28'
