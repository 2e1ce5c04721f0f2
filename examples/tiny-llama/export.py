#!/usr/bin/env python3
"""Exports the trained tiny Llama (model.pt) to prompt.onnx and step.onnx (opset 17, float32) and writes the
calibration data of both graphs.

prompt.onnx  in  input_ids int64 [1, P] (P static, --prompt-len, 16 by default)
             out logits float [1, P, V], present.{i}.key / present.{i}.value float [1, 16, P, 4] for i = 0..7
step.onnx    in  input_ids int64 [1, 1], position int64 [1] (the position of this token, = past_len),
                 past.{i}.key / past.{i}.value float [1, 16, past_len, 4] (past_len a dynamic axis)
             out logits float [1, 1, V], present.{i}.key / present.{i}.value float [1, 16, past_len + 1, 4]
                 (Concat(past, new) on axis 2; the axis is named present_len)
Keys in the caches are stored after the rotary embedding.

Checks: onnx.checker (full) and strict shape inference on both graphs; both graphs evaluated with onnx_numpy.py on a
held-out prompt and 5 cached steps against the torch model (max abs difference printed and asserted < 1e-4). The
prompt, the 5 tokens and torch's logits go to reference.json (golden data of ort-check.mjs and
test/examples/tiny-llama.test.ts, which run the graphs in onnxruntime-node).

calibration.npz       input_ids int64 [N, P]: N held-out windows of P characters (gen quantize --calibration)
calibration-step.npz  the step graph's inputs in graph order for M samples (M = 16, every fourth window; deflated):
                      input_ids [M, 1], position [M], past.{i}.key / .value [M, 16, P, 4], the caches after the
                      prompt pass of the window (so past_len = P, position = P, input_ids the window's next character)

    python3 export.py [--prompt-len 16] [--samples 64]
"""
import argparse
import json
import os

import numpy as np
import onnx
import torch

from model import load
from onnx_numpy import NumpyEvaluator
from tokenizer import CharTokenizer

HERE = os.path.dirname(os.path.abspath(__file__))
TOLERANCE = 1e-4
OPSET = 17


class PromptGraph(torch.nn.Module):
    def __init__(self, model):
        super().__init__()
        self.model = model

    def forward(self, input_ids):
        logits, presents = self.model.prompt(input_ids)
        return (logits, *[t for kv in presents for t in kv])


