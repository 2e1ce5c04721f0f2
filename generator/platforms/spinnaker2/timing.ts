/**
 * The emulator's SpiNNaker2 timing parameters, as the generator's cost model uses them. Their sources and
 * assumptions are written once, in emulator/assembly/chips/spinnaker2.ts; a test keeps these equal to it.
 */
export const S2 = {
  clockHz: 300_000_000,
  pes: 152,
  nocLatency: 32,
  nocSend: 3,
  irqEntry: 12,
  dmaLatency: 64,
  dmaIssue: 4,
  /** Cycles per byte of one PE's DMA, and of the DRAM (6.4 GB/s at 300 MHz), shared by the PEs of a round. */
  dmaCyclesPerByte: 8192 / 65536,
  dramCyclesPerByte: 3072 / 65536,
  mlaRows: 4,
  mlaCols: 16,
  mlaDrain: 16,
  mlaSetup: 10,
} as const;

/** Cycles of one DMA transfer of `bytes` while `active` PEs share the DRAM (pe-dma.ts). */
export function dmaCycles(bytes: number, active: number): number {
  return S2.dmaIssue + S2.dmaLatency + bytes * Math.max(S2.dmaCyclesPerByte, active * S2.dramCyclesPerByte);
}

/** Cycles of one MLA job: blocks of 4 rows x 16 columns, K cycles each plus the drain (mla.ts). */
export function mlaCycles(m: number, n: number, k: number): number {
  return S2.mlaSetup + Math.ceil(m / S2.mlaRows) * Math.ceil(n / S2.mlaCols) * (k + S2.mlaDrain);
}

/**
 * What a layer costs beyond its tiles, for `workers` workers (pes.ts, the firmware's loops): the scheduler fetches
 * the header and its block and raises one interrupt per worker; a worker wakes, fetches header, parameters and its
 * block, and at the end writes its stamps and signals; the scheduler wakes on the last completion and writes its
 * stamps. The j-th worker starts j raises after the first.
 */
export function layerOverhead(workers: number, paramBytes: number, blockBytes: number): { before: number; after: number; perWorker: number } {
  const fetch = (bytes: number, active: number): number => dmaCycles(bytes, active);
  const sched = fetch(32, 1) + fetch(4 * workers, 1);
  const worker = S2.irqEntry + fetch(32, workers) + fetch(paramBytes, workers) + fetch(blockBytes, workers) + fetch(16, workers) + S2.nocSend;
  return {
    before: sched + S2.nocSend + S2.nocLatency,
    perWorker: worker,
    after: S2.nocLatency + S2.irqEntry + fetch(16, 1),
  };
}
