#!/usr/bin/env python3
"""Character-level tokenizer of the tiny Llama example.

tokenizer.json: {"kind": "char", "vocab": [...], "unk": N}. vocab[i] is the text of token i: one character for
every token except vocab[unk], which is "<unk>" and stands for any character not in the vocabulary (decoding it
gives U+FFFD). Encoding maps each character of the text to its index; there are no merges, no normalisation and no
special begin/end tokens (a fortune ends with the line "%", which is an ordinary character of the vocabulary).

    python3 tokenizer.py [--train data/train.txt] [--out tokenizer.json]     # builds tokenizer.json
"""
import argparse
import collections
import json
import os

HERE = os.path.dirname(os.path.abspath(__file__))
MAX_VOCAB = 128
UNK_TEXT = '<unk>'


class CharTokenizer:
    def __init__(self, vocab, unk):
        self.vocab = list(vocab)
        self.unk = unk
        self.index = {c: i for i, c in enumerate(self.vocab) if i != unk}

    def encode(self, text):
        return [self.index.get(c, self.unk) for c in text]

    def decode(self, ids):
        return ''.join('\ufffd' if i == self.unk else self.vocab[i] for i in ids)

    def __len__(self):
        return len(self.vocab)

    def save(self, path):
        with open(path, 'w', encoding='utf-8') as f:
            json.dump({'kind': 'char', 'vocab': self.vocab, 'unk': self.unk}, f, ensure_ascii=True)
            f.write('\n')

    @staticmethod
    def load(path):
        with open(path, encoding='utf-8') as f:
            d = json.load(f)
        if d.get('kind') != 'char':
            raise ValueError(f'{path}: kind {d.get("kind")!r}, expected "char"')
        return CharTokenizer(d['vocab'], d['unk'])

    @staticmethod
    def train(text, max_vocab=MAX_VOCAB):
        """The unknown symbol at index 0, then the max_vocab - 1 most frequent characters in code point order."""
        counts = collections.Counter(text)
        keep = sorted(counts, key=lambda c: (-counts[c], c))[:max_vocab - 1]
        return CharTokenizer([UNK_TEXT] + sorted(keep), 0)


def main():
    ap = argparse.ArgumentParser(description='builds tokenizer.json from the training text')
    ap.add_argument('--train', default=os.path.join(HERE, 'data', 'train.txt'))
    ap.add_argument('--out', default=os.path.join(HERE, 'tokenizer.json'))
    args = ap.parse_args()
    with open(args.train, encoding='ascii') as f:
        text = f.read()
    tok = CharTokenizer.train(text)
    tok.save(args.out)
    unk = sum(1 for i in tok.encode(text) if i == tok.unk)
    print(f'vocabulary {len(tok)} symbols (unk = {tok.unk}); {unk} of {len(text)} training characters are unknown')


if __name__ == '__main__':
    main()
