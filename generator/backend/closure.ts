import { cType } from '../ir/dtype.js';
import type { BufferArg } from '../kernels/types.js';
import { renderFile } from './render.js';
import { sanitizeComment } from './sanitize.js';
import { templatePath } from './paths.js';

/**
 * A kernel body becomes a closure: a top-level function plus an argument struct holding every free variable it
 * uses (DESIGN.md, Closures). The struct's fields are exactly the kernel's declared buffers; the call site fills
 * them all. backend/closure-check.ts verifies the AS side uses nothing else.
 */
export interface Closure {
  fn: string;
  args: (BufferArg & { symbol: string })[];
  comment: string;
  bodyC: string;
  bodyAs: string;
}

export function renderClosure(platform: string, c: Closure): { c: string; as: string } {
  const view = {
    fn: c.fn,
    comment: sanitizeComment(c.comment),
    args: c.args.map((a) => ({ ...a, ctype: cType(a.dtype) })),
  };
  return {
    c: renderFile(templatePath(platform, 'c', 'closure.c.mustache'), { ...view, body: c.bodyC.trimEnd() }),
    as: renderFile(templatePath(platform, 'as', 'closure.ts.mustache'), { ...view, body: c.bodyAs.trimEnd() }),
  };
}
