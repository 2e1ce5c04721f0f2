/** The fashion-cnn example: `node dist/examples/fashion-cnn/run.js [--scheme per-tensor|per-channel|pow2] [--calibrate minmax|mse] [--emulate N]`. */
import { runFashionExample } from '../fashion-run.js';

await runFashionExample('fashion-cnn');
