/** The emulator's region table and memory windows are what docs/firmware-abi.md says. */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { createEmulator, PLATFORM_IDS, readRegions, type Region } from '../../runtime/node/emulator.js';
import { REPO_ROOT } from '../../runtime/node/paths.js';

const SIZE_UNITS: Record<string, number> = { KiB: 1024, MiB: 1024 * 1024 };
const num = (s: string): number => parseInt(s.replace(/_/g, ''), 16);

/** Rows `| platform | index | region | chip address | size | linear base |` of the ABI's region table. */
function documentedRegions(): Map<string, Region[]> {
  const doc = readFileSync(join(REPO_ROOT, 'docs', 'firmware-abi.md'), 'utf8');
  const table = new Map<string, Region[]>();
  const row = /^\| (\w+) \| (\d+) \| (\w+) \| (0x[0-9A-Fa-f_]+) \| (\d+) (KiB|MiB) \| (0x[0-9A-Fa-f_]+) \|$/gm;
  for (const m of doc.matchAll(row)) {
    const list = table.get(m[1]) ?? [];
    list.push({ index: Number(m[2]), name: m[3], chip: num(m[4]), size: Number(m[5]) * SIZE_UNITS[m[6]], linear: num(m[7]) });
    table.set(m[1], list);
  }
  return table;
}

/** SpiNNaker2 has 153 regions: the ABI lists some rows (by index) and the rule for the PEs between them. */
const LISTED_ONLY = new Set(['spinnaker2']);

test('the region table of every platform matches docs/firmware-abi.md', async () => {
  const documented = documentedRegions();
  assert.equal([...documented.keys()].sort(), Object.keys(PLATFORM_IDS).sort());
  for (const platform of Object.keys(PLATFORM_IDS)) {
    const regions = readRegions(await createEmulator(platform));
    const rows = documented.get(platform)!;
    if (LISTED_ONLY.has(platform)) assert.equal(rows.map((r) => regions[r.index]), rows, platform);
    else assert.equal(regions, rows, platform);
  }
});

test('regions are 1 MiB aligned from 8 MiB (SpiNNaker2 PE SRAMs 128 KiB), do not overlap, and fit the memory', async () => {
  for (const platform of Object.keys(PLATFORM_IDS)) {
    const emu = await createEmulator(platform);
    let end = 0x80_0000;
    for (const r of readRegions(emu)) {
      assert.is(r.linear % (platform === 'spinnaker2' && r.name !== 'DRAM' ? 0x2_0000 : 0x10_0000), 0);
      assert.ok(r.linear >= end, `${platform} ${r.name} overlaps its predecessor`);
      end = r.linear + r.size;
    }
    assert.ok(end <= emu.memory_pages() * 65536, `${platform} regions end at ${end}`);
    assert.is(emu.memory.buffer.byteLength, emu.memory_pages() * 65536);
  }
});

test("the emulator's static data stays below its event log, and the log inside its window", async () => {
  const emu = await createEmulator('siracusa');
  assert.ok(emu.heap_base() <= 0x10_0000, `heap_base ${emu.heap_base()}`);
  assert.is(emu.events_ptr(), 0x10_0000);
  assert.ok(emu.events_ptr() + emu.events_capacity() * 32 <= 0x40_0000);
});

test('configure: cluster sizes, and faults for unknown platforms or core counts', async () => {
  const emu = await createEmulator('siracusa');
  assert.is(emu.configure(1, 0), 8);
  assert.is(emu.agent_count(), 9);
  assert.is(emu.configure(1, 3), 3);
  assert.is(emu.configure(0, 0), 0);
  assert.is(emu.agent_count(), 1);
  assert.throws(() => emu.configure(6, 0));
  assert.match(Buffer.from(emu.memory.buffer, emu.fault_message(), emu.fault_message_length()).toString(), /unknown platform id 6/);
  assert.throws(() => emu.configure(1, 9));
  assert.throws(() => emu.configure(0, 2));
});

test.run();
