// BrainScaleS-2's analog core for AS firmware: the emulator's device calls (emulator/assembly/brainscales2/api.ts;
// docs/brainscales2.md "Firmware interface"). Addresses are linear (memory.ts), as the DMA's are.

/** The emulated chip: its fixed pattern (seed; pattern 0 = none) and a fresh temporal noise stream (std 0 = none). */
@external("chip", "bss2_chip")
export declare function bss2_chip(seed: u32, pattern: i32, noiseSeed: u32, noiseStd: f64): void;

/** Writes int8 weights in [-63, 63] (rows `stride` bytes apart) to signed rows row0.., columns col0.. of `array`. */
@external("chip", "bss2_configure")
export declare function bss2_configure(array: i32, row0: i32, col0: i32, rows: i32, cols: i32, w: usize, stride: i32): void;

/** One analog vector-matrix multiply: `rows` u8 inputs in [0, 31] at x, `cols` int8 outputs to y. */
@external("chip", "bss2_run")
export declare function bss2_run(array: i32, row0: i32, col0: i32, rows: i32, cols: i32, x: usize, y: usize, numSends: i32, wait: i32, gain: f64): void;
