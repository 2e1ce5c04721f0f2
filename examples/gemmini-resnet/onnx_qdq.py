"""The QDQ form onnxruntime's static quantizer writes, built here with the onnx helper from a float ONNX graph.

What it writes (the format of onnxruntime's quantize_static with QuantFormat.QDQ, uint8 activations, int8
per-channel weights; its defaults as users run it, described from its documentation, code written here):
  - every float activation tensor T becomes QuantizeLinear(T) -> T_q (uint8, asymmetric: scale (max - min) / 255 over
    [min(lo, 0), max(hi, 0)] of the calibration data, zero point round(-min / scale)) and DequantizeLinear -> T_dq,
    which every reader of T reads;
  - Conv/Gemm/MatMul weights: int8 symmetric per output channel (scale max|w| / 127, zero point 0) through
    DequantizeLinear with axis (Conv, Gemm with transB: 0; MatMul: 1);
  - biases: int32, scale input scale x weight scale per channel, zero point 0, through DequantizeLinear;
  - a Relu that is the sole reader of a Conv/Gemm/MatMul/Add output is removed and the output takes the Relu's
    range (min 0: zero point 0, so the uint8 clamp is the Relu), as the quantizer folds it;
  - MaxPool, Flatten, Reshape, Transpose, Squeeze, Unsqueeze: the output gets the input's scale and zero point;
  - the graph output is the DequantizeLinear of the last tensor (float).
Ranges come from running the float graph on calibration samples in torch (evaluate below).
"""
import os

import numpy as np
import onnx
import torch
import torch.nn.functional as F
from onnx import helper, numpy_helper, TensorProto

PASS_SAME = {'MaxPool', 'Flatten', 'Reshape', 'Transpose', 'Squeeze', 'Unsqueeze'}
FUSES_RELU = {'Conv', 'Gemm', 'MatMul', 'Add'}


def _attrs(n):
    return {a.name: helper.get_attribute_value(a) for a in n.attribute}


def _conv(x, w, b, a):
    pads = list(a.get('pads', [0, 0, 0, 0]))
    k = len(pads) // 2
    if pads[:k] != pads[k:]:
        x = F.pad(x, [pads[3], pads[1], pads[2], pads[0]]) if k == 2 else F.pad(x, [pads[0], pads[1]])
        pads = [0] * (2 * k)
    fn = F.conv2d if w.dim() == 4 else F.conv1d
    return fn(x, w, b, stride=a.get('strides', 1), padding=pads[:k], dilation=a.get('dilations', 1), groups=a.get('group', 1))


def evaluate(model, feeds):
    """Every tensor of a float ONNX graph for one input dict (torch float32; the ops torch exports here)."""
    env = {i.name: torch.from_numpy(numpy_helper.to_array(i).copy()) for i in model.graph.initializer}
    env.update({k: torch.from_numpy(np.asarray(v)) for k, v in feeds.items()})
    for n in model.graph.node:
        a = _attrs(n)
        x = [env[i] if i else None for i in n.input]
        op = n.op_type
        if op == 'Constant':
            y = torch.from_numpy(numpy_helper.to_array(a['value']).copy())
        elif op == 'Conv':
            y = _conv(x[0], x[1], x[2] if len(x) > 2 else None, a)
        elif op == 'Relu':
            y = torch.relu(x[0])
        elif op in ('Add', 'Sub', 'Mul', 'Div', 'Pow'):
            y = {'Add': torch.add, 'Sub': torch.sub, 'Mul': torch.mul, 'Div': torch.div, 'Pow': torch.pow}[op](x[0], x[1])
        elif op == 'MaxPool':
            p = a.get('pads', [0, 0, 0, 0])
            y = F.max_pool2d(x[0], a['kernel_shape'], a.get('strides', 1), padding=p[:2])
        elif op == 'GlobalAveragePool':
            y = x[0].mean(dim=tuple(range(2, x[0].dim())), keepdim=True)
        elif op == 'Flatten':
            ax = a.get('axis', 1)
            y = x[0].reshape(int(np.prod(x[0].shape[:ax])), -1)
        elif op == 'Gemm':
            A = x[0].t() if a.get('transA', 0) else x[0]
            B = x[1].t() if a.get('transB', 0) else x[1]
            y = a.get('alpha', 1.0) * (A @ B) + (a.get('beta', 1.0) * x[2] if len(x) > 2 and x[2] is not None else 0)
        elif op == 'MatMul':
            y = torch.matmul(x[0], x[1])
        elif op == 'Reshape':
            shape = [int(s) if s != 0 else x[0].shape[i] for i, s in enumerate(x[1].tolist())]
            y = x[0].reshape(shape)
        elif op == 'Transpose':
            y = x[0].permute(*a['perm'])
        elif op == 'Softmax':
            y = torch.softmax(x[0], dim=a.get('axis', -1))
        elif op == 'LayerNormalization':
            ax = a.get('axis', -1)
            y = F.layer_norm(x[0], x[0].shape[ax:], x[1], x[2] if len(x) > 2 else None, a.get('epsilon', 1e-5))
        elif op == 'Erf':
            y = torch.erf(x[0])
        elif op == 'Gelu':
            y = F.gelu(x[0], approximate=a.get('approximate', b'none').decode() if isinstance(a.get('approximate'), bytes) else a.get('approximate', 'none'))
        elif op == 'Tanh':
            y = torch.tanh(x[0])
        elif op == 'Sqrt':
            y = torch.sqrt(x[0])
        elif op == 'ReduceMean':
            axes = a.get('axes', x[1].tolist() if len(x) > 1 else None)
            y = x[0].mean(dim=tuple(axes), keepdim=bool(a.get('keepdims', 1)))
        else:
            raise SystemExit(f'evaluate: no torch form for {op} ({n.name})')
        env[n.output[0]] = y
    return env


