/**
 * `npm test`: runs every compiled test file (dist/test/**\/*.test.js) in its own Node process, two at a time
 * (the machines have two cores), streams their output, and ends with the line CI reads: `N passed, N failed`.
 * A file that crashes before uvu reports counts as one failure.
 */
import { spawn } from 'node:child_process';
import { readdirSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(fileURLToPath(import.meta.url), '..', '..', '..');
const testDir = join(root, 'dist', 'test');
const filter = process.argv[2] ? new RegExp(process.argv[2]) : undefined;

function findTests(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true, recursive: true })
    .filter((e) => e.isFile() && e.name.endsWith('.test.js'))
    .map((e) => join(e.parentPath, e.name))
    // The filter sees the path from the repository root (dist/test/...): a checkout's own folder name never matches.
    .filter((f) => !filter || filter.test(relative(root, f)))
    .sort();
}

interface Outcome { file: string; passed: number; failed: number; output: string; ms: number }

function runOne(file: string): Promise<Outcome> {
  const t0 = Date.now();
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [file], { cwd: root, env: { ...process.env, FORCE_COLOR: '0' } });
    let output = '';
    child.stdout.on('data', (d: Buffer) => { output += d.toString(); });
    child.stderr.on('data', (d: Buffer) => { output += d.toString(); });
    child.on('close', (code) => {
      const total = Number(/Total:\s+(\d+)/.exec(output)?.[1] ?? NaN);
      const passed = Number(/Passed:\s+(\d+)/.exec(output)?.[1] ?? NaN);
      const skipped = Number(/Skipped:\s+(\d+)/.exec(output)?.[1] ?? 0);
      const p = Number.isNaN(passed) ? 0 : passed;
      let f = Number.isNaN(total) ? 1 : total - passed - skipped;
      if (code !== 0 && f === 0) f = 1;
      if (skipped > 0) f += skipped; // a skipped case is a defect here, never a pass
      resolve({ file, passed: p, failed: f, output, ms: Date.now() - t0 });
    });
  });
}

const files = findTests(testDir);
const queue = [...files];
const outcomes: Outcome[] = [];
const workers = Array.from({ length: Math.min(2, files.length) }, async () => {
  for (let f = queue.shift(); f; f = queue.shift()) {
    const o = await runOne(f);
    outcomes.push(o);
    const name = relative(testDir, o.file);
    process.stdout.write(`${o.failed ? 'FAIL' : 'ok  '} ${name}  (${o.passed} passed, ${o.failed} failed, ${(o.ms / 1000).toFixed(1)} s)\n`);
    if (o.failed) process.stdout.write(o.output.split('\n').map((l) => `     ${l}`).join('\n') + '\n');
  }
});
await Promise.all(workers);
const passed = outcomes.reduce((s, o) => s + o.passed, 0);
const failed = outcomes.reduce((s, o) => s + o.failed, 0);
console.log(`${passed} passed, ${failed} failed`);
process.exit(failed > 0 || files.length === 0 ? 1 : 0);
