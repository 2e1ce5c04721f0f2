// Bundles `gen firmware` into one file at `npm run build`: Node 20 has no compile cache, and loading the CLI's ~150 modules
// one by one (resolve, read, compile, link) was ~0.12 s CPU of a 0.55 s `gen firmware` (node --cpu-prof, measured
// before/after). bin/gen.js runs the bundle for `gen firmware` when it exists and the modules
// otherwise. Only that command: the emulator's runtime finds its worker and its files beside its own modules
// (import.meta.url), which a bundle moves, so the other commands stay out of it and always run from their modules. Without esbuild (a production
// install) no bundle is written and a stale one is removed, so the bundle never runs code older than dist/.
import { existsSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { ROOT } from '../generator/backend/paths.js';

/** Beside main.js, so the modules' own relative URLs (paths.ts) resolve the same way from either. */
export const BUNDLE = join(ROOT, 'dist', 'generator', 'cli', 'main.bundle.js');

type Esbuild = { build(options: Record<string, unknown>): Promise<unknown> };

async function loadEsbuild(): Promise<Esbuild | undefined> {
  try {
    return (await import('esbuild' as string)) as Esbuild;
  } catch {
    return undefined;
  }
}

/** gen.ts loads each command's module on demand: all but firmware's are left out (bin/gen.js never runs them here). */
const OTHER_COMMANDS = /^\.\/(run|quantize|build|forward)\.js$/;
const otherCommandsOut = {
  name: 'other-commands-out',
  setup(b: { onResolve(o: { filter: RegExp }, f: (a: { path: string; importer: string }) => unknown): void }): void {
    b.onResolve({ filter: OTHER_COMMANDS }, (a) => (a.importer.endsWith(join('cli', 'gen.js')) ? { path: a.path, external: true } : undefined));
  },
};

const esbuild = await loadEsbuild();
if (!esbuild) {
  if (existsSync(BUNDLE)) rmSync(BUNDLE);
  console.log('bundle: esbuild is not installed; the CLI runs from its modules');
} else {
  await esbuild.build({
    entryPoints: [join(ROOT, 'dist', 'generator', 'cli', 'main.js')],
    outfile: BUNDLE,
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: 'node20',
    logLevel: 'warning',
    // Loaded lazily by the few commands that need them, and large (or native): left to Node's own loading.
    external: ['ts-morph', 'typescript', 'highs', 'onnxruntime-node', 'assemblyscript', 'assemblyscript/*'],
    plugins: [otherCommandsOut],
    // CommonJS dependencies bundled into an ES module call require: give them Node's.
    banner: { js: "import { createRequire as __bundleRequire } from 'node:module'; const require = __bundleRequire(import.meta.url);" },
  });
  console.log(`bundle: ${BUNDLE}`);
}
