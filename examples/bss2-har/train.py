#!/usr/bin/python3
"""The hxtorch paper's human-activity network on BrainScaleS-2, with the emulated chip in the loop (docs/brainscales2.md
"Example: the HAR network on a data set").

 1. Conv1d 9 channels x 128 samples, 16 filters of 32, stride 6 -> ReLU -> Linear 272 -> 125 -> ReLU -> Linear 6,
    no biases, trained in float on dataset.py's synthetic HAR windows (6 activities);
 2. quantized by `gen quantize` (200 training windows as calibration): all three layers go to the analog arrays (the
    Conv unfolded into 17 windows of 288 inputs);
 3. per chip seed: (a) the int8 model deployed on the emulated chip; (b) after one epoch with the chip in the loop,
    every layer (the Conv too: its chip outputs [17 positions, 16 filters] per window replace the float ones, the
    gradient straight through); (c) the same epoch without the chip. Held-out accuracy of each as a table.

The float model's first layer starts with each filter's mean over its 32 taps removed: the inputs sit around 0.5 (the
arrays take non-negative inputs) and a layer without bias cannot remove that offset otherwise (measured: without it,
Adam at 1e-3 stays at one or two classes). How the chip is in the loop: examples/bss2-train/inloop.py.
Needs python3-torch, python3-numpy, python3-onnx and a built firmgen (`npm run build`). No network.
  /usr/bin/python3 examples/bss2-har/train.py [--quick] [--seeds 1,2,3] [--noise-std 2] [--out DIR] [--json FILE]
"""
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.dont_write_bytecode = True  # no __pycache__ left in the source tree by the imports below
sys.path.append(os.path.join(os.path.dirname(HERE), 'bss2-train'))  # after this folder: its dataset.py comes first
import dataset  # noqa: E402  (beside this script)
import inloop  # noqa: E402  (exits 2 in one line without torch)
from inloop import nn, torch  # noqa: E402

FILTERS, KERNEL, STRIDE, HIDDEN = 16, 32, 6, 125
POSITIONS = (dataset.SAMPLES - KERNEL) // STRIDE + 1  # 17


def har_net():
    net = nn.Sequential(nn.Conv1d(dataset.CHANNELS, FILTERS, KERNEL, stride=STRIDE, bias=False), nn.ReLU(), nn.Flatten(),
                        nn.Linear(FILTERS * POSITIONS, HIDDEN, bias=False), nn.ReLU(),
                        nn.Linear(HIDDEN, len(dataset.CLASSES), bias=False))
    with torch.no_grad():
        net[0].weight -= net[0].weight.mean(2, keepdim=True)  # see the docstring: the inputs' offset
    return net


def main():
    ap = inloop.Args(description=__doc__.split('\n')[0])
    ap.add_argument('--quick', action='store_true', help='1000 training and 500 held-out windows, 6 float epochs')
    ap.add_argument('--train', type=int, help='training windows (default 3000, --quick 1000)')
    ap.add_argument('--test', type=int, help='held-out windows (default 2000, --quick 500)')
    ap.add_argument('--epochs', type=int, help='float epochs (default 8, --quick 6)')
    ap.add_argument('--out', default=os.path.join(inloop.REPO, 'out', 'bss2-har'))
    inloop.add_options(ap)
    args = ap.parse_args()
    seeds = inloop.chip_seeds(ap, args)
    n_train = args.train or (1000 if args.quick else 3000)
    n_test = args.test or (500 if args.quick else 2000)
    epochs = args.epochs or (6 if args.quick else 8)
    if n_train < 200 or n_test < 1 or args.batch < 1 or epochs < 0:
        ap.error('--train needs at least 200 windows (the calibration), --test and --batch at least 1, --epochs at least 0')
    os.makedirs(args.out, exist_ok=True)
    torch.set_num_threads(2)
    log = inloop.clock()

    xs, ys, xt, yt, name = dataset.load(n_train, n_test)
    what = f'Conv1d 9x128 k{KERNEL} s{STRIDE} {FILTERS} filters -> {FILTERS * POSITIONS}-{HIDDEN}-{len(dataset.CLASSES)}'
    log(f'{name}: {n_train} training, {n_test} held-out windows; {what}')
    model, float_acc = inloop.train_float(har_net, xs, ys, xt, yt, epochs, 0)
    log(f'float: {float_acc:.2f} % after {epochs} epochs')
    figures = inloop.experiment(args, seeds, (xs, ys, xt, yt, name, what), model, float_acc, len(dataset.CLASSES), log)
    inloop.write_json(args, figures)


if __name__ == '__main__':
    inloop.run(main)
