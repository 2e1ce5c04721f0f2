/**
 * The DMA fixture firmware shared by dma.test.ts and dma-host.test.ts: one AS program, the scenario chosen by the
 * input `mode`; it stamps its clock into the output `t` as it goes. Layer 3 is open throughout, so faults name it.
 */
import { ndarray } from '../../generator/ir/ndarray.js';
import { runFirmware, type RunResult } from '../../runtime/node/run.js';
import { makeFirmware } from './fixture.js';

export const NETWORK = `
import {
  dma_channel_alloc, dma_channel_free, dma_copy_1d, dma_copy_2d, dma_copy_2d_l1, dma_copy_2d_both, dma_wait,
} from "./hal/dma";
import { cluster_fork, core_id } from "./hal/cluster";
import { chip_to_linear, region_base } from "./hal/memory";
import * as chip from "./hal/chip";

const L1 = region_base(0);
const X = chip_to_linear(0x1C00_0000);   // input x, 4096 bytes (a 64 x 64 matrix)
const Y = chip_to_linear(0x1C00_2000);   // output y, 4096 bytes
const T = chip_to_linear(0x1C00_4000);   // output t: clock stamps
const mode = load<i32>(chip_to_linear(0x1C01_0000));
let n = 0;
function stamp(): void { store<i32>(T + <usize>(n++ << 2), <i32>chip.cycles()); }

function roundTrip(ch: i32, bytes: i32): void {
  dma_copy_1d(ch, L1, X, bytes, true); stamp(); dma_wait(ch); stamp();
  dma_copy_1d(ch, L1, Y, bytes, false); stamp(); dma_wait(ch); stamp();
}

// Each core moves its 512-byte eighth of x through its own channel and its own L1 buffer.
function share(_: usize): void {
  const off = <usize>(core_id() * 512);
  const ch = dma_channel_alloc();
  dma_copy_1d(ch, L1 + off, X + off, 512, true); dma_wait(ch);
  dma_copy_1d(ch, L1 + off, Y + off, 512, false); dma_wait(ch);
  dma_channel_free(ch);
}

chip.layer_begin(3);
const ch = dma_channel_alloc();
stamp();
if (mode == 0) {
  roundTrip(ch, 1024);
} else if (mode == 1) {        // a 16 x 16 block at row 4, column 8: to L1 (contiguous) and back to the same place
  dma_copy_2d(ch, L1, X + 4 * 64 + 8, 256, 64, 16, true); stamp(); dma_wait(ch); stamp();
  dma_copy_2d(ch, L1, Y + 4 * 64 + 8, 256, 64, 16, false); dma_wait(ch);
} else if (mode == 2) {        // 16 rows of 12 bytes spread 32 apart in L1, then 512 bytes of L1 back
  dma_copy_2d_l1(ch, L1, X, 192, 32, 12, true); stamp(); dma_wait(ch); stamp();
  dma_copy_1d(ch, L1, Y, 512, false); dma_wait(ch);
} else if (mode == 3) {        // both sides strided: 16-byte rows every 64 in L2 to rows every 32 in L1, and back
  dma_copy_2d_both(ch, L1, X, 256, 64, 16, 32, 16, true); dma_wait(ch);
  dma_copy_2d_both(ch, L1, Y, 512, 64, 32, 32, 32, false); dma_wait(ch);
} else if (mode == 4) {        // two transfers into L1 back to back: they serialise
  dma_copy_1d(ch, L1, X, 1024, true); stamp();
  const b = dma_channel_alloc(); dma_copy_1d(b, L1 + 1024, X + 1024, 1024, true); stamp();
  dma_wait(ch); stamp(); dma_wait(b); stamp(); dma_channel_free(b);
} else if (mode == 5) {        // one into L1, one out of L1: they overlap
  dma_copy_1d(ch, L1, X, 1024, true); stamp();
  const b = dma_channel_alloc(); dma_copy_1d(b, L1 + 2048, Y, 1024, false); stamp();
  dma_wait(ch); stamp(); dma_wait(b); stamp(); dma_channel_free(b);
} else if (mode == 6) {        // reads L1 before the wait (stale), then after it
  memory.fill(L1 + 256, 0x55, 64);
  dma_copy_1d(ch, L1 + 256, X, 64, true);
  memory.copy(Y, L1 + 256, 64);
  dma_wait(ch);
  memory.copy(Y + 64, L1 + 256, 64);
} else if (mode == 7) {        // three commands from one core: the third waits for a queue slot
  for (let i = 0; i < 3; i++) { dma_copy_1d(ch, L1 + <usize>(i * 1024), X + <usize>(i * 1024), 1024, true); stamp(); }
  dma_wait(ch); stamp();
} else if (mode == 8) {
  cluster_fork(share, 0);
} else if (mode == 9) {        // forgets the wait of its writeback
  memory.fill(L1, 7, 64);
  dma_copy_1d(ch, L1, Y, 64, false);
} else if (mode == 10) { dma_copy_1d(ch, L1, X, 131072, true);
} else if (mode == 11) { dma_copy_1d(ch, X, Y, 64, true);                 // L2 -> L2
} else if (mode == 12) { dma_copy_1d(ch, L1, 0x50_0000, 64, true);        // the firmware's own window
} else if (mode == 13) { dma_copy_1d(ch, L1, L1 + 0x1000, 64, false);     // L1 -> L1
} else if (mode == 14) { dma_copy_1d(ch, L1 + 0x4_0000 - 16, X, 64, true); // runs past the end of L1
} else if (mode == 15) { dma_copy_1d(ch, L1, chip_to_linear(0x1040_0000), 64, true); // NPU weight memory
} else if (mode == 16) { dma_copy_2d(ch, L1, X + 0x1F_F000, 1024, 512, 64, true);    // rows run past L2
} else if (mode == 17) { const b = dma_channel_alloc(); dma_copy_1d(ch, L1, X, 64, true);
} else if (mode == 18) { dma_copy_1d(ch, L1, X, 64, true); dma_channel_free(ch);
}
if (mode < 9) dma_channel_free(ch);
chip.layer_end(3);
`;

let outDir: string | undefined;
function fixture(): string {
  outDir ??= makeFirmware({
    platform: 'siracusa',
    network: NETWORK,
    layers: [{ id: 3, name: 'dma' }],
    tensors: [
      { name: 'x', role: 'input', dtype: 'uint8', shape: [4096], region: 'L2', address: 0x1c00_0000, bytes: 4096 },
      { name: 'mode', role: 'input', dtype: 'int32', shape: [1], region: 'L2', address: 0x1c01_0000, bytes: 4 },
      { name: 'y', role: 'output', dtype: 'uint8', shape: [4096], region: 'L2', address: 0x1c00_2000, bytes: 4096 },
      { name: 't', role: 'output', dtype: 'int32', shape: [16], region: 'L2', address: 0x1c00_4000, bytes: 64 },
    ],
  });
  return outDir;
}

// x[i] = a pattern no two nearby bytes share, and never 0 (zero is what untouched memory holds).
export const X = Array.from({ length: 4096 }, (_, i) => ((i * 7 + (i >> 8)) % 255) + 1);
export const run = (mode: number): Promise<RunResult> =>
  runFirmware(fixture(), [ndarray('uint8', [4096], X), ndarray('int32', [1], [mode])]);
