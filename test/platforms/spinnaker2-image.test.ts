/**
 * The SpiNNaker2 DRAM image round trip: the generator writes memory/dram.bin and firmware.json; an independent reader
 * written here from docs/spinnaker2.md (it imports nothing of the generator's layout) parses the image, checks it
 * against the manifest's byte-exact description, and replays every worker's DMA descriptors into a simulated SRAM
 * to prove each tile gets the weights, bias and requantization values of the model, and that the output tiles
 * cover the output exactly once.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { generateFirmware } from '../../generator/pipeline.js';
import { workDir } from '../helpers/kernel-check.js';
import { mlpCase } from '../helpers/s2-model.js';

const { dir, cleanup } = workDir('s2-image');
const DRAM_BASE = 0x8000_0000;

class Dram {
  private readonly view: DataView;
  constructor(readonly bytes: Uint8Array) {
    this.view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  }
  u32(a: number): number { return this.view.getUint32(a - DRAM_BASE, true); }
  i32(a: number): number { return this.view.getInt32(a - DRAM_BASE, true); }
  slice(a: number, n: number): Uint8Array { return this.bytes.subarray(a - DRAM_BASE, a - DRAM_BASE + n); }
}

interface Dma { dram: number; sram: number; bytes: number; rowLength: number; rowStride: number }
interface Tile { rows: number; cols: number; sram: number[]; inputs: Dma[]; out: Dma }
interface LayerRead { address: number; type: number; workers: number; next: number; id: number; time: number; P: number; S: number; B: number; coords: number[]; blocks: Tile[][] }

function dmaAt(d: Dram, a: number): Dma {
  return { dram: d.u32(a), sram: d.u32(a + 4), bytes: d.u32(a + 8), rowLength: d.u32(a + 12), rowStride: d.u32(a + 16) };
}

/** The whole image as docs/spinnaker2.md describes it. */
function readImage(d: Dram) {
  const g = (o: number): number => d.u32(DRAM_BASE + o);
  const magic = String.fromCharCode(...d.slice(DRAM_BASE, 4));
  const W = g(12);
  const io = Array.from({ length: g(44) + g(48) }, (_, i) => ({ address: d.u32(g(52) + 8 * i), bytes: d.u32(g(52) + 8 * i + 4) }));
  const layers: LayerRead[] = [];
  for (let a = g(24); a !== 0; a = d.u32(a + 8)) {
    const [type, workers, next, id, time, P, S, B] = Array.from({ length: 8 }, (_, i) => d.u32(a + 4 * i));
    const sched = a + 32 + Math.ceil(P / 4) * 4;
    const coords = Array.from({ length: workers }, (_, j) => d.u32(sched + 4 * j));
    const blocks = type !== 1 ? [] : Array.from({ length: workers }, (_, j) => {
      const blk = sched + S + j * B;
      return Array.from({ length: d.u32(blk) }, (_, t) => {
        const at = blk + 8 + 160 * t;
        return {
          rows: d.u32(at), cols: d.u32(at + 4), sram: [0, 1, 2, 3, 4, 5].map((k) => d.u32(at + 8 + 4 * k)),
          inputs: Array.from({ length: d.u32(at + 32) }, (_, k) => dmaAt(d, at + 36 + 20 * k)), out: dmaAt(d, at + 136),
        };
      });
    });
    layers.push({ address: a, type, workers, next, id, time, P, S, B, coords, blocks });
    if (layers.length > 100) throw new Error('the chain does not end');
  }
  return {
    magic, version: g(4), scheduler: g(8), W, coords: Array.from({ length: W }, (_, w) => d.u32(g(16) + 4 * w)),
    L: g(20), first: g(24), time: g(28), timeLayerBytes: g(32), data: { address: g(36), bytes: g(40) }, io,
    imageBytes: g(56), layers,
  };
}

/** Replays the DMA descriptors of one worker's tiles into a simulated SRAM; calls `check` with the SRAM per tile. */
function replay(d: Dram, tiles: Tile[], check: (sram: Uint8Array, t: Tile) => void): void {
  const sram = new Uint8Array(128 * 1024);
  for (const t of tiles) {
    for (const x of t.inputs) {
      assert.ok(x.sram >= 0x8000 && x.sram + x.bytes <= sram.length, 'buffers above the firmware\'s 32 KiB');
      for (let i = 0; i < x.bytes; i++) {
        const src = x.rowLength ? x.dram + Math.floor(i / x.rowLength) * x.rowStride + (i % x.rowLength) : x.dram + i;
        // Data memory is not in the file: zeros stand for activations (their addresses are checked elsewhere).
        sram[x.sram + i] = src - DRAM_BASE < d.bytes.length ? d.bytes[src - DRAM_BASE] : 0;
      }
    }
    check(sram, t);
  }
}

