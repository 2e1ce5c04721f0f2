// Cost classes of `chip.compute(cls, units)`: what one unit of work is. The emulator's per-chip tables
// (emulator/assembly/cost.ts) import these ids, so firmware and emulator cannot disagree on the numbering.
// The cycles per unit of each class, per chip, and where they come from: docs/timing.md.

/** One multiply-accumulate of a dense (im2col) convolution. */
export const MAC_CONV: i32 = 0;
/** One multiply-accumulate of a depthwise convolution. */
export const MAC_DW: i32 = 1;
/** One multiply-accumulate of a GEMM / fully connected layer / MatMul. */
export const MAC_GEMM: i32 = 2;
/** One output element of an elementwise op (add, sub, mul, max, relu, copy with a cast, ...). */
export const ELEMENT: i32 = 3;
/** One requantized output (acc * mul + add) >> shift, clipped, stored. */
export const REQUANT: i32 = 4;
/** One byte moved by a core (memcpy, im2col gather, transpose, pad). */
export const COPY_BYTE: i32 = 5;
/** One element of an integer softmax row, divisions excluded (charge those as DIV). */
export const SOFTMAX_ELEM: i32 = 6;
/** One element of an integer layer/RMS norm row, divisions and the square root excluded. */
export const NORM_ELEM: i32 = 7;
/** One integer division. */
export const DIV: i32 = 8;
/** Fixed overhead of one kernel call on one core (prologue, argument struct, share computation). */
export const CALL: i32 = 9;

/** One element moved by a data-movement kernel (Transpose, Slice, Concat, Pad, a cast copy): the C walks it by index. */
export const MOVE_ELEM: i32 = 10;
/** One window tap inside the input of a pooling output outside the paired steps (MaxPool: a load and a max). */
export const POOL_TAP: i32 = 11;

/**
 * One unit of the cores' SIMD conv loop (a pixel pair x a block of output channels, conv.c's `cdot`): its indices,
 * the gather's set-up and the accumulators' start, whatever the unit's MACs and outputs.
 */
export const CONV_UNIT: i32 = 12;
/**
 * One operation or streamed operand of a fused elementwise expression, per element (an add, a multiply, a shift, a
 * clip; a load of an operand that varies over the loop): ELEMENT is the element's store and loop.
 */
export const ELEM_OP: i32 = 13;
/**
 * One output row of the cores' conv row path (conv.c's `rowdot`: one input channel per output, depthwise or a single
 * input channel): its filter rows assembled as words, its pixel pairs' loop; the MACs and outputs are charged apart.
 */
export const CONV_ROW: i32 = 14;
/**
 * One window row gathered by the cores' SIMD conv loop on its paired path (conv.c `pairRows`: one word of the input
 * row serves both pixels of a pair, a load and two stores whatever the window's width); the unpaired path's taps
 * are COPY_BYTE.
 */
export const GATHER_ROW: i32 = 15;
/**
 * The extra of a requantization whose product needs 64 bits (acc * mul past int32: a high multiply, carries, a
 * two-word shift), on top of its REQUANT.
 */
export const REQUANT_WIDE: i32 = 16;
/** One unit of the cores' GEMM loop (an output row, or a row's column chunk): its indices and pointers, the choice of path. */
export const GEMM_UNIT: i32 = 17;
/** One output row of one plane of the cores' pooling loop: its indices and window bounds. */
export const POOL_ROW: i32 = 18;
/** One MAC of the cores' scalar conv loop (neither the SIMD nor the row path): a tap checked against the borders. */
export const MAC_SCALAR: i32 = 19;
/** One value summed by the cores' reduction loop (ReduceSum, ReduceMean, GlobalAveragePool): a load and an add. */
export const REDUCE_ELEM: i32 = 20;

/**
 * One word of an input row read by the cores' conv row path (conv.c `rowdot`, fg_row_word): one per window row for a
 * pixel pair at stride 1, one per pixel above; the MACs and outputs are charged apart, the row's filter words as
 * CONV_ROW.
 */
