// Static sizes of the per-agent tables. Its own module so that agents.ts and events.ts, which import each other's
// functions, never need each other's globals during initialisation (asc rejects that cycle).

/**
 * Agents besides agent 0 the static clock arrays hold: Siracusa's 8 cluster cores, or SpiNNaker2's worker PEs
 * (152 PEs per chip, HARDWARE.md "processing elements": PE 0 is agent 0, the scheduler, PE k is agent k).
 */
export const MAX_CORES: i32 = 151;
/** Agent 0 (the master, or SpiNNaker2's scheduler PE) plus the others. */
export const MAX_AGENTS: i32 = MAX_CORES + 1;
