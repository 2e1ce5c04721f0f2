import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { formatProfile } from '../../runtime/node/profile-table.js';
import { REPO_ROOT } from '../../runtime/node/paths.js';
import { describe, runGemminiExample } from '../gemmini-example.js';

/*
 * The ResNet-style CNN on Gemmini (README.md): quantized by gen quantize (integer dialect and QDQ) and in
 * onnxruntime's QDQ format (make.py), each emulated against the reference and compared with onnxruntime-node.
 * Options: --emulate N (test samples through the emulator; default 2), --profile (per-layer table of each variant).
 */
const { values } = parseArgs({ options: { emulate: { type: 'string', default: '2' }, profile: { type: 'boolean', default: false }, out: { type: 'string' } } });
const name = 'gemmini-resnet';
const results = await runGemminiExample({
  dir: join(REPO_ROOT, 'examples', name), out: values.out ?? join(REPO_ROOT, 'out', name), emulate: Number(values.emulate), hostC: true,
});
for (const v of results) {
  console.log(describe(v));
  if (values.profile && v.profile) console.log(formatProfile(v.profile));
}