export const ROW_WORD: i32 = 21;
/**
 * One MAC of the cores' scalar GEMM loop (neither SIMD path: k below 4, operands wider than a byte): two loads and
 * a multiply-add, no bound test (the conv's scalar loop is MAC_SCALAR).
 */
export const MAC_GEMM_SCALAR: i32 = 22;
/**
 * One MAC of the cores' GEMM loop for a B contiguous in n (gemm.c `kdot`: an A word against four B rows transposed
 * in registers, four dot products per 16 MACs): attention's value product.
 */
export const MAC_GEMM_KDOT: i32 = 23;
/**
 * One call of the GEMM's 4x2 register block (firmgen_simd.h fg_dot4x2: four columns of two rows, or of one row taken
 * as both): its hardware loop's set-up, the eight accumulators zeroed, stored and read back; the MACs and outputs are
 * charged apart. Short k (a 16-wide projection) spends as much here as in the loop.
 */
export const GEMM_BLOCK: i32 = 24;
/**
 * One MAC of a GEMM row the cores take alone (a classifier's single row, a core's odd last row) through the 4x2
 * register block with the row as both of its rows: the XpulpV2 loop computes every product twice, the plain C
 * inlined shares the loads and some of the work between the equal halves (measured per platform by the fit).
 */
export const MAC_GEMM_LONE: i32 = 25;
/**
 * One step of the cores' 2x2 stride-2 max pool on bytes (maxpool.c `simd22`): two outputs from a word of each of the
 * window's two input rows (two lane-wise maxima, two byte stores). Outputs outside it pay POOL_TAP per tap.
 */
export const POOL_PAIR: i32 = 26;
/**
 * One MAC of the cores' GEMM 1x2 loop (firmgen_simd.h fg_dot1x2: per 4 k three words and two dot products): the
 * columns a row has past its four-column groups, with a paired row or two columns of a row alone.
 */
export const MAC_GEMM_COL: i32 = 27;
/** One output of those columns: the 1x2 loop's set-up, its k tail in C and its share of the call, apart from its MACs. */
export const GEMM_COL: i32 = 28;
/**
 * One value an elementwise expression's clamp changes, on a core without p.clip: the C's clamp (firmgen_simd.h plain
 * fg_clip) branches to an out-of-line block for it. The AS counts them (support.ts fg_clip_count).
 */
export const CLIP_TAKEN: i32 = 29;
/**
 * A pixel pair of the cores' depthwise row path (conv.c `rowdot`) whose words reach into the padding's columns: it
 * finds them through fg_row_at and shifts each window row's word, where the pairs inside the row read it as it lies.
 */
export const ROW_EDGE: i32 = 30;
/**
 * One output of the depthwise row path: its share of the pixel-pair loop and its output stage (requantization,
 * clamp, store), which the row path computes inline, apart from REQUANT, the other kernels' output stage.
 */
export const ROW_OUT: i32 = 31;
/**
 * Four channels of a 1x1 conv's paired gather (conv.c `pointwise`): four half-word loads, the two pixels' column
 * words packed from them, two word stores.
 */
export const GATHER_QUAD: i32 = 32;
/**
 * One output of a requantization whose product passes int32 computed as two halves split at bit 16 (backend/expr.ts
 * splitRequantExpr: two multiplies and three shifts, no mulh), charged in place of REQUANT_WIDE's 64-bit steps.
 */
export const REQUANT_SPLIT: i32 = 33;
/**
 * One entry of a table read by 8-bit codes (kernels/gather.ts `lookup`: the quantizer's and the QDQ lowering's
 * 256-entry tables): the code's load, its wrap, the entry's load, the store.
 */
export const LOOKUP: i32 = 34;
/**
 * One entry of a TableSoftmax row (kernels/table-softmax.ts: the QDQ Softmax): its load and max, its table entry and
 * sum, its division by the row sum and the store; one class for the whole entry, measured on its own calibration layer.
 */
