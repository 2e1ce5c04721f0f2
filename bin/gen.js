#!/usr/bin/env node
// The `gen` command. The TypeScript sources are compiled to dist/ by `npm ci` / `npm run build`.
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const main = new URL('../dist/generator/cli/main.js', import.meta.url);
if (!existsSync(fileURLToPath(main))) {
  console.error('gen: firmgen is not built; run `npm run build` in its folder first');
  process.exit(2);
}
await import(main.href);
