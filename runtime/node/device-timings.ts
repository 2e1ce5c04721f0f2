/**
 * The devices' busy intervals from the emulator's event log: cluster DMA transfers, N-EUREKA jobs and HyperRAM
 * copies, as both run modes record them (the AS path's models and the RV32 core's devices write the same records,
 * emulator/assembly/events.ts), with their detail words decoded and their agents named.
 */
import { dmaDetail, l3Detail, npuDetail, type EmulatorEvent } from './emulator.js';
import type { DmaTiming, L3Timing, NpuTiming } from './run.js';

export interface DeviceTimings {
  dma: DmaTiming[];
  npu: NpuTiming[];
  l3: L3Timing[];
}

export function deviceTimings(events: EmulatorEvent[], agentName: (agent: number) => string): DeviceTimings {
  const common = (e: EmulatorEvent): { agent: number; agentName: string; layer: number; start: number; end: number } => ({
    agent: e.agent, agentName: agentName(e.agent), layer: e.layer, start: e.start, end: e.end,
  });
  return {
    dma: events.filter((e) => e.kind === 'dma').map((e) => ({ ...dmaDetail(e.detail), ...common(e) })),
    npu: events.filter((e) => e.kind === 'npu').map((e) => ({ ...npuDetail(e.detail), ...common(e) })),
    l3: events.filter((e) => e.kind === 'l3').map((e) => ({ ...l3Detail(e.detail), ...common(e) })),
  };
}