def act_params(lo, hi):
    """uint8 asymmetric over [min(lo, 0), max(hi, 0)]: scale, zero point (onnxruntime's compute_scale_zp)."""
    lo, hi = min(lo, 0.0), max(hi, 0.0)
    scale = np.float32((hi - lo) / 255.0) if hi > lo else np.float32(1.0)
    zp = int(np.clip(np.round(0 - lo / float(scale)), 0, 255))
    return scale, zp


def to_qdq(model, samples, calib_ops=None):
    """The QDQ model of float `model`, calibrated on `samples` (a list of input dicts)."""
    g = model.graph
    inits = {i.name: numpy_helper.to_array(i) for i in g.initializer}
    consumers = {}
    for n in g.node:
        for i in n.input:
            consumers.setdefault(i, []).append(n)
    # Ranges over the calibration samples.
    rng = {}
    for s in samples:
        env = evaluate(model, s)
        for k, v in env.items():
            if k in inits or not v.is_floating_point():
                continue
            lo, hi = float(v.min()), float(v.max())
            rng[k] = (min(lo, rng[k][0]), max(hi, rng[k][1])) if k in rng else (lo, hi)
    # Relu folded into its producer: the producer's output is renamed to the Relu's.
    drop, rename = set(), {}
    for n in g.node:
        c = consumers.get(n.output[0], [])
        if n.op_type in FUSES_RELU and len(c) == 1 and c[0].op_type == 'Relu' and n.output[0] not in [o.name for o in g.output]:
            drop.add(c[0].name)
            rename[n.output[0]] = c[0].output[0]
    nodes, new_inits = [], []
    params = {}  # float tensor -> (scale, zp)

    def const(name, arr):
        new_inits.append(numpy_helper.from_array(arr, name))
        return name

    def quantize(t, p=None):
        """Q and DQ of activation t; readers then read t + '_dq'."""
        s, z = p if p is not None else act_params(*rng[t])
        params[t] = (s, z)
        nodes.append(helper.make_node('QuantizeLinear', [t, const(t + '_scale', np.array(s, np.float32)), const(t + '_zp', np.array(z, np.uint8))], [t + '_q'], name=t + '_Q'))
        nodes.append(helper.make_node('DequantizeLinear', [t + '_q', t + '_scale', t + '_zp'], [t + '_dq'], name=t + '_DQ'))

    def weight(name, w, axis):
        m = np.abs(w).max(axis=tuple(i for i in range(w.ndim) if i != axis))
        s = np.where(m > 0, m / 127.0, 1.0).astype(np.float32)
        shape = [1] * w.ndim
        shape[axis] = -1
        q = np.clip(np.round(w / s.reshape(shape)), -127, 127).astype(np.int8)
        nodes.append(helper.make_node('DequantizeLinear', [const(name + '_q', q), const(name + '_scale', s), const(name + '_zp', np.zeros(len(s), np.int8))],
                                      [name + '_dq'], name=name + '_DQ', axis=axis))
        return s

    def bias(name, b, s):
        q = np.round(b / s).astype(np.int32)
        nodes.append(helper.make_node('DequantizeLinear', [const(name + '_q', q), const(name + '_scale', s.astype(np.float32)), const(name + '_zp', np.zeros(len(s), np.int32))],
                                      [name + '_dq'], name=name + '_DQ', axis=0))

    quantized_consts = set()

    def const_dq(name, w):
        m = float(np.abs(w).max())
        sc = np.float32(m / 127.0 if m > 0 else 1.0)
        q = np.clip(np.round(w / sc), -127, 127).astype(np.int8)
        nodes.append(helper.make_node('DequantizeLinear', [const(name + '_q', q), const(name + '_scale', np.array(sc, np.float32)), const(name + '_zp', np.array(0, np.int8))],
                                      [name + '_dq'], name=name + '_DQ'))

    for i in g.input:
        quantize(i.name)
    for n in g.node:
        if n.name in drop:
            continue
        a = _attrs(n)
        ins = list(n.input)
        out = rename.get(n.output[0], n.output[0])
        if n.op_type in ('Conv', 'Gemm') or (n.op_type == 'MatMul' and ins[1] in inits):
            axis = 1 if n.op_type == 'MatMul' or (n.op_type == 'Gemm' and not a.get('transB', 0)) else 0
            sw = weight(ins[1], inits[ins[1]], axis)
            new = [ins[0] + '_dq', ins[1] + '_dq']
            if len(ins) > 2 and ins[2]:
                bias(ins[2], inits[ins[2]], params[ins[0]][0] * sw)
                new.append(ins[2] + '_dq')
            nodes.append(helper.make_node(n.op_type, new, [out], name=n.name, **a))
        elif n.op_type == 'Constant':
            nodes.append(n)
            continue
        else:
            for i in ins:  # a float initializer read by another op (a bias Add after MatMul): int8 symmetric, per tensor
                if i in inits and inits[i].dtype == np.float32 and i not in params and i + '_dq' not in quantized_consts:
                    const_dq(i, inits[i])
                    quantized_consts.add(i + '_dq')
            new = [i + '_dq' if i in params or i + '_dq' in quantized_consts else i for i in ins]
            nodes.append(helper.make_node(n.op_type, new, [out], name=n.name, domain=n.domain, **a))
        if n.op_type in PASS_SAME:
            quantize(out, params[ins[0]])
        else:
            quantize(out)
    outputs = []
    for o in g.output:
        shape = [d.dim_value for d in o.type.tensor_type.shape.dim]
        outputs.append(helper.make_tensor_value_info(o.name + '_dq', TensorProto.FLOAT, shape))
    keep = [i for i in g.initializer if i.name + '_dq' not in quantized_consts and not any(i.name == n.input[1] or (len(n.input) > 2 and i.name == n.input[2])
            for n in g.node if n.op_type in ('Conv', 'Gemm') or (n.op_type == 'MatMul' and n.input[1] in inits))]
    graph = helper.make_graph(nodes, g.name + '_qdq', list(g.input), outputs, keep + new_inits)
    m = helper.make_model(graph, opset_imports=[helper.make_opsetid('', 13)], producer_name='firmgen-example-qdq')
    m.ir_version = 7
    onnx.checker.check_model(m)
    return m, params


def write_example(out, path, name, cal, test):
    """An example's data beside its float model at `path`: calibration and test samples of input `name` (and the
    first test sample alone, for gen run), and the model in onnxruntime's QDQ format calibrated on them."""
    np.savez(os.path.join(out, 'calibration.npz'), **{name: cal})
    np.savez(os.path.join(out, 'test.npz'), **{name: test})
    np.savez(os.path.join(out, 'sample.npz'), **{name: test[:1]})  # one input for gen run
    q, _ = to_qdq(onnx.load(path), [{name: cal[i:i + 1]} for i in range(len(cal))])
    onnx.save(q, os.path.join(out, 'model.ort-qdq.onnx'))
    print(f'wrote {path}, calibration.npz ({len(cal)}), test.npz ({len(test)}), model.ort-qdq.onnx ({len(q.graph.node)} nodes)')
