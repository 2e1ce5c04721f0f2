/**
 * SpiNNaker2 numbers written twice, in two languages, kept equal: the chip's timing parameters (the emulator's
 * chips/spinnaker2.ts and the generator's cost model, timing.ts) and the DRAM image format (the generator's
 * layout.ts and the firmware's as/layout.ts and c/s2_layout.h).
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import * as L from '../../generator/platforms/spinnaker2/layout.js';
import { S2 } from '../../generator/platforms/spinnaker2/timing.js';
import { REPO_ROOT } from '../../runtime/node/paths.js';

/** `export const NAME: type = value;` (AS) or `#define NAME value` (C) as numbers. */
function constants(file: string): Map<string, number> {
  const text = readFileSync(join(REPO_ROOT, file), 'utf8');
  const out = new Map<string, number>();
  const as = /export const (\w+): \w+ = ([0-9a-fx_]+)(?: \* ([0-9a-fx_]+))?;/gi;
  const c = /#define (\w+) \(?([0-9a-fx_]+)u?\)?/gi;
  for (const m of text.matchAll(as)) out.set(m[1], Number(m[2].replace(/_/g, '')) * (m[3] ? Number(m[3].replace(/_/g, '')) : 1));
  for (const m of text.matchAll(c)) out.set(m[1], Number(m[2].replace(/_/g, '')));
  return out;
}

test('the cost model uses the emulator\'s timing parameters', () => {
  const e = constants('emulator/assembly/chips/spinnaker2.ts');
  assert.equal(
    [S2.pes, S2.nocLatency, S2.nocSend, S2.irqEntry, S2.dmaLatency, S2.dmaIssue, S2.dmaCyclesPerByte * 65536,
      S2.dramCyclesPerByte * 65536, S2.mlaRows, S2.mlaCols, S2.mlaDrain, S2.mlaSetup],
    ['S2_MAX_PES', 'S2_NOC_LATENCY', 'S2_NOC_SEND', 'S2_IRQ_ENTRY', 'S2_DMA_LATENCY', 'S2_DMA_ISSUE', 'S2_DMA_Q16_PER_BYTE',
      'S2_DRAM_Q16_PER_BYTE', 'S2_MLA_ROWS', 'S2_MLA_COLS', 'S2_MLA_DRAIN', 'S2_MLA_SETUP'].map((n) => e.get(n)),
  );
});

/** The generator's names for each firmware constant. */
function expected(): Record<string, number> {
  const prefixed = (prefix: string, o: Record<string, number>, skip: string[] = []): Record<string, number> =>
    Object.fromEntries(Object.entries(o).filter(([k]) => !skip.includes(k)).map(([k, v]) => [`${prefix}${k.replace(/[A-Z]/g, (c) => `_${c}`).toUpperCase()}`, v]));
  return {
    MAGIC: L.MAGIC, VERSION: L.VERSION, TIME_SLOT: L.TIME_SLOT,
    ...prefixed('G_', L.GLOBAL, ['dataBase', 'dataBytes', 'inputs', 'outputs', 'ioTable', 'imageBytes']),
    ...prefixed('RUN_', L.TIME_RUN), ...prefixed('SCHED_', L.TIME_SCHED), ...prefixed('WORKER_', L.TIME_WORKER),
    ...prefixed('H_', L.HEADER), ...prefixed('GEN_', L.GENERATION), ...prefixed('DMA_', L.DMA), DMA_BATCH: L.DMA_BATCH,
    LAYER_FINISH: L.LAYER_FINISH, LAYER_GEMM: L.LAYER_GEMM, LAYER_ELEMENTWISE: L.LAYER_ELEMENTWISE, LAYER_ROWS: L.LAYER_ROWS, LAYER_CONV: L.LAYER_CONV, LAYER_MOVE: L.LAYER_MOVE, LAYER_INDEXED: L.LAYER_INDEXED,
    WORKER_TILES: L.WORKER.tiles, WORKER_FIRST: L.WORKER.first,
    SRAM_STAMPS: L.SRAM.stamps, SRAM_RUN_STAMPS: L.SRAM.runStamps, SRAM_HEADER: L.SRAM.header, SRAM_PARAMS: L.SRAM.params,
    SRAM_GLOBAL: L.SRAM.global, SRAM_SCHED_HEADER: L.SRAM.schedHeader, SRAM_SCHED_BLOCK: L.SRAM.schedBlock,
    SRAM_GENERATION: L.SRAM.generation, SRAM_GEN_SCRATCH: L.SRAM.genScratch,
  };
}

for (const file of ['firmware-templates/spinnaker2/as/layout.ts', 'firmware-templates/spinnaker2/c/s2_layout.h']) {
  test(`${file} has the generator's image format`, () => {
    if (file.endsWith('.h') && !existsSync(join(REPO_ROOT, file))) return;
    const got = constants(file);
    const want = expected();
    for (const [name, value] of Object.entries(want)) assert.is(got.get(name), value, name);
    const extra = [...got.keys()].filter((k) => !(k in want) && !k.endsWith('_H'));
    assert.equal(extra, [], 'constants the generator does not know');
  });
}

test.run();
