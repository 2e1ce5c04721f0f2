#!/usr/bin/python3
"""Emulator-in-the-loop training for BrainScaleS-2: the MLP (docs/brainscales2.md "Emulator-in-the-loop training").

 1. a small MLP (Flatten, Linear, ReLU, Linear, ReLU, Linear) trained in float on dataset.py's data;
 2. quantized by `gen quantize` (200 training images as calibration): the int8 model firmgen maps onto the arrays;
 3. per chip seed: (a) the int8 model deployed on the emulated chip as it is; (b) the same model after one epoch
    of training with the chip in the loop, deployed on the same chip (and on the other chips); (c) the control: the
    same epoch on the same batches without the chip. Held-out accuracy of each, float and int8 digital for
    reference, as a table.

How the chip is in the loop: inloop.py (beside this script). Needs python3-torch, python3-numpy, python3-onnx and a
built firmgen (`npm run build`). No network.
  /usr/bin/python3 examples/bss2-train/train.py [--quick] [--seeds 1,2,3] [--noise-std 2] [--out DIR] [--json FILE]
"""
import os
import sys

sys.dont_write_bytecode = True  # no __pycache__ left in the source tree by the imports below
import inloop  # noqa: E402  (beside this script; exits 2 in one line without torch)
import dataset  # noqa: E402
from inloop import np, nn, torch  # noqa: E402


def mlp(sizes):
    layers = [nn.Flatten()]
    for i in range(len(sizes) - 1):
        layers.append(nn.Linear(sizes[i], sizes[i + 1]))
        if i < len(sizes) - 2:
            layers.append(nn.ReLU())
    return nn.Sequential(*layers)


def main():
    ap = inloop.Args(description=__doc__.split('\n')[0])
    ap.add_argument('--quick', action='store_true', help='2000 training and 1000 held-out samples, 4 float epochs (about a minute on two cores)')
    ap.add_argument('--data', choices=['auto', 'synthetic', 'fashion'], default='auto')
    ap.add_argument('--train', type=int, help='training samples (default 6000, --quick 2000)')
    ap.add_argument('--test', type=int, help='held-out samples (default 4000, --quick 1000)')
    ap.add_argument('--epochs', type=int, help='float epochs (default 10, --quick 4)')
    ap.add_argument('--hidden', default='128,64')
    ap.add_argument('--out', default=os.path.join(inloop.REPO, 'out', 'bss2-train'))
    inloop.add_options(ap)
    args = ap.parse_args()
    seeds = inloop.chip_seeds(ap, args)
    try:
        hidden = [int(s) for s in args.hidden.split(',')]
    except ValueError:
        ap.error('--seeds and --hidden take comma-separated integers')
    n_train = args.train or (2000 if args.quick else 6000)
    n_test = args.test or (1000 if args.quick else 4000)
    epochs = args.epochs or (4 if args.quick else 10)
    if n_train < 200 or n_test < 1 or args.batch < 1:
        ap.error('--train needs at least 200 samples (the calibration), --test and --batch at least 1')
    if args.data == 'fashion' and not dataset.fashion_installed():
        ap.error(f'--data fashion: Debian\'s dataset-fashion-mnist is not installed ({dataset.FASHION})')
    os.makedirs(args.out, exist_ok=True)
    torch.set_num_threads(2)
    log = inloop.clock()

    xs, ys, xt, yt, name = dataset.load(args.data, n_train, n_test)
    sizes = [int(np.prod(xs.shape[1:]))] + hidden + [10]
    what = f'MLP {"-".join(map(str, sizes))}'
    log(f'{name}: {n_train} training, {n_test} held-out samples; {what}')
    model, float_acc = inloop.train_float(lambda: mlp(sizes), xs, ys, xt, yt, epochs, 0)
    log(f'float: {float_acc:.2f} % after {epochs} epochs')
    figures = inloop.experiment(args, seeds, (xs, ys, xt, yt, name, what), model, float_acc, 10, log)
    inloop.write_json(args, {**figures, 'sizes': sizes})


if __name__ == '__main__':
    inloop.run(main)
