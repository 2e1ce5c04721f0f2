import { GenError } from '../errors.js';
import type { Graph, Node } from '../ir/graph.js';
import type { KernelDef, KernelView } from '../kernels/types.js';
import type { Platform } from '../platforms/types.js';
import { renderClosure } from './closure.js';
import { templatePath } from './paths.js';
import { renderFile } from './render.js';

export interface RenderedKernel {
  view: KernelView;
  c: string;
  as: string;
}

/** A kernel's view model of a node, its failures located at the node. */
export function kernelView(kernel: KernelDef, node: Node, graph: Graph, platform: Platform): KernelView {
  try {
    return kernel.view({ node, graph, platform });
  } catch (e) {
    const site = { node: node.name, op: node.op };
    throw e instanceof GenError ? e.withSite(site) : new GenError('internal', (e as Error).message, site);
  }
}

/** A kernel's view model rendered through its body templates and wrapped into a closure, in both languages. */
export function renderKernel(
  kernel: KernelDef, node: Node, graph: Graph, platform: Platform, fn: string, comment: string, symbolOf: (t: string) => string,
): RenderedKernel {
  const view = kernelView(kernel, node, graph, platform);
  const bodyC = renderFile(templatePath(platform.name, 'c', `${kernel.template}.c.mustache`), view.params);
  const bodyAs = renderFile(templatePath(platform.name, 'as', `${kernel.template}.ts.mustache`), view.params);
  const args = view.args.map((a) => ({ ...a, symbol: symbolOf(a.tensor) }));
  const closure = renderClosure(platform.name, { fn, args, comment, bodyC, bodyAs });
  return { view, c: closure.c, as: closure.as };
}