export const TSOFTMAX_ELEM: i32 = 35;
/** One row of a QLayerNorm (kernels/qlayernorm.ts): its sums, the integer square root, the denominator. */
export const QNORM_ROW: i32 = 36;
/** One entry of a QLayerNorm row: its centred value, its square, its numerator, the division and the store. */
export const QNORM_ELEM: i32 = 37;
/**
 * One clamp of an elementwise expression evaluated, on a core without p.clip: the C's plain fg_clip compares the
 * value with both bounds and branches (not taken unless it clips, CLIP_TAKEN); with p.clip it is one ELEM_OP.
 */
export const CLIP_TEST: i32 = 38;
/**
 * One operand of an elementwise expression loaded per element (it varies along the loop), on a core without p.clip:
 * its load, address and the load-use wait, apart from the ALU operations (ELEM_OP); with XpulpV2 (post-increment
 * loads) an operand is one ELEM_OP.
 */
export const ELEM_LOAD: i32 = 39;
/**
 * One call of the conv's 4-channel x 2-pixel register block (conv.c `fg_dot4x2_*`, once per chunk of taps): its
 * accumulators' start from the bias, the dot products' loop set-up and, for the fused chunk, the block's outputs
 * handed to the output stage; apart from the MACs (MAC_CONV) and the unit's indices and gather (CONV_UNIT).
 */
export const CONV_BLOCK: i32 = 40;
/**
 * One output of the conv's SIMD path (conv.c `FG_CONV_OUT`): its channel's row address, multiplier and offset, the
 * requantization and the store. Its own class because the C differs from the GEMM's and the scalar conv's output
 * stage (REQUANT), as the row path's does (ROW_OUT).
 */
export const CONV_OUT: i32 = 41;
/**
 * One share of a kernel's work computed (the C's hal_share_begin and hal_share_end: the team size and a division by
 * it in each), charged by share_end (cluster.ts) where the C calls them; the SIMD conv deals its units round-robin
 * and computes none.
 */
export const SHARE: i32 = 42;
/**
 * One output of a reduction (reduce.c.mustache): its index, the loops' entry, a power-of-two mean's shift and the
 * store; apart from its values (REDUCE_ELEM) and a mean's division by another count (DIV).
 */
export const REDUCE_OUT: i32 = 43;
/**
 * A lane maximum of int8 activations through the portable SIMD emulation (firmgen_simd.h fg_max4_s, a core without
 * packed SIMD): the sign flips of both words that the uint8 maximum does without; charged per maximum (2x2 pool).
 */
export const LANE_SIGN: i32 = 44;
/**
 * A word of an int8 input row that the depthwise row path takes through the portable SIMD emulation (firmgen_simd.h
 * fg_dot4_s*, a core without packed SIMD): its lanes' sign extension, which a uint8 row's zero extension does without;
 * charged per input-row word (ROW_WORD) on such cores only.
 */
export const ROW_SIGN: i32 = 45;
/**
 * One output channel of a SIMD conv unit whose accumulators live in memory (conv.c `accs`: a filter longer than one
 * chunk of taps, whose blocks add to them chunk after chunk, or the channels a fused unit's blocks of four leave): their
 * start from the bias and their read back for the output stage, which the fused blocks do in registers.
 */
export const CONV_ACC: i32 = 46;

/**
 * A tile's driving by core 0 in a tiled layer's loop, beside the kernel call every core makes (CALL): the C's tile
 * record read, its transfers programmed and waited for, the barriers' own code. Charged per tile on core 0 before the
 * cores compute; an untiled layer has none.
 */
export const TILE: i32 = 47;

/**
 * A word load that is not word-aligned, on a core whose word loads take any address (XpulpV2: the int8 SIMD kernels'
 * rows of a length that is not a multiple of 4): CV32E40P splits it into two bus accesses, one cycle more than an
 * aligned load. Counted where the kernel knows its rows' addresses (the GEMM's SIMD path, gemm.ts.mustache).
 */
export const MISALIGNED: i32 = 48;

