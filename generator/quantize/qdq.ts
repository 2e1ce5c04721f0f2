import type { Graph, Node, Tensor } from '../ir/graph.js';
import type { ActivationQuant } from './clipping.js';
import { biasScale } from './fixed-point.js';
import { GraphBuilder, int, quantDType } from './builder.js';
import { weightScale, type Plan } from './params.js';
import type { LinearUnit } from './types.js';

/*
 * The same quantization as standard QDQ ONNX (opset 13) for onnxruntime and other tools: the float model with
 *   - each graph input quantized and dequantized (QuantizeLinear -> DequantizeLinear),
 *   - weights stored as int8 (per-axis scales along the output channel) and biases as int32 (scale s_x * s_w),
 *     each read through a DequantizeLinear,
 *   - every requantized tensor (a layer's output after its fused ReLU/Clip, Add, pooling, Concat, Softmax)
 *     followed by QuantizeLinear -> DequantizeLinear with the tensor's scale and a zero point of 0.
 * MaxPool and data movement keep values on the grid, so they need no Q/DQ of their own. 16-bit tensors (the
 * integer softmax input) stay float here: opset 13 has no 16-bit QuantizeLinear.
 */

const f32 = Math.fround;

export function buildQdq(float: Graph, plan: Plan): Graph {
  const b = new GraphBuilder(`${float.name}_qdq`, float.source);
  const rename = new Map<string, string>();
  const read = (t: string): string => rename.get(t) ?? t;
  const nodes: Node[] = float.nodes.map((n) => ({ ...n, inputs: [...n.inputs], outputs: [...n.outputs], attrs: { ...n.attrs } }));
  const byName = new Map(nodes.map((n) => [n.name, n]));
  const skip = new Set<string>();

  const qdq = (from: string, to: string, q: ActivationQuant): void => {
    const zt = quantDType(q.signed, 8);
    b.constant(`${to}_scale`, 'float32', [], [q.scale]);
    b.constant(`${to}_zp`, zt, [], [0]);
    b.tensor(`${to}_q`, zt, []);
    b.node('QuantizeLinear', `${to}_quantize`, [from, `${to}_scale`, `${to}_zp`], [`${to}_q`]);
    b.node('DequantizeLinear', `${to}_dequantize`, [`${to}_q`, `${to}_scale`, `${to}_zp`], [to]);
  };

  for (const name of float.inputs) {
    b.copy(float.tensors.get(name) as Tensor);
    rename.set(name, `${name}_dq`);
    qdq(name, `${name}_dq`, plan.act.get(name)!);
  }

  // Quantization points: the producing node writes <t>_f, and Q/DQ turn it back into <t>.
  const points = new Map<string, ActivationQuant>();
  for (const u of plan.units) {
    if (u.kind === 'pass' || (u.kind === 'act' && u.act.kind !== 'clip')) continue;
    const q = plan.act.get(u.out)!;
    if (q.bits === 16) continue;
    points.set(u.out, q);
  }
  for (const u of plan.units) if (u.kind === 'linear') rewriteLinear(u);

  for (const n of nodes) {
    if (skip.has(n.name)) continue;
    n.inputs = n.inputs.map(read);
    // Constants the rewritten model still reads (not the float weights it replaced).
    for (const i of n.inputs) {
      const t = float.tensors.get(i);
      if (t?.data && !b.tensors.has(i)) b.copy(t);
    }
    const outs = n.outputs.map((o) => (points.has(o) ? `${o}_f` : o));
    b.node(n.op, n.name, n.inputs, outs, n.attrs);
    n.outputs.forEach((o, i) => {
      const q = points.get(o);
      if (q) qdq(outs[i], o, q);
    });
  }
  for (const name of float.outputs) b.copy(float.tensors.get(name) as Tensor);
  return b.graph([...float.inputs], [...float.outputs]);

  /** Weights and bias of a linear layer through DequantizeLinear; alpha/beta are folded into them. */
  function rewriteLinear(u: LinearUnit): void {
    const l = plan.linear.get(u.name)!;
    const n = byName.get(u.name)!;
    const channels = u.wShape[u.outAxis];
    const perAxis = l.wScales.length > 1;
    const w = `${u.name}_w`;
    b.constant(`${w}_q`, 'int8', u.wShape, l.wq);
    b.constant(`${w}_scale`, 'float32', perAxis ? [channels] : [], l.wScales);
    b.constant(`${w}_zp`, 'int8', perAxis ? [channels] : [], new Array<number>(l.wScales.length).fill(0));
    b.node('DequantizeLinear', `${w}_dequantize`, [`${w}_q`, `${w}_scale`, `${w}_zp`], [w], perAxis ? { axis: int(u.outAxis) } : {});
    n.inputs[1] = w;
    delete n.attrs.alpha;
    delete n.attrs.beta;

    const sx = plan.act.get(u.x)!.scale;
    const hasBias = u.biasTensor !== undefined || l.biasQ.some((v) => v !== 0);
    if (!hasBias) return;
    const bias = `${u.name}_bias`;
    const scales = Array.from({ length: channels }, (_, j) => f32(biasScale(sx, weightScale(l, j))));
    // A bias that was a separate Add keeps its place (and its shape); otherwise it becomes the op's bias input.
    const addNode = u.nodes.length > 1 && u.biasTensor && !n.inputs.includes(u.biasTensor) ? byName.get(u.nodes[1]) : undefined;
    const shape = addNode ? float.tensors.get(u.biasTensor!)!.shape : [channels];
    const axis = shape.length <= 1 ? 0 : shape.findIndex((d) => d === channels && channels > 1);
    b.constant(`${bias}_q`, 'int32', shape, l.biasQ);
    b.constant(`${bias}_scale`, 'float32', [channels], scales);
    b.node('DequantizeLinear', `${bias}_dequantize`, [`${bias}_q`, `${bias}_scale`], [bias], { axis: int(Math.max(0, axis)) });
    if (addNode) {
      addNode.inputs = addNode.inputs.map((i) => (i === u.biasTensor ? bias : i));
    } else if (u.op === 'MatMul') {
      // Bias correction gave a bias-less MatMul a bias: add it after the product.
      const mm = n.outputs[0];
      n.outputs[0] = `${mm}_nobias`;
      nodes.splice(nodes.indexOf(n) + 1, 0, { name: `${u.name}_bias_add`, op: 'Add', domain: '', inputs: [`${mm}_nobias`, bias], outputs: [mm], attrs: {} });
    } else {
      n.inputs[2] = bias;
    }
  }
}
