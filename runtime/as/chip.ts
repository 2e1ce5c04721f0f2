// The device API the firmware imports from the emulator (module "chip"). Contract: docs/firmware-abi.md.
// Prefer the wrappers in cluster.ts and memory.ts; these are the raw calls.

/** Linear base of region `i` (read once by memory.ts). */
@external("chip", "region_linear_base")
export declare function region_linear_base(i: i32): usize;

/** Chip address of region `i` (JS sees it as a signed i32; AS code as u32). */
@external("chip", "region_chip_base")
export declare function region_chip_base(i: i32): u32;

@external("chip", "region_size")
export declare function region_size(i: i32): u32;

@external("chip", "region_count")
export declare function region_count(): i32;

/** Cluster cores of the configured chip; 0 when the master runs forked work itself (generic). */
@external("chip", "core_count")
export declare function core_count(): i32;

/** Per-layer markers, on the current agent: the profile's events and the layer named in faults. */
@external("chip", "layer_begin")
export declare function layer_begin(layer: i32): void;

@external("chip", "layer_end")
export declare function layer_end(layer: i32): void;

/** Faults unless [ptr, ptr + bytes) lies inside one region; write != 0 for an output buffer. */
@external("chip", "check")
export declare function check(ptr: usize, bytes: i32, write: i32): void;

/**
 * A tile's output buffer [ptr, ptr + bytes) before its cores compute (first: the tile's first one, which disarms the
 * previous tile's): checked like check(), and guarded; tile_guard_end() after the compute faults if a core stored
 * just before or past it (emulator/assembly/check.ts). Not charged.
 */
@external("chip", "tile_guard")
export declare function tile_guard(ptr: usize, bytes: i32, first: i32): void;

@external("chip", "tile_guard_end")
export declare function tile_guard_end(): void;

/** The master starts a team of `cores` cluster cores (0: all); returns the team size. */
@external("chip", "fork")
export declare function fork(cores: i32): i32;

/** The following work runs on team core `core`. */
@external("chip", "enter")
export declare function enter(core: i32): void;

/** End of a phase: every share has run; all team clocks meet at the latest plus the barrier cost. */
@external("chip", "barrier")
export declare function barrier(): void;

/** End of the team: the master resumes at the latest team clock plus the join cost. */
@external("chip", "join")
export declare function join(): void;

/** The open layer's compiled code bytes as the C build made them, where the runner handed them over, else `estimate`. */
@external("chip", "layer_code_bytes")
export declare function layer_code_bytes(estimate: i32): i32;

/** The current agent spends `units` of cost class `cls` (cost.ts). */
@external("chip", "compute")
export declare function compute(cls: i32, units: i32): void;

/**
 * The current agent's `units` divisions by `divisor`, at the chip's division time for that divisor (a CV32E40P-class
 * core's divider takes longer the smaller the divisor; emulator cost.ts divisionQ). For divisions whose divisor the
 * firmware computes; others are charged as DIV.
 */
@external("chip", "divide")
export declare function divide(units: i32, divisor: i32): void;

/**
 * Stream `index` (0, 1, ...) of the current core's inner loop: `count` iterations of `period` cycles, one access at
 * `addr + i * step` each. Timing only (L1 bank conflicts, L2 latency; docs/firmware-abi.md "Memory streams").
 */
@external("chip", "mem_stream")
export declare function mem_stream(addr: usize, step: i32, count: i32, period: i32, index: i32): void;

/**
 * `count` accesses of the current core at addresses that follow the data (a table read by codes), in the memory of
 * `addr`: L2's latency each; no L1 bank slot. Timing only (docs/firmware-abi.md "Memory streams").
 */
@external("chip", "mem_latency")
export declare function mem_latency(addr: usize, count: i32): void;

/** The current agent's clock in cycles. */
@external("chip", "cycles")
export declare function cycles(): i64;

// Cluster DMA (emulator/assembly/dma.ts); use the mchan-shaped wrappers in dma.ts.

/** A free channel id (0..15), now this core's active channel: its following copies count on it. */
@external("chip", "dma_alloc")
export declare function dma_alloc(): i32;

@external("chip", "dma_free")
export declare function dma_free(ch: i32): void;

/** `bytes` between L1 and L2; a side with length 0 is contiguous, else rows of `length` every `stride` bytes. */
@external("chip", "dma_copy")
export declare function dma_copy(
  ch: i32, l1: usize, ext: usize, bytes: i32, toL1: i32,
  extLength: i32, extStride: i32, l1Length: i32, l1Stride: i32,
): void;

/** Sleeps until every transfer on the channel is complete; their data has then landed. */
@external("chip", "dma_wait")
export declare function dma_wait(ch: i32): void;

/** Siracusa's HyperRAM DMA: `bytes` between L2 and L3 (to L3 when toL3 != 0); blocks until the data is there. */
@external("chip", "l3_copy")
export declare function l3_copy(l2: usize, l3: usize, bytes: i32, toL3: i32): void;

// N-EUREKA NPU (emulator/assembly/neureka.ts; Siracusa only); use the pulp-nnx-shaped wrappers in neureka.ts.

/** Writes the NPU register at byte `offset` of 0x1020_1000 (docs/neureka.md). */
@external("chip", "npu_write")
export declare function npu_write(offset: i32, value: u32): void;

/** Reads the NPU register at byte `offset`; a read at or after a job's end observes it (its outputs land). */
@external("chip", "npu_read")
export declare function npu_read(offset: i32): u32;

/** Event unit "wait and clear" on the NPU completion event (one buffered event per core). */
@external("chip", "npu_event_wait")
export declare function npu_event_wait(): void;
