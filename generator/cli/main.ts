import { gen } from './gen.js';

/** The `gen` process (bin/gen.js): runs the command and, on an error, exits at once with its code (gen.ts). */
const code = await gen(process.argv);
if (code !== undefined) process.exit(code);
