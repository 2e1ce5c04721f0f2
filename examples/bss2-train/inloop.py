"""Emulator-in-the-loop training for BrainScaleS-2: the machinery the examples share (docs/brainscales2.md
"Emulator-in-the-loop training"; examples/bss2-train/train.py, the MLP; examples/bss2-har/train.py, the Conv1d net).

hxtorch's hardware-in-the-loop step (the forward pass runs on the chip, the backward pass in torch with the chip's
values passed straight through; issue 17) with firmgen's emulated chip as the hardware: a float model, quantized by
`gen quantize`; per chip seed (a) the int8 model deployed on the emulated chip as it is, (b) the same model after one
epoch of training with the chip in the loop, (c) the control: the same epoch on the same batches without the chip.

The trained parameters are the int8 model's own weights (int8 units) and biases (in LSB of the layer's output), kept
as floats and rounded when the model is written: every other number of the int8 model (scales, requantization
multipliers and shifts) stays as `gen quantize` chose it. Each training step writes the rounded model, sends the
batch through the emulated chip for the chip seed (examples/bss2-train/forward-server.ts: `gen forward --layers`
kept running, so each step costs one compile and one batch, no Node start), and takes every analog layer's output
from the chip; torch recomputes each layer in float from the chip's input to that layer (a Conv's from the layer's
input tensor, a Gemm's or MatMul's from the flattened one), and the chip's output replaces the float one in the
forward value only (y = y_float + (y_chip - y_float).detach()): the straight-through gradient. The chip's forward
pass is firmgen's reference of the lowered graph, which the generated firmware equals bit for bit, so what was
trained against is what `gen firmware --platform brainscales2` deploys.

Needs python3-torch, python3-numpy, python3-onnx and a built firmgen (`npm run build`). No network.
"""
import argparse
import json
import os
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))
SERVER = os.path.join(REPO, 'dist', 'examples', 'bss2-train', 'forward-server.js')
GEN = os.path.join(REPO, 'bin', 'gen.js')
NODE = os.environ.get('FIRMGEN_NODE', 'node')

try:
    import numpy as np
    import onnx
    import torch
    from onnx import numpy_helper
    from torch import nn
except ImportError as e:
    print(f'{os.path.basename(sys.argv[0])} needs python3-torch, python3-numpy and python3-onnx (apt-get install python3-torch python3-onnx): {e}',
          file=sys.stderr)
    sys.exit(2)


class ChipError(Exception):
    pass


class Chip:
    """The emulated chip: one forward-server.js process, one request (a batch) at a time."""

    def __init__(self, work):
        if not os.path.exists(SERVER):
            raise ChipError(f'{SERVER} is missing: run `npm run build` first')
        self.work = work
        self.proc = subprocess.Popen([NODE, SERVER], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True, cwd=REPO)
        self.ms = 0

    def forward(self, model, images, options, layers=False):
        """images: uint8 [n, ...] (the int8 model's input bytes); returns the .npz's arrays as a dict."""
        batch = os.path.join(self.work, 'batch.npz')  # not inputs.npz: beside a model that would set its input ranges
        out = os.path.join(self.work, 'chip-out.npz')
        np.savez(batch, image=images)
        self.proc.stdin.write(json.dumps({'model': model, 'inputs': batch, 'out': out, 'options': options,
                                          'layers': layers}) + '\n')
        self.proc.stdin.flush()
        line = self.proc.stdout.readline()
        if not line:
            raise ChipError('the forward server ended')
        answer = json.loads(line)
        if 'error' in answer:
            raise ChipError(answer['error'])
        self.ms += answer['ms']
        with np.load(out) as z:
            return {k: z[k] for k in z.files}

    def close(self):
        self.proc.stdin.close()
        self.proc.wait()


