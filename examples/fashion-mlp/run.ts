/** The fashion-mlp example: `node dist/examples/fashion-mlp/run.js [--scheme per-tensor|per-channel|pow2] [--calibrate minmax|mse] [--emulate N]`. */
import { runFashionExample } from '../fashion-run.js';

await runFashionExample('fashion-mlp');
