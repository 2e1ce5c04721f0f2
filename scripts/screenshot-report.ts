/**
 * Renders a `gen run --report` page in headless Chromium and saves a PNG, to check by eye that the page shows the
 * table and pictures without a server. Not part of `npm test` (Chromium is an optional Debian package:
 * `apt-get install chromium`).
 *
 *   node dist/scripts/screenshot-report.js <report.html> <out.png> [--size 1400x1000] [--chromium /usr/bin/chromium]
 *
 * A fresh profile directory per run and every background service off: a screenshot must not depend on, or
 * write to, the user's browser state, and must not reach the network.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';

function option(name: string, fallback: string): string {
  const i = process.argv.indexOf(name);
  return i > 0 && process.argv[i + 1] ? process.argv[i + 1] : fallback;
}

const [html, png] = process.argv.slice(2).filter((a, i, all) => !a.startsWith('--') && !all[i - 1]?.startsWith('--'));
if (!html || !png) {
  console.error('usage: screenshot-report <report.html> <out.png> [--size WxH] [--chromium path]');
  process.exit(2);
}
const browser = option('--chromium', ['/usr/bin/chromium', '/usr/bin/chromium-browser'].find(existsSync) ?? 'chromium');
const [w, h] = option('--size', '1400x1000').split('x').map(Number);
const profile = mkdtempSync(join(tmpdir(), 'firmgen-chromium-'));
try {
  const r = spawnSync(browser, [
    '--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
    '--disable-background-networking', '--disable-component-update', '--disable-sync', '--hide-scrollbars',
    `--user-data-dir=${profile}`, `--screenshot=${resolve(png)}`, `--window-size=${w},${h}`,
    pathToFileURL(resolve(html)).href,
  ], { encoding: 'utf8', timeout: 60_000 });
  if (r.error) throw r.error;
  if (!existsSync(png) || statSync(png).size === 0) {
    console.error(`chromium wrote no screenshot (exit ${r.status}):\n${r.stderr}`);
    process.exit(1);
  }
  console.log(`${png}: ${w}x${h} screenshot of ${html}`);
} finally {
  rmSync(profile, { recursive: true, force: true });
}