class Int8Model:
    """The int8 ONNX model of `gen quantize`: per analog layer its weight and bias initializers and its RequantShift.

    The layer forms `gen quantize` writes: Gemm(x, W [N, K], b, transB=1), MatMul(x, W [K, N]) + Add(b) (a Linear
    without bias: the quantizer's bias correction adds one), Conv(x, W [F, C, k], b) (1-D, no padding, no dilation,
    one group: what the in-the-loop layer recomputes), each followed by its RequantShift."""

    def __init__(self, path, classes):
        self.path = path
        self.model = onnx.load(path)
        g = self.model.graph
        self.inits = {i.name: numpy_helper.to_array(i) for i in g.initializer}
        readers = {}
        for n in g.node:
            for t in n.input:
                readers.setdefault(t, []).append(n)
        self.layers = []
        for n in g.node:
            if n.op_type not in ('Gemm', 'MatMul', 'Conv'):
                continue
            layer = self._layer(n, readers)
            rq = readers.get(layer['acc'], [])
            if len(rq) != 1 or rq[0].op_type != 'RequantShift':
                raise ChipError(f'{path}: {n.op_type} {n.name} is not followed by the quantizer\'s RequantShift')
            ra = {a.name: onnx.helper.get_attribute_value(a) for a in rq[0].attribute}
            levels, signed = ra['n_levels'], ra['signed'] != 0
            layer.update({
                'mul': self.inits[rq[0].input[1]].astype(np.float64).reshape(-1),
                'add': self.inits[rq[0].input[2]].astype(np.float64).reshape(-1),
                'div': float(ra['div']),
                'range': (-(levels // 2), levels // 2 - 1) if signed else (0, levels - 1),
            })
            self.layers.append(layer)
        quant = json.load(open(os.path.splitext(path)[0] + '.quant.json'))
        self.in_scale = quant['inputs'][0]['scale']
        self.out_scale = quant['outputs'][0]['scale']
        self.classes = classes

    def _layer(self, n, readers):
        """kind, weight and bias initializer names, the accumulator tensor (what the RequantShift reads)."""
        attrs = {a.name: onnx.helper.get_attribute_value(a) for a in n.attribute}
        where = f'{self.path}: {n.op_type} {n.name}'
        if n.op_type == 'Gemm':
            if attrs.get('transB') != 1 or len(n.input) != 3:
                raise ChipError(f'{where} is not the quantizer\'s Gemm(transB=1, bias)')
            return {'kind': 'gemm', 'w': n.input[1], 'b': n.input[2], 'acc': n.output[0]}
        if n.op_type == 'MatMul':
            add = readers.get(n.output[0], [])
            if n.input[1] not in self.inits or len(add) != 1 or add[0].op_type != 'Add' or add[0].input[1] not in self.inits:
                raise ChipError(f'{where} is not the quantizer\'s MatMul(x, W) + Add(bias)')
            return {'kind': 'matmul', 'w': n.input[1], 'b': add[0].input[1], 'acc': add[0].output[0]}
        w = self.inits.get(n.input[1])
        if (w is None or w.ndim != 3 or len(n.input) != 3 or attrs.get('group', 1) != 1 or any(attrs.get('pads', [0])) or
                any(d != 1 for d in attrs.get('dilations', [1]))):
            raise ChipError(f'{where}: the in-the-loop layer takes a 1-D Conv with bias, no padding, dilation or groups')
        return {'kind': 'conv', 'w': n.input[1], 'b': n.input[2], 'acc': n.output[0], 'stride': attrs.get('strides', [1])[0]}

    def image_bytes(self, images):
        """Float images to the model's uint8 input (as `gen quantize` prints it: round half even, clip)."""
        return np.clip(np.rint(images / self.in_scale), 0, 255).astype(np.uint8)

    def write(self, weights, biases, path):
        """This model with the given int8 weights and int32 biases (per layer) as `path` (its quant.json beside)."""
        new = {}
        for layer, w, b in zip(self.layers, weights, biases):
            new[layer['w']] = w.astype(np.int8)
            new[layer['b']] = b.astype(self.inits[layer['b']].dtype)
        m = onnx.ModelProto()
        m.CopyFrom(self.model)
        for i, init in enumerate(m.graph.initializer):
            if init.name in new:
                m.graph.initializer[i].CopyFrom(numpy_helper.from_array(new[init.name], init.name))
        onnx.save(m, path)
        quant = os.path.splitext(self.path)[0] + '.quant.json'
        with open(os.path.splitext(path)[0] + '.quant.json', 'w') as f:
            f.write(open(quant).read())


class InTheLoop(nn.Module):
    """The int8 model's layers in float (float64), trainable: weights in int8 units, biases in LSB of each layer's output."""

    def __init__(self, q):
        super().__init__()
        self.q = q
        self.w = nn.ParameterList()
        self.beta = nn.ParameterList()
        for layer in q.layers:
            mul = layer['mul'] * np.ones(q.inits[layer['b']].shape)
            self.w.append(nn.Parameter(torch.from_numpy(q.inits[layer['w']].astype(np.float64))))
            self.beta.append(nn.Parameter(torch.from_numpy(q.inits[layer['b']] * mul / layer['div'])))
            layer['mul_n'] = torch.from_numpy(mul)

    def forward(self, x, chip=None):
        """x: the input bytes [n, ...] as float; chip: per layer the chip's requantized outputs as `gen forward
        --layers` gives them (rows [n * M, N]: M = 1, or a Conv's output positions) or None (digital)."""
        h = x
        for i, layer in enumerate(self.q.layers):
            mul, div, beta, add = layer['mul_n'], layer['div'], self.beta[i], torch.from_numpy(layer['add'])
            if layer['kind'] == 'conv':
                acc = nn.functional.conv1d(h, self.w[i], stride=layer['stride'])  # [n, F, P]
                mul, beta = mul[:, None], beta[:, None]
            else:
                h = h.reshape(len(h), -1)  # the Flatten before a Linear
                acc = h @ (self.w[i].T if layer['kind'] == 'gemm' else self.w[i])
            z = ((acc * mul + beta * div + add) / div).clamp(*layer['range'])
            if chip is not None:
                # the chip's rows are [n, P, F] for a Conv (one row per output position): to torch's [n, F, P]
                y = torch.from_numpy(chip[i]).to(z.dtype)
                y = y.reshape(len(z), z.shape[2], z.shape[1]).transpose(1, 2) if z.dim() == 3 else y.reshape(z.shape)
                z = z + (y - z).detach()
            h = z
        return h.reshape(len(h), -1) * self.q.out_scale

    def rounded(self):
        """The int8 weights and int32 biases these parameters stand for."""
        ws, bs = [], []
        for i, layer in enumerate(self.q.layers):
            ws.append(np.clip(np.rint(self.w[i].detach().numpy()), -127, 127))
            mul = layer['mul_n'].numpy()
            # a channel whose multiplier is 0 ignores its bias: keep the quantizer's
            safe = np.where(mul != 0, mul, 1)
            bs.append(np.where(mul != 0, np.rint(self.beta[i].detach().numpy() * layer['div'] / safe), self.q.inits[layer['b']]))
        return ws, bs

    def clamp_(self):
        with torch.no_grad():
            for w in self.w:
                w.clamp_(-127.49, 127.49)


def train_float(build, xs, ys, xt, yt, epochs, seed):
    """The float model build() makes (after seeding torch with `seed`), trained with Adam (step 1e-3, batches of 64)."""
    torch.manual_seed(seed)
    model = build()
    opt = torch.optim.Adam(model.parameters(), lr=1e-3)
    X, Y = torch.from_numpy(xs), torch.from_numpy(ys)
    for _ in range(epochs):
        perm = torch.randperm(len(X))
        for i in range(0, len(X), 64):
            b = perm[i:i + 64]
            opt.zero_grad()
            nn.functional.cross_entropy(model(X[b]), Y[b]).backward()
            opt.step()
    model.eval()
    with torch.no_grad():
        acc = (model(torch.from_numpy(xt)).argmax(1).numpy() == yt).mean()
    return model, 100 * acc


def quantize(model, xs, shape, work):
    """The float model exported and quantized by `gen quantize` (calibration: 200 training images)."""
    fp = os.path.join(work, 'model.onnx')
    torch.onnx.export(model, torch.zeros(1, *shape), fp, opset_version=13, input_names=['image'],
                      output_names=['logits'], do_constant_folding=True)
    cal = os.path.join(work, 'calibration.npz')
    np.savez(cal, image=xs[:200])
    out = os.path.join(work, 'model.int8.onnx')
    r = subprocess.run([NODE, GEN, 'quantize', fp, '--calibration', cal, '-o', out], capture_output=True, text=True, cwd=REPO)
    if r.returncode != 0:
        raise ChipError(f'gen quantize failed: {r.stderr.strip()}')
    return out


def chip_loss_acc(chip, q, model, images, labels, options):
    out = chip.forward(model, q.image_bytes(images), options)
    logits = out['logits'].reshape(len(out['logits']), -1)[:, :q.classes]
    logits = torch.from_numpy(logits.astype(np.float64) * q.out_scale)
    loss = nn.functional.cross_entropy(logits, torch.from_numpy(labels)).item()
    return loss, 100 * (logits.argmax(1).numpy() == labels).mean()


def train_in_the_loop(chip, q, xs, ys, seed, args, work, log, use_chip=True, mapping=None):
    """One epoch (or --steps) of training with the chip of `seed` in the forward pass; returns the trained model's path.
    use_chip False: the same steps on the same batches without the chip (the int8 model's layers in float, rounding
    passed straight through): the control that tells the chip's part of the gain from that of more training.
    mapping: platform options every step's chip takes besides the seed and noise (the calibration samples)."""
    net = InTheLoop(q).double()
    opt = torch.optim.Adam(net.parameters(), lr=args.lr)
    rng = np.random.default_rng(seed)
    tag = f'chip{seed}' if use_chip else f'digital{seed}'
    step_model = os.path.join(work, f'{tag}-step.int8.onnx')
    X = q.image_bytes(xs)
    steps = 0
    t0 = time.time()
    losses = []
    for _ in range(args.hil_epochs):
        perm = rng.permutation(len(X))
        for i in range(0, len(X), args.batch):
            if args.steps and steps >= args.steps:
                break
            b = perm[i:i + args.batch]
            taps = None
            if use_chip:
                q.write(*net.rounded(), step_model)
                # a fresh temporal noise draw per step (the chip's noise is not part of what is learnt)
                opts = {**(mapping or {}), 'chipSeed': seed, 'noiseStd': args.noise_std, 'noiseSeed': 1000 + steps}
                out = chip.forward(step_model, X[b], opts, layers=True)
                if f'analog{len(q.layers) - 1}_output' not in out or f'analog{len(q.layers)}_output' in out:
                    raise ChipError(f'not every one of the {len(q.layers)} layers is on the analog arrays')
                taps = [out[f'analog{i}_output'].astype(np.float64) for i in range(len(q.layers))]
            logits = net(torch.from_numpy(X[b].astype(np.float64)), taps)[:, :q.classes]
            loss = nn.functional.cross_entropy(logits, torch.from_numpy(ys[b]))
            opt.zero_grad()
            loss.backward()
            opt.step()
            net.clamp_()
            losses.append(loss.item())
            steps += 1
            if use_chip and steps % 20 == 0:
                log(f'    chip {seed}: step {steps}, loss {np.mean(losses[-20:]):.3f}')
    trained = os.path.join(work, f'{tag}.int8.onnx')
    q.write(*net.rounded(), trained)
    if use_chip:
        log(f'    chip {seed}: {steps} steps in {time.time() - t0:.1f} s')
    return trained, steps, losses


class Args(argparse.ArgumentParser):
    def error(self, message):
        """Bad input: one line, exit 2 (argparse's own prints the usage first)."""
        print(f'{os.path.basename(sys.argv[0])}: {message}', file=sys.stderr)
        sys.exit(2)


def add_options(ap):
    """The options every in-the-loop example takes (sizes and epochs are the example's own)."""
    ap.add_argument('--seeds', default='1,2,3', help='chip seeds (comma separated)')
    ap.add_argument('--noise-std', type=float, default=2.0, help='temporal noise in output LSB (hxtorch\'s mock: 2)')
    ap.add_argument('--hil-epochs', type=int, default=1, help='epochs with the chip in the loop')
    ap.add_argument('--steps', type=int, default=0, help='at most this many in-the-loop steps per chip (0: the epochs)')
    ap.add_argument('--batch', type=int, default=64)
    ap.add_argument('--lr', type=float, default=0.3, help='Adam step, in int8 weight units')
    ap.add_argument('--json', help='write the figures (and each step\'s loss) to this file')
    ap.add_argument('--analog-samples', type=int, default=200,
                    help='training samples given to the mapping as calibration samples (num_sends from their sums; 0: the input-free bound)')


def chip_seeds(ap, args):
    try:
        return [int(s) for s in args.seeds.split(',')]
    except ValueError:
        ap.error('--seeds takes comma-separated integers')


def clock():
    t0 = time.time()
    return lambda s: print(f'[{time.time() - t0:6.1f} s] {s}', flush=True)


def experiment(args, seeds, data, model, float_acc, classes, log):
    """Quantize the float model, then per chip seed (a) deployed, (b) after the epoch in the loop, (c) the control;
    prints the table and writes --json. data: (train inputs, labels, held-out inputs, labels, name, description)."""
    xs, ys, xt, yt, name, what = data
    q = Int8Model(quantize(model, xs, xs.shape[1:], args.out), classes)
    # the held-out samples as the firmware's input bytes, for `gen run --inputs` (not inputs.npz: beside the models
    # that name would set their input ranges)
    np.savez(os.path.join(args.out, 'heldout.npz'), image=q.image_bytes(xt), label=yt)
    # the calibration samples of the mapping (gen firmware --analog-samples): num_sends from the sums they give
    mapping = {}
    if args.analog_samples > 0:
        mapping = {'analogSamples': os.path.join(args.out, 'analog-samples.npz')}
        np.savez(mapping['analogSamples'], image=q.image_bytes(xs[:args.analog_samples]))
    chip = Chip(args.out)
    try:
        _, int8_acc = chip_loss_acc(chip, q, q.path, xt, yt, {'analog': 'off'})
        log(f'int8 digital: {int8_acc:.2f} %')
        evalopts = {**mapping, 'noiseStd': args.noise_std, 'noiseSeed': 7}  # one noise draw for every evaluation
        probe = slice(0, min(256, len(xs)))  # training samples on which the loss is measured before and after
        results = []
        for seed in seeds:
            before_loss, _ = chip_loss_acc(chip, q, q.path, xs[probe], ys[probe], {**evalopts, 'chipSeed': seed})
            _, before = chip_loss_acc(chip, q, q.path, xt, yt, {**evalopts, 'chipSeed': seed})
            log(f'chip {seed}: deployed as trained in float {before:.2f} %')
            trained, steps, losses = train_in_the_loop(chip, q, xs, ys, seed, args, args.out, log, mapping=mapping)
            after_loss, _ = chip_loss_acc(chip, q, trained, xs[probe], ys[probe], {**evalopts, 'chipSeed': seed})
            _, after = chip_loss_acc(chip, q, trained, xt, yt, {**evalopts, 'chipSeed': seed})
            others = [s for s in seeds if s != seed]
            cross = [chip_loss_acc(chip, q, trained, xt, yt, {**evalopts, 'chipSeed': s})[1] for s in others]
            digital, _, _ = train_in_the_loop(chip, q, xs, ys, seed, args, args.out, log, use_chip=False, mapping=mapping)
            _, control = chip_loss_acc(chip, q, digital, xt, yt, {**evalopts, 'chipSeed': seed})
            log(f'chip {seed}: after {steps} in-the-loop steps {after:.2f} % (loss on {probe.stop} training samples '
                f'{before_loss:.3f} -> {after_loss:.3f})')
            results.append({'chipSeed': seed, 'before': before, 'after': after, 'control': control, 'steps': steps, 'model': trained,
                            'lossBefore': before_loss, 'lossAfter': after_loss, 'stepLosses': losses,
                            'onOtherChips': dict(zip(others, cross))})
    finally:
        chip.close()

    print()
    sends = f'num_sends from {args.analog_samples} calibration samples' if args.analog_samples > 0 else 'num_sends from the input-free bound'
    print(f'{name}, {what}, {len(xt)} held-out samples, temporal noise {args.noise_std} LSB, {sends}')
    print(f'float {float_acc:.2f} %, int8 digital {int8_acc:.2f} %')
    print('(a) trained in float, deployed; (b) + one epoch with this chip in the loop; (c) + the same epoch without the chip')
    print('chip seed |     (a) |     (b) |     (c) | (b)-(a) | (b)-(c) | (b) on the other chips')
    for r in results:
        other = ', '.join(f'chip {s}: {a:.2f} %' for s, a in r['onOtherChips'].items())
        print(f'{r["chipSeed"]:9d} | {r["before"]:5.2f} % | {r["after"]:5.2f} % | {r["control"]:5.2f} % | '
              f'{r["after"] - r["before"]:+7.2f} | {r["after"] - r["control"]:+7.2f} | {other}')
    log(f'done (chip forward passes {chip.ms / 1000:.1f} s)')
    return {'data': name, 'model': what, 'float': float_acc, 'int8': int8_acc, 'noiseStd': args.noise_std, 'analogSamples': args.analog_samples,
            'int8Model': q.path, 'results': results}


def write_json(args, figures):
    if args.json:
        with open(args.json, 'w') as f:
            json.dump(figures, f, indent=1)


def run(main):
    """main() with ChipError as one line and exit 2."""
    try:
        sys.exit(main())
    except ChipError as e:
        print(f'{os.path.basename(sys.argv[0])}: {e}', file=sys.stderr)
        sys.exit(2)
