/**
 * The Tangram-style tiled accelerator as data (HARDWARE.md "Tangram-style tiled accelerator"; Gao et al., "Tangram:
 * Optimized Coarse-Grained Dataflow for Scalable NN Accelerators", ASPLOS'19; the cost figures are the defaults of
 * stanford-mast/nn_dataflow's search tool, nn_dataflow/tools/nn_dataflow_search.py, the tool Tangram was evaluated
 * with). Every figure carries its source; the ones without a public source are labelled ASSUMPTION.
 *
 * Energy is in pJ. nn_dataflow's defaults are costs relative to one 16-bit MAC (op 1, DRAM 200, global buffer 6,
 * array interconnect 2, register file 1, NoC hop 10 per word); they are the normalised access energies of Eyeriss
 * (Chen et al., ISCA'16, Fig. 1: ALU 1x, RF 1x, PE-to-PE 2x, buffer 6x, DRAM 200x). ASSUMPTION: one unit is 1 pJ
 * (the order of a 16-bit MAC in the 28-65 nm nodes these papers use); GOPS/W figures scale with that choice, the
 * comparisons between dataflows (ratios) do not.
 */
export interface TangramHardware {
  /** Engines in the mesh: rows x columns. */
  grid: { rows: number; cols: number };
  /** PEs per engine: rows x columns (each one 16-bit MAC per cycle). */
  array: { rows: number; cols: number };
  /** Bytes of register file per PE. */
  regfBytes: number;
  /** Bytes of SRAM buffer per engine. */
  bufferBytes: number;
  /** Bytes of one data word (16-bit fixed point: 2; the int8 functional mode moves 1-byte words). */
  wordBytes: number;
  noc: {
    /** Cycles a flit spends per router hop. */
    hopCycles: number;
    /** Words one mesh link carries per cycle. */
    linkWordsPerCycle: number;
  };
  dram: {
    /** Memory channels, half on the west edge of the mesh and half on the east edge. */
    channels: number;
    /** Bytes per cycle of the accelerator's clock one channel delivers. */
    bytesPerCycle: number;
  };
  clockHz: number;
  /** pJ per event (see above). */
  energy: {
    mac: number;
    regf: number;
    /** A word crossing the engine's array bus from the buffer to the PEs. */
    itcn: number;
    buffer: number;
    /** One word over one NoC link. */
    hop: number;
    /** One word read from or written to DRAM. */
    dramWord: number;
    /** Static pJ of the whole chip per cycle (nn_dataflow's --unit-idle-cost, default 0). */
    idlePerCycle: number;
  };
}

/** The chip of the issue and of Tangram's evaluation. */
export const TANGRAM_DEFAULT: TangramHardware = {
  // HARDWARE.md: 16x16 engines, each an 8x8 PE array with 64-byte register files and a 32 KiB buffer (Tangram's
  // evaluated configuration, ASPLOS'19 Sec. 6).
  grid: { rows: 16, cols: 16 },
  array: { rows: 8, cols: 8 },
  regfBytes: 64,
  bufferBytes: 32 * 1024,
  // nn_dataflow_search.py --word default 16 bits; Tangram evaluates 16-bit fixed point.
  wordBytes: 2,
  noc: {
    // ASSUMPTION: a single-cycle router per hop, the usual figure for a small on-chip mesh.
    hopCycles: 1,
    // ASSUMPTION: 64-bit links, 4 words of 16 bits per cycle per direction.
    linkWordsPerCycle: 4,
  },
  dram: {
    // HARDWARE.md: 4 LPDDR4 channels at the chip edges; nn_dataflow's default memory type '2D' puts the memory
    // nodes on two sides of the mesh (west and east).
    channels: 4,
    // JEDEC LPDDR4-3200: a x16 channel at 3200 MT/s moves 6.4 GB/s; at the ASSUMPTION 500 MHz clock below that is
    // 12.8 bytes per cycle per channel (25.6 GB/s for the four).
    bytesPerCycle: 12.8,
  },
  // ASSUMPTION: 500 MHz, the order of the clocks of Eyeriss-class engines (Eyeriss ISCA'16 runs at 200-250 MHz in
  // 65 nm); the model counts cycles, the clock only turns them into seconds and GOPS.
  clockHz: 500_000_000,
  energy: {
    // nn_dataflow_search.py defaults (--op-cost 1, --hier-cost 200 6 2 1, --hop-cost 10, --unit-idle-cost 0).
    mac: 1,
    regf: 1,
    itcn: 2,
    buffer: 6,
    hop: 10,
    dramWord: 200,
    idlePerCycle: 0,
  },
};

/**
 * The monolithic comparison point of Tangram's evaluation: the same PEs and the same SRAM as one engine, a
 * 128x128 array (16x16 engines of 8x8 PEs) with one 8 MiB buffer (256 x 32 KiB), on the same DRAM.
 */
export function monolithicOf(h: TangramHardware): TangramHardware {
  return {
    ...h,
    grid: { rows: 1, cols: 1 },
    array: { rows: h.array.rows * h.grid.rows, cols: h.array.cols * h.grid.cols },
    bufferBytes: h.bufferBytes * h.grid.rows * h.grid.cols,
  };
}

export function engineCount(h: TangramHardware): number {
  return h.grid.rows * h.grid.cols;
}

export function pesPerEngine(h: TangramHardware): number {
  return h.array.rows * h.array.cols;
}