class StepGraph(torch.nn.Module):
    def __init__(self, model):
        super().__init__()
        self.model = model

    def forward(self, input_ids, position, *past):
        pairs = [(past[2 * i], past[2 * i + 1]) for i in range(len(past) // 2)]
        logits, presents = self.model.step(input_ids, position, pairs)
        return (logits, *[t for kv in presents for t in kv])


def kv_names(prefix, layers):
    return [f'{prefix}.{i}.{w}' for i in range(layers) for w in ('key', 'value')]


def export(model, prompt_len, out_dir):
    layers = model.cfg['layers']
    heads = model.cfg['heads']
    head_dim = model.cfg['hidden'] // heads
    prompt_path = os.path.join(out_dir, 'prompt.onnx')
    step_path = os.path.join(out_dir, 'step.onnx')
    ids = torch.zeros((1, prompt_len), dtype=torch.int64)
    with torch.no_grad():
        torch.onnx.export(PromptGraph(model), (ids,), prompt_path, opset_version=OPSET, do_constant_folding=True,
                          input_names=['input_ids'], output_names=['logits', *kv_names('present', layers)])
        past = tuple(torch.zeros((1, heads, prompt_len, head_dim)) for _ in range(2 * layers))
        step_args = (torch.zeros((1, 1), dtype=torch.int64), torch.tensor([prompt_len], dtype=torch.int64), *past)
        dynamic = {n: {2: 'past_len'} for n in kv_names('past', layers)}
        dynamic.update({n: {2: 'present_len'} for n in kv_names('present', layers)})
        torch.onnx.export(StepGraph(model), step_args, step_path, opset_version=OPSET, do_constant_folding=True,
                          input_names=['input_ids', 'position', *kv_names('past', layers)],
                          output_names=['logits', *kv_names('present', layers)], dynamic_axes=dynamic)
    for path in (prompt_path, step_path):
        onnx.checker.check_model(path, full_check=True)
        onnx.shape_inference.infer_shapes(onnx.load(path), check_type=True, strict_mode=True)
    return prompt_path, step_path


def op_counts(path):
    counts = {}
    for node in onnx.load(path).graph.node:
        counts[node.op_type] = counts.get(node.op_type, 0) + 1
    return ' '.join(f'{k}:{v}' for k, v in sorted(counts.items()))


def compare(model, prompt_path, step_path, ids, steps=5):
    """Prompt pass then `steps` greedy steps, torch against both graphs in onnx_numpy; returns the max abs diff."""
    prompt = NumpyEvaluator(onnx.load(prompt_path))
    step = NumpyEvaluator(onnx.load(step_path))
    worst = 0.0
    with torch.no_grad():
        logits, presents = model.prompt(torch.from_numpy(ids))
        got = prompt.run({'input_ids': ids})
        want = [logits.numpy()] + [t.numpy() for kv in presents for t in kv]
        worst = max(worst, max(float(np.abs(g - w).max()) for g, w in zip(got, want)))
        past_t, past_o = presents, got[1:]
        token = int(logits[0, -1].argmax())
        pos = ids.shape[1]
        tokens, step_logits = [], []
        for _ in range(steps):
            tokens.append(token)
            x = np.array([[token]], dtype=np.int64)
            p = np.array([pos], dtype=np.int64)
            logits, past_t = model.step(torch.from_numpy(x), torch.from_numpy(p), past_t)
            feeds = {'input_ids': x, 'position': p}
            feeds.update(zip(kv_names('past', len(past_t)), past_o))
            got = step.run(feeds)
            want = [logits.numpy()] + [t.numpy() for kv in past_t for t in kv]
            if got[1].shape != want[1].shape:
                raise AssertionError(f'step cache shape {got[1].shape}, torch {want[1].shape}')
            worst = max(worst, max(float(np.abs(g - w).max()) for g, w in zip(got, want)))
            past_o = got[1:]
            step_logits.append(logits[0, -1])
            token = int(logits[0, -1].argmax())
            pos += 1
        # The cached steps must also agree with the uncached model run on the whole sequence.
        full = model(torch.from_numpy(np.concatenate([ids, np.array([tokens], dtype=np.int64)], axis=1)))
        uncached = float((full[0, ids.shape[1]:] - torch.stack(step_logits)).abs().max())
    reference = {'prompt_ids': ids[0].tolist(), 'step_ids': tokens,
                 'prompt_logits': full[0, :ids.shape[1]].flatten().tolist(),
                 'step_logits': torch.stack(step_logits).flatten().tolist()}
    return worst, uncached, reference


def heldout_windows(tok, length, count):
    with open(os.path.join(HERE, 'data', 'heldout.txt'), encoding='ascii') as f:
        ids = np.array(tok.encode(f.read()), dtype=np.int64)
    stride = (len(ids) - length - 1) // count
    return np.stack([ids[i * stride:i * stride + length + 1] for i in range(count)])


def main():
    ap = argparse.ArgumentParser(description='exports the tiny Llama to prompt.onnx and step.onnx')
    ap.add_argument('--checkpoint', default=os.path.join(HERE, 'model.pt'))
    ap.add_argument('--prompt-len', type=int, default=16)
    ap.add_argument('--samples', type=int, default=64, help='calibration windows of prompt.onnx')
    ap.add_argument('--step-samples', type=int, default=16, help='calibration samples of step.onnx (1 in 4 windows)')
    ap.add_argument('--out', default=HERE)
    args = ap.parse_args()
    torch.set_num_threads(1)
    model = load(args.checkpoint)
    if not 1 <= args.prompt_len < model.cfg['context']:
        raise SystemExit(f'export.py: --prompt-len must be in 1..{model.cfg["context"] - 1}')
    tok = CharTokenizer.load(os.path.join(HERE, 'tokenizer.json'))
    if len(tok) != model.vocab:
        raise SystemExit(f'export.py: tokenizer.json has {len(tok)} symbols, the checkpoint {model.vocab}')
    prompt_path, step_path = export(model, args.prompt_len, args.out)
    for path in (prompt_path, step_path):
        print(f'{os.path.basename(path)}: {os.path.getsize(path)} bytes; {op_counts(path)}')

    windows = heldout_windows(tok, args.prompt_len, args.samples)
    worst, uncached, reference = compare(model, prompt_path, step_path, windows[:1, :args.prompt_len])
    print(f'torch vs ONNX (numpy evaluator), prompt + 5 steps: max abs difference {worst:.3e} '
          f'(torch cached vs uncached logits: {uncached:.3e})')
    assert worst < TOLERANCE, f'ONNX graphs differ from torch by {worst}'
    assert uncached < TOLERANCE, f'torch cached steps differ from the uncached model by {uncached}'

    with open(os.path.join(args.out, 'reference.json'), 'w') as f:
        json.dump(reference | {'vocab': model.vocab, 'layers': model.cfg['layers'], 'tolerance': TOLERANCE}, f)
        f.write('\n')

    prompt_ids = windows[:, :args.prompt_len]
    np.savez(os.path.join(args.out, 'calibration.npz'), input_ids=prompt_ids)
    layers = model.cfg['layers']
    caches = [[] for _ in range(2 * layers)]
    chosen = windows[::max(1, len(windows) // args.step_samples)][:args.step_samples]
    with torch.no_grad():
        for row in chosen[:, :args.prompt_len]:
            _, presents = model.prompt(torch.from_numpy(row[None]))
            for k, t in enumerate(x for kv in presents for x in kv):
                caches[k].append(t[0].numpy())
    step = {'input_ids': chosen[:, args.prompt_len:args.prompt_len + 1],
            'position': np.full((len(chosen),), args.prompt_len, dtype=np.int64)}
    step.update(zip(kv_names('past', layers), (np.stack(c) for c in caches)))
    np.savez_compressed(os.path.join(args.out, 'calibration-step.npz'), **step)
    print(f'calibration.npz: input_ids {prompt_ids.shape}; calibration-step.npz: {len(step)} arrays, '
          f'past [{len(chosen)}, {model.cfg["heads"]}, {args.prompt_len}, {model.cfg["hidden"] // model.cfg["heads"]}]')


if __name__ == '__main__':
    main()
