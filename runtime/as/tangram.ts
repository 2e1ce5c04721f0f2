// The Tangram engines for AS firmware: the emulator's engine model (emulator/assembly/tangram/engines.ts) runs one
// layer's per-engine program (generator/platforms/tangram/programs.ts) and, with `functional` 1, its arithmetic on
// the operands at these linear addresses (int8 x, int8 w, int32 bias or 0, int32 y). Returns the layer's cycles;
// the control core has waited for them when it returns.

@external("chip", "tangram_run")
export declare function tangram_run(program: usize, words: i32, x: usize, w: usize, b: usize, y: usize, functional: i32): i64;
