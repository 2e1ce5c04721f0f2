import { GenError } from '../errors.js';

/**
 * A loop nest over `dims` where each operand walks memory with its own element strides. Adjacent loops merge
 * when every operand is contiguous across them, so most broadcasts and copies end up with one to three loops.
 */
export interface LoopNest {
  dims: number[];
  /** strides[k][d]: element stride of operand k along loop d. */
  strides: number[][];
}

export function collapse(nest: LoopNest): LoopNest {
  const dims: number[] = [];
  const strides: number[][] = nest.strides.map(() => []);
  for (let d = 0; d < nest.dims.length; d++) {
    if (nest.dims[d] === 1) continue;
    const last = dims.length - 1;
    const mergeable = last >= 0 && nest.strides.every((s, k) => strides[k][last] === s[d] * nest.dims[d]);
    if (mergeable) {
      dims[last] *= nest.dims[d];
      nest.strides.forEach((s, k) => { strides[k][last] = s[d]; });
    } else {
      dims.push(nest.dims[d]);
      nest.strides.forEach((s, k) => strides[k].push(s[d]));
    }
  }
  return { dims, strides };
}

/** Pads (at the outside) to exactly `rank` loops; more than `rank` loops is an unsupported layout. */
export function toRank(nest: LoopNest, rank: number, site: { node: string; op: string }): LoopNest {
  const c = collapse(nest);
  if (c.dims.length > rank) {
    throw new GenError('unsupported', `needs ${c.dims.length} nested loops after merging; kernels handle ${rank}`, site);
  }
  const pad = rank - c.dims.length;
  return {
    dims: [...new Array<number>(pad).fill(1), ...c.dims],
    strides: c.strides.map((s) => [...new Array<number>(pad).fill(0), ...s]),
  };
}

/** Names for a rank-4 nest in templates: d0..d3 and per-operand s0..s3. */
export function nestParams(n: LoopNest): { d: number[]; outer: number } {
  return { d: n.dims, outer: n.dims[0] * n.dims[1] };
}
