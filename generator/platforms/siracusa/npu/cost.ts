// The generator's figure for an N-EUREKA job's cycles: the emulator's timing model exactly (docs/neureka.md
// "Timing"; emulator/assembly/neureka-job.ts jobCycles; test/npu/cost-agrees.test.ts keeps the two equal). Engine
// selection and the tile search of NPU layers use it.

import { subtileCounts, type NpuJobShape } from './registers.js';

/** HARDWARE.md "Throughput" (GVSoC model, derived): per-subtile load setup, normalisation base and scale phases. */
const LOAD_SETUP = 6;
const NORM_BASE = 9;
const NORM_SCALE8 = 8;
const NORM_SCALE32 = 32;

export function npuJobCycles(s: NpuJobShape): number {
  const c = subtileCounts(s);
  const pixels = s.mode === '1x1' ? 36 : 64;
  const mv = s.bits * (s.mode === '3x3' ? 32 : s.mode === '1x1' ? 4 : 28);
  // Depthwise runs each channel subtile once: its input channels are its output channels.
  const kiLoops = s.mode === '3x3dw' ? 1 : c.nKi;
  const subKo = s.mode === '3x3dw' ? 28 : 32;
  let perHw = 0;
  for (let o = 0; o < c.nKo; o++) {
    const channels = o === c.nKo - 1 ? c.remKo : subKo;
    const words = s.mode === '3x3' ? channels * s.bits : s.mode === '1x1' ? channels : s.bits;
    const load = LOAD_SETUP + pixels + (s.wmem ? 0 : words);
    perHw += kiLoops * (load + (s.wmem ? Math.max(mv, words) : mv));
    if (s.stage.normQuant) perHw += NORM_BASE + (s.stage.scale32 ? NORM_SCALE32 : NORM_SCALE8);
  }
  const stores = c.nKo * s.ho * s.wo * (s.stage.normQuant ? 1 : 4);
  return c.nHo * c.nWo * perHw + stores;
}

