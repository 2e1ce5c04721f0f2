// The Tangram engines for AS firmware: the emulator's engine model (emulator/assembly/tangram/engines.ts) runs one
// layer's per-engine program (generator/platforms/tangram/programs.ts) and, with `functional` 1, its arithmetic on
// the operands at these linear addresses (x, w, the bias or 0, y, the requantization's mul and add or 0; their element
// types are in the program). Returns the layer's cycles; the control core has waited for them when it returns.

@external("chip", "tangram_run")
export declare function tangram_run(program: usize, words: i32, x: usize, w: usize, b: usize, y: usize, mul: usize, add: usize, functional: i32): i64;
