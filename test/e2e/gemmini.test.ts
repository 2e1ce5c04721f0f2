import { platformSuite } from './platform-suite.js';

/**
 * Gemmini: every integer folder of the peer's vectors, exact. Its int8 matrix products run on the emulated array
 * (loop_ws, platforms/gemmini/matmul-kernel.ts), the rest on the host core; gemmini-kernel.test.ts checks which.
 */
platformSuite('gemmini');