for (const pes of [152, 3]) {
  test(`an MLP's image reads back as the manifest describes it and holds the model (${pes} PEs)`, () => {
    const c = mlpCase(join(dir, `m${pes}`), { rows: 6, sizes: [200, 700, 24], seed: 11 });
    const out = join(dir, `out${pes}`);
    generateFirmware({ model: c.model, platform: 'spinnaker2', out, sampleInputs: c.sample, pes });
    const m = JSON.parse(readFileSync(join(out, 'firmware.json'), 'utf8'));
    const d = new Dram(new Uint8Array(64 << 20));
    const file = readFileSync(join(out, 'memory', 'dram.bin'));
    d.bytes.set(file);
    const img = readImage(d);
    const s2 = m.spinnaker2;

    assert.is(img.magic, 'FGS2');
    assert.is(img.version, 1);
    assert.is(img.scheduler, 0);
    assert.is(img.W, pes - 1);
    assert.equal(img.coords, Array.from({ length: pes - 1 }, (_, i) => (((i + 1) >> 2) << 8) | ((i + 1) & 3)));
    assert.is(img.imageBytes, file.length);
    assert.is(img.data.address, DRAM_BASE + file.length, 'data memory right after the configuration');
    assert.ok(DRAM_BASE < img.time && img.time < img.first && img.first < img.data.address, 'the four areas in order');
    assert.equal([s2.areas.global.address, s2.areas.time.address, s2.areas.layers.address, s2.areas.data.address, s2.areas.data.bytes],
      [DRAM_BASE, img.time, img.first, img.data.address, img.data.bytes]);
    assert.is(img.timeLayerBytes, pes * 16);

    const computeLayers = m.layers.filter((l: { kernel: string }) => l.kernel !== 'alias');
    assert.is(img.L, computeLayers.length);
    assert.is(img.layers.length, img.L + 1);
    const finish = img.layers[img.L];
    assert.equal([finish.type, finish.next, finish.id, finish.P, finish.B], [0, 0, 0xffff_ffff, 0, 0]);
    img.layers.forEach((l, i) => {
      const desc = s2.layers[i];
      assert.equal([l.address, l.type, l.workers, l.time, l.next], [desc.address, desc.typeId, desc.workers, desc.time, desc.next]);
      assert.is(l.time, img.time + 16 + i * img.timeLayerBytes);
      assert.equal([desc.params.address, desc.params.bytes, desc.scheduler.bytes, desc.workerBlocks.each], [l.address + 32, l.P, l.S, l.B]);
      assert.equal(l.coords, img.coords.slice(0, l.workers));
      if (i < img.L) assert.is(l.id, computeLayers[i].id);
    });

    const tensor = (name: string) => m.tensors.find((t: { name: string }) => t.name === name);
    assert.equal(img.io, [...m.inputs, ...m.outputs].map((n: string) => ({ address: tensor(n).address, bytes: tensor(n).bytes })));

    img.layers.slice(0, img.L).forEach((l, li) => {
      const P = (o: number): number => d.u32(l.address + 32 + o);
      const [K, flags] = [P(0), P(4)];
      const N = [700, 24][li];
      const w = c.weights[li];
      const y = tensor(computeLayers[li].writes[0]);
      const counts = l.blocks.map((b) => b.length);
      assert.ok(Math.max(...counts) - Math.min(...counts) <= 1 && Math.min(...counts) >= 1, `equal shares: ${counts}`);
      assert.is(counts.reduce((a, b) => a + b, 0), s2.layers[li].plan.tiles);
      // A int8 then uint8 (after a ReLU), B int8 n-major, requantized; bias and multipliers per column, addend scalar.
      assert.equal([K, flags & 0x1f, P(12), P(20), P(28), d.i32(l.address + 32 + 32)],
        [[200, 700][li], (li === 0 ? 1 : 0) | 2 | 8 | 16, 2, 2, 1, c.adds[li]]);
      const covered = new Uint8Array(y.bytes);
      for (const tiles of l.blocks) {
        replay(d, tiles, (sram, t) => {
          const first = (t.out.dram - y.address);
          const [r0, n0] = [Math.floor(first / N), first % N];
          for (let r = 0; r < t.rows; r++) for (let n = 0; n < t.cols; n++) covered[(r0 + r) * N + n0 + n]++;
          assert.is(t.out.sram, t.sram[5]);
          // B n-major in SRAM: B(k, n) at B + n*K + k, an int8 of the model's weights.
          const view = new DataView(sram.buffer);
          for (let n = 0; n < t.cols; n++) {
            for (let k = 0; k < K; k += 7) assert.is((sram[t.sram[1] + n * K + k] << 24) >> 24, w[k * N + n0 + n], `B(${k}, ${n0 + n})`);
            // Bias and multiplier per column: the tile's slice of the int32 tables.
            assert.is(view.getInt32(t.sram[2] + 4 * n, true), c.biases[li][n0 + n]);
            assert.is(view.getInt32(t.sram[3] + 4 * n, true), c.muls[li][n0 + n]);
          }
          // A: the tile's rows of the layer's input, in data memory.
          const a = tensor(computeLayers[li].reads[0]);
          const fetchA = t.inputs.filter((x) => x.sram === t.sram[0]);
          for (const x of fetchA) assert.equal([x.dram, x.bytes], [a.address + r0 * K, t.rows * K]);
        });
      }
      assert.ok(covered.every((x) => x === 1), 'every output element in exactly one tile');
    });
  });
}

test.after(cleanup);
test.run();
