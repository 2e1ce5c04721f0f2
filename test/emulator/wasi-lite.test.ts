/** The in-process WASI host (fd_write, proc_exit) behaves as @wasmer/wasi does for generated firmware. */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { GenError } from '../../generator/errors.js';
import { runFirmware } from '../../runtime/node/run.js';
import { wasmerHost, type WasiHost } from '../../runtime/node/wasi.js';
import { liteHost } from '../../runtime/node/wasi-lite.js';
import { makeFirmware } from './fixture.js';

const PRINTS = 'console.log("to stdout");\nconsole.error("to stderr");\n';
const EXITS = 'console.log("before");\nprocess.exit(3);\n';

async function outcome(network: string, wasi: WasiHost): Promise<string> {
  const out = makeFirmware({ platform: 'generic', network, tensors: [] });
  try {
    const r = await runFirmware(out, [], { wasi });
    return `ok ${JSON.stringify(r.stdout)}`;
  } catch (e) {
    assert.instance(e, GenError);
    return (e as Error).message;
  }
}

for (const [what, network] of [['console output', PRINTS], ['an exit code', EXITS], ['an abort', 'abort("boom");\n']]) {
  test(`${what}: both hosts agree`, async () => {
    const lite = await outcome(network, liteHost);
    assert.is(lite, await outcome(network, wasmerHost));
    if (network === PRINTS) assert.match(lite, /^ok "to stdout/);
    if (network === EXITS) assert.match(lite, /exited with code 3/);
  });
}

test.run();
