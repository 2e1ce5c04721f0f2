// The generator's estimate of an N-EUREKA job's cycles: the emulator's timing model (docs/neureka.md "Timing";
// emulator/assembly/neureka*.ts), used to choose the engine of a layer and the tile sizes of NPU layers.

import { subtileCounts, type NpuJobShape } from './registers.js';
import { OUT_SUBTILE_HW, WORD_BYTES, encodedStride } from './weights.js';

/** Per-subtile figures (HARDWARE.md "Throughput", GVSoC model, derived). */
const LOAD_SETUP = 6;
const NORM_BASE = 9;

export function npuJobCycles(s: NpuJobShape): number {
  const c = subtileCounts(s);
  const k = s.mode === '1x1' ? 1 : 3;
  const streamerReads = (OUT_SUBTILE_HW + k - 1) ** 2;
  const matvec = s.mode === '3x3' ? 32 * s.bits : s.mode === '1x1' ? 4 * s.bits : 28 * s.bits;
  // Weight words one (Ko, Ki) subtile pair reads: 3x3 dense bits x 32 output channels, 1x1 32, depthwise bits.
  const words = s.mode === '3x3' ? s.bits * 32 : s.mode === '1x1' ? 32 : s.bits;
  const weightLoad = s.wmem ? 0 : words;
  const matvecWithWeights = s.wmem ? Math.max(matvec, words) : matvec;
  const perKi = LOAD_SETUP + streamerReads + weightLoad + matvecWithWeights;
  const norm = s.stage.normQuant ? NORM_BASE + (s.stage.scale32 ? 32 : 8) : 0;
  let total = 0;
  for (let h = 0; h < c.nHo; h++) {
    const rows = h === c.nHo - 1 ? c.remHo : OUT_SUBTILE_HW;
    for (let w = 0; w < c.nWo; w++) {
      const cols = w === c.nWo - 1 ? c.remWo : OUT_SUBTILE_HW;
      const stores = rows * cols * (s.stage.normQuant ? 1 : 4);
      total += c.nKo * (c.nKi * perKi + norm + stores);
    }
  }
  return total;
}

/** Bytes of encoded weights a job of this shape reads. */
export function jobWeightBytes(s: NpuJobShape): number {
  return s.mode === '3x3dw' ? Math.ceil(s.cout / 28) * s.bits * WORD_BYTES : s.cout * encodedStride(s.mode, s.bits, s.cin);
}
