// Static sizes of the per-agent tables. Its own module so that agents.ts and events.ts, which import each other's
// functions, never need each other's globals during initialisation (asc rejects that cycle).

/** Cluster cores the static clock arrays hold: a chip with more cores must raise it. */
export const MAX_CORES: i32 = 8;
/** The master plus the cluster cores. */
export const MAX_AGENTS: i32 = MAX_CORES + 1;
