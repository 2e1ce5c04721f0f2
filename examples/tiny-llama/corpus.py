#!/usr/bin/env python3
"""Builds the training and held-out text of the tiny Llama example from the Debian package `fortunes`.

The package installs its cookie files in /usr/share/games/fortunes: plain text, one fortune after another, each
ended by a line holding only '%'. This script reads every cookie file (not the .dat indexes or the .u8 copies),
splits it into fortunes, cleans each one (overstrike sequences "x<BS>y" keep y, tabs become spaces, anything outside
printable ASCII and newline is dropped, trailing blanks removed), shuffles the fortunes with a fixed seed and sends
one in twenty to the held-out set. Output: data/train.txt and data/heldout.txt beside this script, each fortune
followed by a line '%' (the package's own separator), so the model learns where a fortune ends.

    python3 corpus.py [--source /usr/share/games/fortunes] [--out data]
"""
import argparse
import os
import random
import re
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
HELDOUT_EVERY = 20
SEED = 16


def cookie_files(source):
    names = sorted(n for n in os.listdir(source) if '.' not in n)
    return [os.path.join(source, n) for n in names if os.path.isfile(os.path.join(source, n))]


def clean(text):
    while '\b' in text:
        nxt = re.sub(r'[^\b]\b', '', text)
        if nxt == text:
            nxt = text.replace('\b', '')
        text = nxt
    text = text.replace('\t', '    ').replace('\r', '')
    text = ''.join(c for c in text if c == '\n' or 32 <= ord(c) < 127)
    lines = [line.rstrip() for line in text.split('\n')]
    return '\n'.join(lines).strip('\n')


def fortunes(path):
    with open(path, 'rb') as f:
        raw = f.read().decode('latin-1')
    out = []
    for chunk in re.split(r'^%\s*$', raw, flags=re.M):
        body = clean(chunk)
        if body:
            out.append(body)
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    ap.add_argument('--source', default='/usr/share/games/fortunes')
    ap.add_argument('--out', default=os.path.join(HERE, 'data'))
    args = ap.parse_args()
    if not os.path.isdir(args.source):
        sys.exit(f'corpus.py: {args.source} is missing; install it with: apt-get install -y fortunes')
    all_fortunes = []
    files = cookie_files(args.source)
    for path in files:
        all_fortunes.extend(fortunes(path))
    random.Random(SEED).shuffle(all_fortunes)
    held = [f for i, f in enumerate(all_fortunes) if i % HELDOUT_EVERY == 0]
    train = [f for i, f in enumerate(all_fortunes) if i % HELDOUT_EVERY != 0]
    os.makedirs(args.out, exist_ok=True)
    for name, part in (('train.txt', train), ('heldout.txt', held)):
        with open(os.path.join(args.out, name), 'w', encoding='ascii') as f:
            f.write(''.join(p + '\n%\n' for p in part))
    size = lambda part: sum(len(p) + 3 for p in part)
    print(f'{len(files)} cookie files, {len(all_fortunes)} fortunes: train {len(train)} ({size(train)} chars), '
          f'held-out {len(held)} ({size(held)} chars) -> {args.out}')


if __name__ == '__main__':
    main()
