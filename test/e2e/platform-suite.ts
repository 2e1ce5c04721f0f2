import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { generateFirmware } from '../../generator/pipeline.js';
import { compareOutputs } from '../../runtime/node/compare.js';
import { runFirmware } from '../../runtime/node/run.js';
import { arrays, integerFolders } from '../helpers/deeploy.js';

/**
 * End to end on one platform: every integer folder of ../shared/deeploy-tests generates, builds, runs in the
 * emulator and matches outputs.npz exactly (the golden data of the peer compiler).
 */
export function platformSuite(platform: string, only?: (name: string) => boolean): void {
  const s = suite(`e2e ${platform}`);
  const work = mkdtempSync(join(tmpdir(), `firmgen-e2e-${platform}-`));
  const folders = integerFolders().filter((f) => !only || only(f.name));
  s('finds the 55 integer folders', () => {
    if (!only) assert.is(folders.length, 55);
  });
  for (const f of folders) {
    s(f.name, async () => {
      const out = join(work, f.name.replace(/\//g, '_'));
      const { manifest } = generateFirmware({ model: f.model, platform, out });
      const inputs = arrays(join(f.dir, 'inputs.npz')).slice(0, manifest.inputs.length);
      const expected = arrays(join(f.dir, 'outputs.npz'));
      const r = await runFirmware(out, inputs);
      const c = compareOutputs(manifest.outputs, r.outputs, expected);
      assert.is(c.errors, 0, c.details.join('; '));
      assert.is(c.total, expected.reduce((n, e) => n + e.data.length, 0));
      assert.ok(r.cycles > 0, 'cycles are counted');
    });
  }
  s.after(() => rmSync(work, { recursive: true, force: true }));
  s.run();
}