/**
 * A MAC of the GEMM's k tail (K not a multiple of 4) after its SIMD loops: the C's scalar loop over the last 1..3 k
 * (gemm.c.mustache), byte loads and a multiply-add per product, charged per MAC in place of the SIMD class.
 */
export const MAC_GEMM_TAIL: i32 = 49;

/**
 * A layer's own work on the cluster beside its tiles: the fork of the layer function onto the team, its set-up before
 * the first tile and its end; charged once per fork, on core 0 when it first runs in the team (runtime/as/cluster.ts
 * enterCore).
 */
export const LAYER: i32 = 50;

/**
 * Four k of a pair of B's columns copied out as rows along k by the GEMM's transposed-B path for a run of whole rows
 * (gemm.c.mustache `kdot.runs`): four half-word loads down B's rows, the two columns' words packed from them
 * (fg_pair_cols), two word stores, the loop's pointer steps and branch.
 */
export const GEMM_BT_QUAD: i32 = 51;

/**
 * The extra of an iSoftmax entry whose exponent chain needs 64-bit words (kernels/softmax.ts `eT`: a wide input's
 * range, a decoder's attention scores), beside SOFTMAX_ELEM: on rv32 its two passes subtract, square, scale and shift
 * by z in word pairs (three multiplies for a square, a branch for a shift past 31).
 */
export const SOFTMAX_WIDE: i32 = 52;
/**
 * The extra of an iSoftmax entry whose row sum and numerators need 64-bit words (`sT`), beside SOFTMAX_ELEM: the sum's
 * add with carry, the numerator's 64-bit product and the test that takes the 32-bit division when both fit.
 */
export const SOFTMAX_SUM_WIDE: i32 = 53;

/**
 * The extra of an iSoftmax entry whose z = -xt / log2 is a multiply by the reciprocal (kernels/softmax.ts
 * reciprocalOf: an input wider than a byte, log2 not a power of two), beside SOFTMAX_ELEM: a mulhu of 5 cycles in each
 * of the two passes, where from a byte gcc folds the division into compares.
 */
export const SOFTMAX_RECIP: i32 = 54;

/**
 * A GEMM call's first unit split into its column chunk, row and batch (gemm.c's `start % chunks`, `start / chunks % M`,
 * ...) on a team of more than one core: hardware divisions on rv32 (gcc 12 makes no multiply of a constant division),
 * which on one core gcc folds away (the share starts at 0). Charged once per call on each core of a team; measured
 * by the fit on the whole team only (scripts/cost-fit/team.ts).
 */
export const GEMM_SPLIT: i32 = 55;

/**
 * One DMA transfer programmed by the core that drives a tiled layer (firmgen_tiles.h fg_tile_issue_record: a record's
 * five words read, hal_dma_copy_* called), beside TILE. Measured by the fit on the whole team.
 */
export const TRANSFER: i32 = 56;

/**
 * A pixel pair of the depthwise row path at a stride above 1 whose words reach into the padding's columns (conv.c's
 * strided FG_DW_EDGE: a word per pixel through fg_row_at, each pixel's use tested), where ROW_EDGE is the stride-1
 * pair's (one word shared by both pixels): two code paths, two costs.
 */
export const ROW_EDGE_STRIDED: i32 = 57;

/**
 * An output row of the depthwise row path with pixel pairs inside the input row: the set-up of the loop that takes
 * them (on XpulpV2 the hardware loop of kernels/dw-asm.ts, else the C loop), which a row of edge pairs alone, each a
 * statement of its own, does not have.
 */
export const ROW_LOOP: i32 = 58;

/**
 * A row of an iRMSNorm: the sum of squares' division by N, its integer square root, and (where the products fit 31
 * bits) the reciprocal of std that the row's divisions become multiplies by (rmsnorm.c), beside NORM_ELEM per entry.
 */
export const NORM_ROW: i32 = 59;

