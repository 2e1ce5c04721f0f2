import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { PLATFORMS } from '../../generator/platforms/index.js';
import { COST_CLASSES } from '../../generator/platforms/types.js';
import { createEmulator, PLATFORM_IDS, readRegions } from '../../runtime/node/emulator.js';

/*
 * The generator's platform descriptions and the emulator's chip models are written in two languages; this keeps
 * them from drifting: same memories in the same order (the firmware indexes regions by position), same chip
 * addresses and sizes, same emulator id, same core count.
 */
for (const p of Object.values(PLATFORMS)) {
  test(`${p.name}: the emulator models the memories the generator plans for`, async () => {
    assert.is(PLATFORM_IDS[p.name], p.emulatorId);
    const emu = await createEmulator(p.name);
    const regions = readRegions(emu);
    assert.equal(
      regions.map((r) => ({ name: r.name, chip: r.chip, size: r.size })),
      p.memories.map((m) => ({ name: m.name, chip: m.chipBase, size: m.size })),
    );
    const e = emu as unknown as { cost_cycles(c: number): number; fork_cycles(): number; barrier_cycles(): number; join_cycles(): number };
    COST_CLASSES.forEach((c, id) => assert.is(p.costs[c], e.cost_cycles(id), `${c} costs the same in the generator's model and the emulator`));
    assert.equal([p.costs.fork, p.costs.barrier, p.costs.join], [e.fork_cycles(), e.barrier_cycles(), e.join_cycles()]);
    assert.ok(p.home.offset + p.home.size <= p.memories.find((m) => m.name === p.home.memory)!.size, 'the arena lies inside its memory');
    // A division by each divisor: the emulator's charge (divide) and the tiler's estimate of it (divisionCycles, or DIV).
    for (const divisor of [1, 7, 0x10000, 0x7fffffff, -5, 0]) {
      const before = Number(emu.total_cycles());
      emu.divide(1, divisor);
      const estimate = p.divisionCycles ? p.divisionCycles(divisor) : p.costs.DIV;
      assert.is(Number(emu.total_cycles()) - before, estimate, `a division by ${divisor}`);
    }
  });
}

test.run();
