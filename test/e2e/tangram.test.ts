import { platformSuite } from './platform-suite.js';

/**
 * Tangram: every integer folder of the peer's vectors, exact. Conv, Gemm/MatMul and MaxPool layers run as engine
 * programs, the searched dataflow's pipelined segments as one program each (docs/tangram.md), the other layers on the
 * chip's control core with the shared kernels; the searched dataflow is checked in test/tangram/platform.test.ts.
 */
platformSuite('tangram');