/**
 * A run of the elementwise template's innermost loop on a core (elementwise.c's `while (e < end)`: its count, its
 * operands' offsets from the indices, the odometer step), beside ELEMENT per element: a transpose's runs of a few
 * elements pay it every few elements, a contiguous copy once a core.
 */
export const ELEM_RUN: i32 = 60;

/**
 * An iRMSNorm entry's square added to a 64-bit row sum (rmsnorm.c: rows whose squares can pass 2^31 in sum), beside
 * NORM_ELEM: an add with carry and a widening on an RV32 core.
 */
export const NORM_SUM_WIDE: i32 = 61;

/**
 * A layer's code fetched cold into the cluster's instruction cache by each core of the team when it first runs in
 * the layer: every layer's code is its own (specialised to its shapes), so none of it is cached when the layer
 * starts. Its lines are about a fixed part (CODE_LAYER) and a part per compiled byte (CODE_BYTE: the layer's cold C,
 * its kernel or its tile loop and first tile shape, comments left out, times the bytes gcc makes of a byte of that
 * kernel's C path, measured by the fit: Platform.codeRatios, backend/c-image.ts), charged once per core and layer (a
 * tiled layer's tile loop parts before and after its kernel on core 0 alone, where the C runs them: cluster.ts
 * layer_code); and for a tiled layer the tile loop's code that every tiled layer shares (the record walkers,
 * runtime/c/include/firmgen_tiles.h FG_TILE_SHARED, and the DMA HAL), on core 0, which drives the tiles: a unit of
 * CODE_TILES is a sixteenth of its cold fetch, charged for the part the code fetched since its last run has evicted
 * from the instruction cache (all of it at a run's first tiled layer; runtime/as/cluster.ts tilesEvicted). The C's
 * cycles for them are the RV32 core's instruction-fetch stalls (emulator/assembly/iss/icache.ts). 0 where the ISS
 * models no instruction cache.
 */
export const CODE_BYTE: i32 = 62;
export const CODE_LAYER: i32 = 63;
export const CODE_TILES: i32 = 64;

/**
 * The depthwise plane path (conv.c `plane`, kernels/dw-plane.ts): a band of output rows of one channel (DW_BAND: its
 * channel's filter words when they change, the band's row pointers and the loop over its rows), a row the band fills
 * in its buffer on the core's stack (DW_ROW: copied from the input, or zeroed where it lies in the padding) and a word
 * of such a row (DW_WORD; a row's last one to three bytes count as a word).
 */
export const DW_BAND: i32 = 65;
export const DW_ROW: i32 = 66;
export const DW_WORD: i32 = 67;
/** An output row of the plane path whose last pixel is alone (an odd width): that pixel's dot products and output
 * stage in C, after the hardware loop of the row's pairs. */
export const DW_LONE: i32 = 68;

/**
 * A window row of one pixel of the SIMD conv's unpaired gather (conv.c, stride 2 or windows past 3 columns: first
 * layers) copied as one word: a load from the input row and a store into the column, for windows of 3 or 4 taps on
 * XpulpV2 where the window and the word lie inside the row (kernels/conv.ts wordTaps, wordPixel). The other pixels'
 * taps go byte by byte (COPY_BYTE).
 */
export const GATHER_WORD: i32 = 69;

/**
 * A further kernel function of a layer fetched cold by a core of a team (runtime/as/cluster.ts): every tile shape of a
 * tiled layer is a C function of its own (its loop bounds are constants), so each core that runs a second or third
 * shape waits for that function's lines beside the layer's first (CODE_LAYER, CODE_BYTE), once per core and shape.
 * ASSUMPTION: charged on a team of more than one core only. On one core the same lines come in too, but the one-core
 * calibration's per-unit classes already carry them (fitted with it charged there, CONV_UNIT fell from 95 to 73 and
 * the large layers' fit got worse); on a team the eight cores ask for the same new lines at once and wait on the
 * cache's refill, which the team fit measures (scripts/cost-fit/team.ts).
 */
export const CODE_SHAPE: i32 = 70;

