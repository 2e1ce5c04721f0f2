#!/usr/bin/env node
// The `gen` command. The TypeScript sources are compiled to dist/ by `npm ci` / `npm run build`, which also writes
// `gen firmware` as one CommonJS function with V8's code cache (dist/generator/cli/gen.bundle: faster to start,
// scripts/bundle-cli.ts, generator/cli/bundle-loader.ts) when esbuild is installed; every other command, and firmware
// without the bundle, runs from the modules.
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const cli = fileURLToPath(new URL('../dist/generator/cli/', import.meta.url));
if (!existsSync(`${cli}main.js`)) {
  console.error('gen: firmgen is not built; run `npm run build` in its folder first');
  process.exit(2);
}
// The command is the first word that is not an option, as gen.ts reads it.
const firmware = process.argv.slice(2).find((a) => !a.startsWith('-')) === 'firmware';
if (firmware && existsSync(`${cli}gen.bundle`)) {
  const { loadBundle } = await import('../dist/generator/cli/bundle-loader.js');
  const code = await loadBundle(cli).gen(process.argv);
  if (code !== undefined) process.exit(code);
} else {
  await import('../dist/generator/cli/main.js');
}
