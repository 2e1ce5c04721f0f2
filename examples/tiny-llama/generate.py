#!/usr/bin/env python3
"""Float generation reference of the tiny Llama example.

Greedy generation (argmax, ties to the lowest id) of N tokens from a prompt three ways and asserts they agree token
for token:
  torch      the model of model.pt run on the whole sequence each token (no cache);
  torch kv   model.prompt once, then model.step with the key/value caches;
  onnx       prompt.onnx on the first P prompt characters, then step.onnx (onnx_numpy.py evaluator) for the rest of
             the prompt (teacher-forced) and every generated token, the caches fed back from present.* to past.*.
Then prints the float model's loss and perplexity per character on the held-out text (non-overlapping windows of
256 characters, as train.py measures it).

    python3 generate.py [--prompt "The best way to"] [--tokens 64] [--no-ppl]
The prompt needs at least P characters (the static length prompt.onnx was exported with); prompt + tokens <= 256.
"""
import argparse
import math
import os

import numpy as np
import onnx
import torch

from model import load
from onnx_numpy import NumpyEvaluator
from tokenizer import CharTokenizer
from train import evaluate, read_ids, windows

HERE = os.path.dirname(os.path.abspath(__file__))


def greedy(logits):
    return int(np.argmax(logits))


@torch.no_grad()
def torch_uncached(model, ids, n):
    seq = list(ids)
    for _ in range(n):
        seq.append(greedy(model(torch.tensor([seq]))[0, -1].numpy()))
    return seq[len(ids):]


@torch.no_grad()
def torch_cached(model, ids, n):
    logits, past = model.prompt(torch.tensor([ids]))
    out = []
    token = greedy(logits[0, -1].numpy())
    for k in range(n):
        out.append(token)
        if k == n - 1:
            break
        logits, past = model.step(torch.tensor([[token]]), torch.tensor([len(ids) + k]), past)
        token = greedy(logits[0, -1].numpy())
    return out


def onnx_cached(prompt_graph, step_graph, ids, n):
    p = prompt_graph.graph.input[0].type.tensor_type.shape.dim[1].dim_value
    if len(ids) < p:
        raise SystemExit(f'generate.py: the prompt has {len(ids)} characters; prompt.onnx takes {p}')
    names = step_graph.input_names[2:]

    def step(token, pos, past):
        feeds = {'input_ids': np.array([[token]], dtype=np.int64), 'position': np.array([pos], dtype=np.int64)}
        feeds.update(zip(names, past))
        got = step_graph.run(feeds)
        return got[0], got[1:]

    got = prompt_graph.run({'input_ids': np.array([ids[:p]], dtype=np.int64)})
    logits, past = got[0], got[1:]
    for pos in range(p, len(ids)):
        logits, past = step(ids[pos], pos, past)
    out = []
    for k in range(n):
        out.append(greedy(logits[0, -1]))
        if k < n - 1:
            logits, past = step(out[-1], len(ids) + k, past)
    return out


def main():
    ap = argparse.ArgumentParser(description='greedy generation with the torch model and the ONNX graphs')
    ap.add_argument('--prompt', default='Q:    What do you call a ')
    ap.add_argument('--tokens', type=int, default=64)
    ap.add_argument('--dir', default=HERE, help='where model.pt, prompt.onnx and step.onnx are')
    ap.add_argument('--no-ppl', action='store_true', help='skip the held-out perplexity')
    args = ap.parse_args()
    torch.set_num_threads(2)
    tok = CharTokenizer.load(os.path.join(HERE, 'tokenizer.json'))
    model = load(os.path.join(args.dir, 'model.pt'))
    ids = tok.encode(args.prompt)
    if len(ids) + args.tokens > model.cfg['context']:
        raise SystemExit(f'generate.py: prompt + tokens = {len(ids) + args.tokens} > context {model.cfg["context"]}')
    a = torch_uncached(model, ids, args.tokens)
    b = torch_cached(model, ids, args.tokens)
    prompt_graph = NumpyEvaluator(onnx.load(os.path.join(args.dir, 'prompt.onnx')))
    c = onnx_cached(prompt_graph, NumpyEvaluator(onnx.load(os.path.join(args.dir, 'step.onnx'))), ids, args.tokens)
    print(f'prompt: {args.prompt!r}')
    print(f'torch (no cache): {tok.decode(a)!r}')
    print(f'torch (kv cache): {tok.decode(b)!r}')
    print(f'onnx  (kv cache): {tok.decode(c)!r}')
    print('----\n' + args.prompt + tok.decode(c) + '\n----')
    assert a == b, 'torch with and without the cache generate different tokens'
    assert a == c, 'the ONNX graphs generate different tokens from the torch model'
    print(f'{args.tokens} tokens: identical in all three')
    if not args.no_ppl:
        held = evaluate(model, windows(read_ids(tok, 'heldout.txt'), 256))
        print(f'held-out loss {held:.4f} nats/char, perplexity per character {math.exp(held):.3f}')


if __name__ == '__main__':
    main()
