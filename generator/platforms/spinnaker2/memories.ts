import type { MemoryLevel } from '../types.js';

const KiB = 1024;
const MiB = 1024 * KiB;

/**
 * The memories the emulator models (emulator/assembly/chips/spinnaker2.ts, where the assumed addresses are
 * explained): region 0 the DRAM (its first 64 MiB, at 0x8000_0000), region 1 + p the 128 KiB SRAM of PE p.
 */
export function spinnaker2Memories(pes: number): MemoryLevel[] {
  return [
    { name: 'DRAM', chipBase: 0x8000_0000, size: 64 * MiB },
    ...Array.from({ length: pes }, (_, p) => ({ name: `PE${p}`, chipBase: 0x1000_0000 + p * 128 * KiB, size: 128 * KiB })),
  ];
}
