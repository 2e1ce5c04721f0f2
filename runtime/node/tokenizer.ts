import { readFileSync } from 'node:fs';
import { GenError } from '../../generator/errors.js';

/*
 * The tokenizer a language model ships with, for `gen run --prompt`: tokenizer.json as
 * {"kind": "char", "vocab": ["<unk>", "a", ...], "unk": 0}: one token per character (a character outside the
 * vocabulary is `unk`, which decodes to U+FFFD); the unk entry's own text ("<unk>") is a label, never matched.
 */

export interface Tokenizer {
  encode(text: string): number[];
  decode(tokens: readonly number[]): string;
  size: number;
}

export function readTokenizer(file: string): Tokenizer {
  let json: unknown;
  try {
    json = JSON.parse(readFileSync(file, 'utf8'));
  } catch (e) {
    throw new GenError('input', `cannot read the tokenizer: ${(e as Error).message}`, { file });
  }
  const o = json as { kind?: unknown; vocab?: unknown; unk?: unknown };
  if (o.kind !== 'char') throw new GenError('input', 'tokenizer kind must be "char"', { file });
  if (!Array.isArray(o.vocab) || o.vocab.length === 0 || !o.vocab.every((v) => typeof v === 'string' && v.length > 0)) {
    throw new GenError('input', 'tokenizer vocab must be a non-empty list of non-empty strings', { file });
  }
  const vocab = o.vocab as string[];
  const unk = o.unk;
  if (typeof unk !== 'number' || !Number.isInteger(unk) || unk < 0 || unk >= vocab.length) {
    throw new GenError('input', `tokenizer unk must index the vocab (0..${vocab.length - 1})`, { file });
  }
  const ids = new Map<string, number>();
  vocab.forEach((v, i) => {
    if (i !== unk && [...v].length === 1 && !ids.has(v)) ids.set(v, i);
  });
  return {
    size: vocab.length,
    encode: (text) => [...text].map((ch) => ids.get(ch) ?? unk),
    decode: (tokens) => tokens.map((t) => (t === unk || vocab[t] === undefined ? '\uFFFD' : vocab[t])).join(''),
  };
}
