import { platformSuite } from './platform-suite.js';

/**
 * Tangram: every integer folder of the peer's vectors, exact. The layers run on the chip's control core with the
 * shared kernels (the engines' programs are not generated yet, docs/tangram.md); the searched dataflow is checked in
 * test/tangram/platform.test.ts.
 */
platformSuite('tangram');
