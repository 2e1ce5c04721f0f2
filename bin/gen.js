#!/usr/bin/env node
// The `gen` command. The TypeScript sources are compiled to dist/ by `npm ci` / `npm run build`, which also writes
// `gen firmware` as one file (main.bundle.js: faster to load, scripts/bundle-cli.ts) when esbuild is installed; every
// other command, and firmware without the bundle, runs from the modules.
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const main = new URL('../dist/generator/cli/main.js', import.meta.url);
const bundle = new URL('../dist/generator/cli/main.bundle.js', import.meta.url);
if (!existsSync(fileURLToPath(main))) {
  console.error('gen: firmgen is not built; run `npm run build` in its folder first');
  process.exit(2);
}
// The command is the first word that is not an option, as main.ts reads it.
const firmware = process.argv.slice(2).find((a) => !a.startsWith('-')) === 'firmware';
await import(firmware && existsSync(fileURLToPath(bundle)) ? bundle.href : main.href);
