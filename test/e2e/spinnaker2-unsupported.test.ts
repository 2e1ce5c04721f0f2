/** Every deeploy-tests folder SpiNNaker2 does not run fails generation with one clear 'unsupported' error. */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { GenError } from '../../generator/errors.js';
import { generateFirmware } from '../../generator/pipeline.js';
import { integerFolders } from '../helpers/deeploy.js';
import { s2Supported } from './spinnaker2-folders.js';

const work = mkdtempSync(join(tmpdir(), 'firmgen-s2-unsupported-'));

for (const f of integerFolders().filter((x) => !s2Supported(x.name))) {
  test(f.name, () => {
    try {
      generateFirmware({ model: f.model, platform: 'spinnaker2', out: join(work, 'out') });
    } catch (e) {
      assert.instance(e, GenError);
      assert.is((e as GenError).kind, 'unsupported', (e as Error).message);
      assert.ok((e as GenError).site.node, 'the error names the node');
      assert.match((e as Error).message, /spinnaker2|MLA|8-bit|constant/);
      return;
    }
    assert.unreachable('generation should fail: add the folder to spinnaker2-folders.ts if it now runs');
  });
}

test.after(() => rmSync(work, { recursive: true, force: true }));
test.run();
