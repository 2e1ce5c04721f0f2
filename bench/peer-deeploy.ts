/**
 * The peer compiler's generation step, for bench/compile.ts's ratio (issue 15: gen firmware against Deeploy on the
 * same folders and settings). Nothing of Deeploy is in this repository: the bench times it only when
 * FIRMGEN_DEEPLOY names a Deeploy checkout (github pulp-platform/Deeploy) whose Python dependencies are importable by
 * FIRMGEN_DEEPLOY_PYTHON (default python3); its own environment (MINIMALLOC_INSTALL_DIR for its default memory
 * allocator) passes through. The step timed is the one its tiled Siracusa runner (deeployRunner_tiled_siracusa.py)
 * starts for generation: DeeployTest/testMVP.py -p Siracusa --l1=64000 --doublebuffer, which is gen firmware's
 * `--platform siracusa --l1 64000` (double buffering is firmgen's default). Its simulation step is not run.
 */
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';

export interface Peer {
  /** What `peer not available` would otherwise say: the checkout and interpreter used. */
  describe: string;
  /** Wall milliseconds of one generation of the folder (network.onnx + inputs.npz + outputs.npz) into out. */
  wallMs(folder: string, out: string): number;
}

/** The peer when the environment names a usable checkout; otherwise why not, in one line. */
export function deeployPeer(): Peer | string {
  const dir = process.env.FIRMGEN_DEEPLOY;
  if (!dir) return 'peer not available (set FIRMGEN_DEEPLOY to a Deeploy checkout to time it)';
  const testDir = join(dir, 'DeeployTest');
  const script = join(testDir, 'testMVP.py');
  if (!existsSync(script)) return `peer not available (${script} not found)`;
  const python = process.env.FIRMGEN_DEEPLOY_PYTHON ?? 'python3';
  const env = { ...process.env, PYTHONPATH: [dir, process.env.PYTHONPATH].filter(Boolean).join(':') };
  return {
    describe: `Deeploy testMVP.py in ${dir} under ${python}`,
    wallMs(folder, out) {
      const t0 = performance.now();
      const r = spawnSync(python, [script, '-d', out, '-t', folder, '-p', 'Siracusa', '--l1=64000', '--doublebuffer'], {
        cwd: testDir, env, encoding: 'utf8',
      });
      const ms = performance.now() - t0;
      if (r.status !== 0) throw new Error(`peer failed on ${folder}: ${(r.stderr || r.stdout || String(r.error)).trim().split('\n').pop()}`);
      return ms;
    },
  };
}