/**
 * The network skeleton's work between two layers, outside both: the rest of one layer's end mark, the call of the
 * next and its begin mark (runtime/c/rv32/layer_marks.c), on the core that runs the skeleton, with that layer's lines
 * of the skeleton fetched cold. Charged before every layer but a run's first (network.ts.mustache), so that a
 * network's cycles count what its layers' do not: ~190 ISS cycles a layer on Siracusa's cluster core 0, ~40 on the
 * generic core.
 */
export const SKELETON: i32 = 71;

/**
 * The tile loop's code that runs only from a layer's second tile on, fetched cold by core 0, which drives the tiles:
 * the next tile's record loaded and its transfers issued while the cores compute, the wait for a write-back still in
 * flight (tiled-layer.c.mustache). Once per layer of two tiles or more (runtime/as/cluster.ts tile_next_code), beside
 * CODE_TILES (a tiled layer's first tile's part): on the ISS core 0's fetch stalls exceed the other cores' by ~1,000
 * cycles in a one-tile layer and by ~1,550 in a two-tile one, whatever the kernel, a step that TILE (per tile) cannot
 * take. Not charged by an N-EUREKA layer's driver (its own tile loop, no calibration layer measures it) nor by the
 * planner (docs/timing.md, "The fit").
 */
export const CODE_NEXT: i32 = 72;

/**
 * The extra of an iSoftmax entry whose z is a division by a constant in 32 bits on an input wider than a byte, without
 * the reciprocal (log2 a power of two, or its reciprocal not exact over the range): gcc's shifts and sign fix, or its
 * multiply-high, in both passes. Beside SOFTMAX_ELEM, whose calibration takes z from 8-bit inputs (gcc folds the
 * division into compares there) and SOFTMAX_RECIP (a mulhu). Per entry (kernels/softmax.ts iSoftmaxWideCharges).
 */
export const SOFTMAX_ZDIV: i32 = 73;

/**
 * Core 0's work of an N-EUREKA layer's further tile between one write-back's wait and the next write-back's issue,
 * beyond its register accesses (the engine model's, a cycle each) and TRANSFER: the job's programming (the tile
 * record's words, the weight offset from a table in L2, the job function's calls), the waits' wake-ups and re-checks,
 * the write-back's issue. Per tile after the first (a layer of one tile is within its fixed costs without it), where
 * it lies between two write-backs: a layer whose write-backs outlast its jobs runs at that pace (docs/neureka.md
 * "Tile loop"). Measured by the fit on the N-EUREKA layers of several tiles on the whole team, with NPU_TILE
 * (scripts/cost-fit/npu-job.ts).
 */
export const NPU_JOB: i32 = 74;

/**
 * Core 0's driving of an N-EUREKA layer's further tile after the write-back's issue: the next tile's record copied to
 * L1 and waited for, its inputs' transfers programmed (TILE's work on a tile loop of the cores, without the team's
 * share of it). Per tile after the first, measured with NPU_JOB (scripts/cost-fit/npu-job.ts).
 */
export const NPU_TILE: i32 = 75;

/**
 * What a run's first layer pays beside LAYER for being the first: the runtime's code on core 0's path (the fork's wake
 * of the cores, the barriers, the layer marks, the DMA HAL) fetched into an empty instruction cache. Charged once a
 * run, on core 0 with its first layer's LAYER (runtime/as/cluster.ts enterCore), and at every N-EUREKA layer, whose
 * path is its own (cluster.ts layer_cold; two units where the run's first layer is an N-EUREKA one, which has both
 * causes): LAYER and the team's other fixed costs price a later layer, which finds
 * part of that code cached. Measured by the fit on the few-output layers run alone and after six layers of six
 * kernels (scripts/cost-fit/layers.ts inNetwork). Fitted on first layers only, LAYER priced a network's later small
 * layers over the ISS (docs/timing.md "A network's state for the fixed costs").
 */
export const CODE_RUN: i32 = 76;

/** Number of cost classes; ids are 0 .. NUM_CLASSES-1. */
export const NUM_CLASSES: i32 = 77;
