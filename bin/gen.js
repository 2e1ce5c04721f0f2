#!/usr/bin/env node
// The `gen` command. The TypeScript sources are compiled to dist/ by `npm ci` / `npm run build`, which also writes
// `gen firmware` as one CommonJS function with V8's code cache (dist/generator/cli/gen.bundle: faster to start,
// scripts/bundle-cli.ts, generator/cli/bundle-loader.ts) when esbuild is installed; every other command, and firmware
// without the bundle, runs from the modules. This file is CommonJS (bin/package.json): Node then starts no ES-module
// loader for `gen firmware` from the bundle (~10 ms of CPU, node --cpu-prof).
'use strict';
const { existsSync } = require('node:fs');
const { join } = require('node:path');
const { pathToFileURL } = require('node:url');

const cli = join(__dirname, '..', 'dist', 'generator', 'cli');
if (!existsSync(join(cli, 'main.js'))) {
  console.error('gen: firmgen is not built; run `npm run build` in its folder first');
  process.exit(2);
}
// The command is the first word that is not an option, as gen.ts reads it.
const firmware = process.argv.slice(2).find((a) => !a.startsWith('-')) === 'firmware';
// A bundle that does not load (a file cut short, from an older build) leaves the command to the modules, which
// generate the same bytes: a start-up shortcut never stops a user with a stack trace.
let bundle;
if (firmware && existsSync(join(cli, 'gen.bundle')) && existsSync(join(cli, 'bundle-loader.cjs'))) {
  try {
    bundle = require(join(cli, 'bundle-loader.cjs')).loadBundle(cli);
  } catch {
    bundle = undefined;
  }
}
if (bundle) {
  bundle.gen(process.argv).then((code) => {
    if (code !== undefined) process.exit(code);
  });
} else {
  import(pathToFileURL(join(cli, 'main.js')).href);
}
