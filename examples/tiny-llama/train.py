#!/usr/bin/env python3
"""Trains the tiny Llama of model.py on data/train.txt (corpus.py) with the tokenizer.json of tokenizer.py.

Random windows of `--seq` + 1 characters (the last `--long-steps` steps: `--long-batch` windows of 257, so every
position of the 256 context is trained; shorter windows first because attention over 256 costs about three times
as much per character here), AdamW, linear warm-up then cosine decay to a tenth over all steps, fixed seeds and one
thread (torch and OpenBLAS: with two torch threads on this shared two-core machine a step took twice as long), so a
run is repeatable on the same machine, torch build and BLAS. Prints the training loss as it
goes and at the end the train and held-out loss (nats per character) and perplexity per character, measured on
non-overlapping 256-character windows (every held-out window; as many training windows). Writes model.pt and
train-log.json beside this script.

    python3 train.py [--steps 1450] [--batch 32] [--seq 64] [--long-steps 150] [--long-batch 8] [--lr 4e-3]
"""
import argparse
import json
import math
import os
import time

os.environ.setdefault('OPENBLAS_NUM_THREADS', '1')  # before numpy/torch load the BLAS

import numpy as np
import torch
import torch.nn.functional as F

from model import TinyLlama, save
from tokenizer import CharTokenizer

HERE = os.path.dirname(os.path.abspath(__file__))
SEED = 16


def read_ids(tok, name):
    with open(os.path.join(HERE, 'data', name), encoding='ascii') as f:
        return np.array(tok.encode(f.read()), dtype=np.int64)


def windows(ids, length, count=None):
    """Non-overlapping windows of length + 1 (input and shifted target), the first `count` of them."""
    n = (len(ids) - 1) // length
    if count is not None:
        n = min(n, count)
    return torch.from_numpy(np.stack([ids[i * length:i * length + length + 1] for i in range(n)]))


@torch.no_grad()
def evaluate(model, w, batch=32):
    """Mean cross-entropy (nats) per predicted character over the windows w [N, L + 1]."""
    model.eval()
    total, count = 0.0, 0
    for i in range(0, len(w), batch):
        x = w[i:i + batch]
        logits = model(x[:, :-1])
        total += F.cross_entropy(logits.reshape(-1, logits.shape[-1]), x[:, 1:].reshape(-1), reduction='sum').item()
        count += x[:, 1:].numel()
    model.train()
    return total / count


def main():
    ap = argparse.ArgumentParser(description='trains the tiny Llama example')
    ap.add_argument('--steps', type=int, default=1450, help='all steps, the long ones included')
    ap.add_argument('--batch', type=int, default=32)
    ap.add_argument('--seq', type=int, default=64)
    ap.add_argument('--long-steps', type=int, default=150, help='last steps with windows of the whole context')
    ap.add_argument('--long-batch', type=int, default=8)
    ap.add_argument('--lr', type=float, default=4e-3)
    ap.add_argument('--warmup', type=int, default=100)
    ap.add_argument('--threads', type=int, default=1)
    ap.add_argument('--out', default=os.path.join(HERE, 'model.pt'))
    args = ap.parse_args()

    torch.manual_seed(SEED)
    torch.set_num_threads(args.threads)
    rng = np.random.default_rng(SEED)
    tok = CharTokenizer.load(os.path.join(HERE, 'tokenizer.json'))
    train_ids = read_ids(tok, 'train.txt')
    held_ids = read_ids(tok, 'heldout.txt')
    model = TinyLlama(len(tok))
    print(f'{sum(p.numel() for p in model.parameters())} parameters; {len(train_ids)} training characters; '
          f'{args.steps - args.long_steps} steps of {args.batch} x {args.seq}, then {args.long_steps} of '
          f'{args.long_batch} x {model.cfg["context"]}')

    decay = [p for n, p in model.named_parameters() if p.dim() == 2]
    other = [p for n, p in model.named_parameters() if p.dim() != 2]
    opt = torch.optim.AdamW([{'params': decay, 'weight_decay': 0.1}, {'params': other, 'weight_decay': 0.0}],
                            lr=args.lr, betas=(0.9, 0.95))

    def lr_at(step):
        if step < args.warmup:
            return args.lr * (step + 1) / args.warmup
        frac = (step - args.warmup) / max(1, args.steps - args.warmup)
        return args.lr * (0.1 + 0.9 * 0.5 * (1 + math.cos(math.pi * frac)))

    start = time.time()
    log = []
    running = None
    for step in range(args.steps):
        long = step >= args.steps - args.long_steps
        seq, batch = (model.cfg['context'], args.long_batch) if long else (args.seq, args.batch)
        starts = rng.integers(0, len(train_ids) - seq - 1, size=batch)
        x = torch.from_numpy(np.stack([train_ids[s:s + seq + 1] for s in starts]))
        for g in opt.param_groups:
            g['lr'] = lr_at(step)
        logits = model(x[:, :-1])
        loss = F.cross_entropy(logits.reshape(-1, logits.shape[-1]), x[:, 1:].reshape(-1))
        opt.zero_grad(set_to_none=True)
        loss.backward()
        torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
        opt.step()
        running = loss.item() if running is None else 0.95 * running + 0.05 * loss.item()
        if step % 50 == 0 or step == args.steps - 1:
            print(f'step {step:5d}  {batch} x {seq}  loss {running:.4f}  lr {lr_at(step):.2e}  {time.time() - start:6.1f} s', flush=True)
            log.append({'step': step, 'loss': round(running, 4), 'seconds': round(time.time() - start, 1)})
    train_seconds = time.time() - start

    held_w = windows(held_ids, 256)
    train_w = windows(train_ids, 256, len(held_w))
    held = evaluate(model, held_w)
    train = evaluate(model, train_w)
    print(f'training {train_seconds:.0f} s on {args.threads} threads')
    print(f'train    loss {train:.4f} nats/char  perplexity/char {math.exp(train):.3f}  ({len(train_w)} windows)')
    print(f'held-out loss {held:.4f} nats/char  perplexity/char {math.exp(held):.3f}  ({len(held_w)} windows)')
    save(model, args.out)
    with open(os.path.join(HERE, 'train-log.json'), 'w') as f:
        json.dump({'args': vars(args) | {'out': os.path.basename(args.out)}, 'seconds': round(train_seconds, 1),
                   'torch': torch.__version__, 'train_loss': train, 'heldout_loss': held,
                   'train_ppl': math.exp(train), 'heldout_ppl': math.exp(held), 'log': log}, f, indent=1)
        f.write('\n')


if __name__ == '__main__':
    main()
