"""Llama-style decoder of the tiny Llama example (python3-torch).

Hidden 64, 16 heads of dimension 4, 8 layers, SwiGLU feed-forward 256 (down(silu(gate(x)) * up(x))), RMSNorm
(eps 1e-5) before attention and feed-forward and once more before the head, rotary position embeddings in the
rotate-half form (theta 10000), untied embedding and output head, no biases anywhere, context at most 256.

Three ways to run the same weights:
  forward(ids)                   training: any batch and length <= 256, causal, no cache;
  prompt(ids)                    [1, P] from position 0 -> logits [1, P, V] and per layer (key, value) [1, 16, P, 4];
  step(ids, position, past)      [1, 1] at `position` [1] with the cached (key, value) [1, 16, T, 4] per layer ->
                                 logits [1, 1, V] and the caches grown to T + 1 by Concat on axis 2.
The keys in the cache are stored after the rotary embedding, so a step only rotates its own new key.
prompt and step are written with static sizes (python ints) so that torch.onnx.export emits plain operators: Gather,
MatMul with constant weights, Slice/Neg/Concat for rotate-half, Softmax on the last axis, Sigmoid*Mul for SiLU.
"""
import json
import math

import torch
import torch.nn as nn
import torch.nn.functional as F

CONFIG = {'hidden': 64, 'heads': 16, 'layers': 8, 'ffn': 256, 'context': 256, 'eps': 1e-5, 'rope_theta': 10000.0}


class RMSNorm(nn.Module):
    def __init__(self, dim, eps):
        super().__init__()
        self.eps = eps
        self.weight = nn.Parameter(torch.ones(dim))

    def forward(self, x):
        return x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + self.eps) * self.weight


def rotate_half(x):
    half = x.shape[-1] // 2
    return torch.cat((-x[..., half:], x[..., :half]), dim=-1)


class Attention(nn.Module):
    def __init__(self, hidden, heads):
        super().__init__()
        self.heads = heads
        self.head_dim = hidden // heads
        self.q_proj = nn.Linear(hidden, hidden, bias=False)
        self.k_proj = nn.Linear(hidden, hidden, bias=False)
        self.v_proj = nn.Linear(hidden, hidden, bias=False)
        self.o_proj = nn.Linear(hidden, hidden, bias=False)

    def split(self, x, b, t):
        return x.view(b, t, self.heads, self.head_dim).transpose(1, 2)

    def forward(self, x, cos, sin, mask, past=None):
        """x [B, T, C]; cos/sin broadcastable to [B, H, T, D]; mask added to the scores (or None); past (k, v)."""
        b, t, c = x.shape
        q = self.split(self.q_proj(x), b, t)
        k = self.split(self.k_proj(x), b, t)
        v = self.split(self.v_proj(x), b, t)
        q = q * cos + rotate_half(q) * sin
        k = k * cos + rotate_half(k) * sin
        if past is not None:
            k = torch.cat((past[0], k), dim=2)
            v = torch.cat((past[1], v), dim=2)
        scores = torch.matmul(q, k.transpose(2, 3)) * (1.0 / math.sqrt(self.head_dim))
        if mask is not None:
            scores = scores + mask
        probs = torch.softmax(scores, dim=-1)
        out = torch.matmul(probs, v).transpose(1, 2).reshape(b, t, c)
        return self.o_proj(out), (k, v)


class FeedForward(nn.Module):
    def __init__(self, hidden, ffn):
        super().__init__()
        self.gate_proj = nn.Linear(hidden, ffn, bias=False)
        self.up_proj = nn.Linear(hidden, ffn, bias=False)
        self.down_proj = nn.Linear(ffn, hidden, bias=False)

    def forward(self, x):
        return self.down_proj(F.silu(self.gate_proj(x)) * self.up_proj(x))


class Block(nn.Module):
    def __init__(self, cfg):
        super().__init__()
        self.input_norm = RMSNorm(cfg['hidden'], cfg['eps'])
        self.attn = Attention(cfg['hidden'], cfg['heads'])
        self.post_attention_norm = RMSNorm(cfg['hidden'], cfg['eps'])
        self.mlp = FeedForward(cfg['hidden'], cfg['ffn'])

    def forward(self, x, cos, sin, mask, past=None):
        a, kv = self.attn(self.input_norm(x), cos, sin, mask, past)
        x = x + a
        x = x + self.mlp(self.post_attention_norm(x))
        return x, kv


class TinyLlama(nn.Module):
    def __init__(self, vocab, cfg=CONFIG):
        super().__init__()
        self.cfg = dict(cfg)
        self.vocab = vocab
        self.embed = nn.Embedding(vocab, cfg['hidden'])
        self.layers = nn.ModuleList(Block(cfg) for _ in range(cfg['layers']))
        self.norm = RMSNorm(cfg['hidden'], cfg['eps'])
        self.lm_head = nn.Linear(cfg['hidden'], vocab, bias=False)
        d = cfg['hidden'] // cfg['heads']
        inv_freq = 1.0 / (cfg['rope_theta'] ** (torch.arange(0, d, 2, dtype=torch.float64) / d))
        angles = torch.outer(torch.arange(cfg['context'], dtype=torch.float64), inv_freq)
        angles = torch.cat((angles, angles), dim=-1)
        # Tables [context, head_dim], computed in float64 then rounded once; not trained, not saved.
        self.register_buffer('cos_table', angles.cos().float(), persistent=False)
        self.register_buffer('sin_table', angles.sin().float(), persistent=False)
        # Causal mask added to the scores: 0 on and below the diagonal, the lowest float32 above it (finite, the
        # value common Llama exporters use, so the ONNX constant holds no infinity).
        mask = torch.full((cfg['context'], cfg['context']), torch.finfo(torch.float32).min).triu(1)
        self.register_buffer('causal_mask', mask, persistent=False)
        self.apply(self._init)

    @staticmethod
    def _init(m):
        if isinstance(m, (nn.Linear, nn.Embedding)):
            nn.init.normal_(m.weight, std=0.02)

    def _run(self, x, cos, sin, mask, past):
        presents = []
        for i, layer in enumerate(self.layers):
            x, kv = layer(x, cos, sin, mask, None if past is None else past[i])
            presents.append(kv)
        return self.lm_head(self.norm(x)), presents

    def forward(self, ids):
        t = ids.shape[1]
        if t > self.cfg['context']:
            raise ValueError(f'sequence of {t} tokens is longer than the context {self.cfg["context"]}')
        logits, _ = self._run(self.embed(ids), self.cos_table[:t], self.sin_table[:t], self.causal_mask[:t, :t], None)
        return logits

    def prompt(self, ids):
        """ids [1, P] at positions 0..P-1 -> logits [1, P, V], [(key, value) [1, H, P, D] per layer]."""
        p = ids.shape[1]
        return self._run(self.embed(ids), self.cos_table[:p], self.sin_table[:p], self.causal_mask[:p, :p], None)

    def step(self, ids, position, past):
        """ids [1, 1] at position [1] (int64) after the cache past [(key, value) [1, H, T, D]] with T == position."""
        cos = self.cos_table[position]          # Gather -> [1, D], broadcasts over [1, H, 1, D]
        sin = self.sin_table[position]
        return self._run(self.embed(ids), cos, sin, None, past)


def save(model, path):
    torch.save({'vocab': model.vocab, 'config': model.cfg, 'state': model.state_dict()}, path)


def load(path):
    ck = torch.load(path, map_location='cpu')
    model = TinyLlama(ck['vocab'], ck['config'])
    model.load_state_dict(ck['state'])
    model.eval()
    return model


def config_json(model):
    return json.dumps(model.cfg)
