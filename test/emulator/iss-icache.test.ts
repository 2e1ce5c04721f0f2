/**
 * The cluster's instruction cache on the RV32 core (emulator/assembly/iss/icache.ts) on hand-written programs: a cold
 * line costs the trip to L2 once, a loop that fits a core's private level runs without fetch stalls, a loop larger
 * than it misses there yet hits the shared level, a second core finds the lines the first brought in, a 32-bit
 * instruction across two lines fetches both, and a hart left out of the cache never waits on a fetch.
 * Figures (icache.ts, from GVSoC's Siracusa cluster configuration): a private-level miss that hits the shared level
 * costs its refill, 2 cycles; a shared-level miss costs 2 + the shared level's refill 2 + the cluster interconnect 2
 * + an L2 access from the cluster, 20 (chips/siracusa-memory.ts L2_ACCESS_CYCLES, an ASSUMPTION there).
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { assemble, loadElf, machine, runToStop, STALL, STOP, type Machine } from './iss-harness.js';

const L0_HIT_SHARED = 2;
const COLD = 2 + 2 + 2 + 20;
const LINE = 16;

async function cached(source: string, harts = 1, cachedHarts = harts): Promise<Machine> {
  const m = await machine();
  loadElf(m, assemble(`.option norvc\n${source}`), harts);
  assert.is(m.emu.iss_icache_config(0, cachedHarts), 0);
  return m;
}

const misses = (m: Machine): [number, number] => [m.emu.iss_icache_misses(0), m.emu.iss_icache_misses(1)];

/** `n` 4-byte nops run `times` times, then exit: the loop body starts at byte 4, the exit ends the code. */
const loop = (n: number, times: number): string => `
  li t0, ${times}
1:
  .rept ${n}
  nop
  .endr
  addi t0, t0, -1
  bnez t0, 1b
  li a0, 0
  EXIT
`;
/** Lines of loop(n): li (4 bytes), n nops, addi, bnez, li a0, li a7, ecall (4 bytes each). */
const loopLines = (n: number): number => Math.ceil((4 + 4 * n + 20) / LINE);

test('cold lines cost the trip to L2 once each; a loop that fits the private level then runs without fetch stalls', async () => {
  const n = 60; // 264 bytes of code: within a core's 512
  const m = await cached(loop(n, 5));
  const r = runToStop(m);
  assert.is(r.stop, STOP.exit, r.fault);
  const lines = loopLines(n);
  assert.equal(misses(m), [lines, lines], 'each line missed once at both levels');
  assert.is(m.emu.iss_stalls(0, STALL.fetch), lines * COLD);
  // and nothing else changed: one cycle per instruction, the taken branches, the fetch stalls
  const instructions = 1 + 5 * (n + 2) + 3;
  assert.is(r.instructions, instructions);
  assert.is(r.cycles, instructions + 4 * 2 + lines * COLD);
});

test('a loop larger than the private level misses there every pass, hits the shared level after the first', async () => {
  const n = 300; // 1224 bytes: over a core's 512, within the shared 4 KiB
  const passes = 4;
  const m = await cached(loop(n, passes));
  assert.is(runToStop(m).stop, STOP.exit);
  const lines = loopLines(n);
  const [l0, l1] = misses(m);
  assert.is(l1, lines, 'the shared level missed only the cold lines');
  // 8 sets x 4 ways cannot hold 77 lines: most of the body misses again on each later pass (random replacement keeps a few)
  assert.ok(l0 - l1 > (passes - 1) * lines * 0.5, `private-level misses after the first pass: ${l0 - l1}`);
  assert.is(m.emu.iss_stalls(0, STALL.fetch), l1 * COLD + (l0 - l1) * L0_HIT_SHARED);
});

test('a second core finds in the shared level the lines the first core brought in', async () => {
  const n = 60;
  const m = await cached(loop(n, 2), 2);
  assert.is(runToStop(m, 0).stop, STOP.exit);
  const first = misses(m);
  assert.is(runToStop(m, 1).stop, STOP.exit);
  const [l0, l1] = misses(m);
  const lines = loopLines(n);
  assert.is(l1, first[1], 'no shared-level miss for the second core');
  assert.is(l0 - first[0], lines, 'its own private level starts empty');
  // Its clock starts at 0, as the first core's did: running the same instructions, it reaches each line when the first
  // core's refill of it is under way and waits for the same end, never for a refill of its own.
  const first0 = m.emu.iss_stalls(0, STALL.fetch);
  const second = m.emu.iss_stalls(1, STALL.fetch);
  assert.ok(second >= lines * L0_HIT_SHARED && second <= first0, `${second} fetch stalls (the first core: ${first0})`);
});

test('a 32-bit instruction across two lines fetches both', async () => {
  // The jump back at byte 14 ends in line 1; nothing else runs from line 1: without the second lookup it would not be fetched.
  const m = await cached(`
  li t0, 2
1:
  addi t0, t0, -1
  beqz t0, 2f
  .option rvc
  c.nop
  .option norvc
  j 1b
  .balign 16
  .fill 4, 4, 0
  .balign 16
2:
  li a0, 0
  EXIT
`);
  assert.is(runToStop(m).stop, STOP.exit);
  assert.equal(misses(m), [3, 3], 'lines 0, 1 (the jump\'s second half) and 3 (the exit)');
  assert.is(m.emu.iss_stalls(0, STALL.fetch), 3 * COLD);
});

test('a hart outside the cache (the fabric controller) fetches for free', async () => {
  const m = await cached(loop(300, 2), 2, 1); // hart 0 fetches through the cache, hart 1 does not
  const a = runToStop(m, 0);
  const b = runToStop(m, 1);
  assert.is(b.stop, STOP.exit);
  assert.is(m.emu.iss_stalls(1, STALL.fetch), 0);
  assert.is(a.instructions, b.instructions);
  assert.is(a.cycles - b.cycles, m.emu.iss_stalls(0, STALL.fetch), 'the two harts differ by the fetch stalls alone');
});

test('out-of-range harts are refused', async () => {
  const m = await machine();
  assert.is(m.emu.iss_icache_config(0, m.emu.iss_max_harts() + 1), -1);
  assert.is(m.emu.iss_icache_config(-1, 1), -1);
});

test.run();
