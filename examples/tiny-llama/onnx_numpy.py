"""A small numpy evaluator of ONNX graphs, for the operators the tiny Llama export emits.

Debian bookworm ships python3-onnx 1.12, which has no onnx.reference.ReferenceEvaluator (it arrived in 1.13), so the
export and the generation reference evaluate the graphs with this instead: each node is computed in numpy in graph
order, straight from the ONNX operator definitions (opset 17), in float32 like the graph. An operator outside the
list raises, so a change in what torch emits cannot pass unnoticed.
"""
import numpy as np
from onnx import numpy_helper


def _attrs(node):
    from onnx import helper
    return {a.name: helper.get_attribute_value(a) for a in node.attribute}


def _softmax(x, axis):
    e = np.exp(x - x.max(axis=axis, keepdims=True))
    return e / e.sum(axis=axis, keepdims=True)


def _slice(x, starts, ends, axes=None, steps=None):
    axes = range(len(starts)) if axes is None else axes
    steps = [1] * len(starts) if steps is None else steps
    index = [slice(None)] * x.ndim
    for s, e, a, st in zip(starts, ends, axes, steps):
        index[int(a)] = slice(int(s), int(e), int(st))
    return x[tuple(index)]


def _reshape(x, shape):
    shape = [x.shape[i] if d == 0 else int(d) for i, d in enumerate(shape)]
    return x.reshape(shape)


def _reduce_mean(a, x, axes_input=None):
    axes = a.get('axes') if axes_input is None else axes_input
    keep = bool(a.get('keepdims', 1))
    return np.mean(x, axis=None if axes is None else tuple(int(v) for v in axes), keepdims=keep).astype(x.dtype)


OPS = {
    'Identity': lambda a, x: x,
    'Add': lambda a, x, y: x + y,
    'Sub': lambda a, x, y: x - y,
    'Mul': lambda a, x, y: x * y,
    'Div': lambda a, x, y: x / y,
    'Pow': lambda a, x, y: np.power(x, y).astype(x.dtype),
    'Sqrt': lambda a, x: np.sqrt(x),
    'Neg': lambda a, x: -x,
    'Sigmoid': lambda a, x: (1 / (1 + np.exp(-x))).astype(x.dtype),
    'MatMul': lambda a, x, y: np.matmul(x, y),
    'Softmax': lambda a, x: _softmax(x, a.get('axis', -1)),
    'ReduceMean': _reduce_mean,
    'Gather': lambda a, x, i: np.take(x, i, axis=a.get('axis', 0)),
    'Reshape': lambda a, x, s: _reshape(x, s),
    'Transpose': lambda a, x: np.transpose(x, a.get('perm')),
    'Slice': lambda a, x, s, e, ax=None, st=None: _slice(x, s, e, ax, st),
    'Concat': lambda a, *xs: np.concatenate(xs, axis=a['axis']),
    'Unsqueeze': lambda a, x, axes: np.expand_dims(x, tuple(int(v) for v in axes)),
    'Squeeze': lambda a, x, axes=None: np.squeeze(x, None if axes is None else tuple(int(v) for v in axes)),
    'Shape': lambda a, x: np.array(x.shape, dtype=np.int64),
    'Cast': lambda a, x: x.astype({1: np.float32, 6: np.int32, 7: np.int64, 9: np.bool_}[a['to']]),
    'Where': lambda a, c, x, y: np.where(c, x, y),
    'Equal': lambda a, x, y: x == y,
    'Expand': lambda a, x, s: x * np.ones(tuple(int(v) for v in s), dtype=x.dtype),
}


class NumpyEvaluator:
    def __init__(self, model):
        self.graph = model.graph
        self.consts = {t.name: numpy_helper.to_array(t) for t in self.graph.initializer}
        self.output_names = [o.name for o in self.graph.output]
        self.input_names = [i.name for i in self.graph.input if i.name not in self.consts]

    def run(self, feeds):
        env = dict(self.consts)
        env.update(feeds)
        for node in self.graph.node:
            a = _attrs(node)
            if node.op_type == 'Constant':
                env[node.output[0]] = numpy_helper.to_array(a['value'])
                continue
            fn = OPS.get(node.op_type)
            if fn is None:
                raise NotImplementedError(f'onnx_numpy: operator {node.op_type} (node {node.name}) is not implemented')
            args = [env[n] if n else None for n in node.input]
            while args and args[-1] is None:
                args.pop()
            out = fn(a, *args)
            env[node.output[0]] = np.asarray(out)
        return [env[n] for n in self.output_names]
