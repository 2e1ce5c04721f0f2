// Bundles `gen firmware` into one CommonJS function at `npm run build`, then generates the shipped example with it and
// stores V8's code cache of what that compiled beside it, in one file (generator/cli/bundle-loader.ts). Node 20 has no
// compile cache: loading the CLI's ~150 modules one by one was ~0.12 s CPU of a 0.55 s `gen firmware`, and compiling
// the bundle's functions as a run reaches them most of what start-up then had left. Paired runs (miniMobileNet,
// Siracusa, 20 each) against the ES-module bundle this replaces: 6 % less CPU as CommonJS with its packages inside,
// 13 % with the code cache. bin/gen.js runs the bundle for `gen firmware` when it exists and the modules otherwise.
// Only that command: the emulator's runtime finds its worker and its files beside its own modules (import.meta.url),
// which a bundle moves, so the other commands stay out of it and run from their modules. Without esbuild (a
// production install) no bundle is written and a stale one is removed, so the bundle never runs code older than dist/.
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ROOT } from '../generator/backend/paths.js';
import { BUNDLE_FILE, loadBundle, wrapSource, writeBundleFile } from '../generator/cli/bundle-loader.js';

/** Beside gen.js, so the modules' own relative URLs (paths.ts, the commands left out) resolve the same from either. */
const DIR = join(ROOT, 'dist', 'generator', 'cli');
export const BUNDLE = join(DIR, BUNDLE_FILE);
/** esbuild's output, read back and removed: the bundle file holds it wrapped, with its code cache. */
const ESBUILD_OUT = join(DIR, 'gen.esbuild.cjs');
/** What earlier builds wrote (an ES-module bundle). */
const OLD_BUNDLE = join(DIR, 'main.bundle.js');
type Esbuild = { build(options: Record<string, unknown>): Promise<unknown> };
interface PluginBuild {
  onLoad(o: { filter: RegExp }, f: (a: { path: string }) => unknown): void;
}

async function loadEsbuild(): Promise<Esbuild | undefined> {
  try {
    return (await import('esbuild' as string)) as Esbuild;
  } catch {
    return undefined;
  }
}

/**
 * gen.ts loads each command's module on demand: all but firmware's are left out, imported from their modules by the
 * loader's __import (bundle-loader.ts). An import() of the bundle's own would find no loader once the bundle runs
 * from its code cache (Node 20 drops a script's import callback for code from the cache).
 */
const OTHER_COMMANDS = /\bimport\((['"])\.\/(run|quantize|build|forward)\.js\1\)/g;
const otherCommandsOut = {
  name: 'other-commands-out',
  setup(b: PluginBuild): void {
    b.onLoad({ filter: /[\\/]dist[\\/]generator[\\/]cli[\\/]gen\.js$/ }, (a) => {
      const text = readFileSync(a.path, 'utf8');
      const out = text.replace(OTHER_COMMANDS, "__import('./$2.js')");
      if (out.match(/__import\(/g)?.length !== 4) throw new Error(`${a.path}: expected four other commands to leave out`);
      return { contents: out, loader: 'js' };
    });
  },
};

/**
 * commander.ts and proto.ts require their CommonJS packages through createRequire (cheaper for ES modules, see
 * there), which esbuild does not follow: written as plain require calls here, the packages go into the bundle and
 * into its code cache instead of through Node's module loader at every start.
 */
const REQUIRED_PACKAGES = /[\\/]dist[\\/]generator[\\/](cli[\\/]commander|onnx[\\/]proto)\.js$/;
const packagesIn = {
  name: 'packages-in',
  setup(b: PluginBuild): void {
    b.onLoad({ filter: REQUIRED_PACKAGES }, (a) => {
      const text = readFileSync(a.path, 'utf8');
      const inlined = text.replace(/createRequire\(import\.meta\.url\)\(/g, 'require(');
      if (inlined === text) throw new Error(`${a.path}: no createRequire(import.meta.url)( call to bundle`);
      return { contents: inlined, loader: 'js' };
    });
  },
};

/**
 * Non-ASCII characters left in the output (esbuild escapes them in strings, regular expressions and names, not in
 * comments) as \\u escapes, which mean the same there: the bundle file holds ASCII, read back as one-byte text.
 */
function ascii(text: string): string {
  return text.replace(/[^\x00-\x7f]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
}

/** Generates the example on Siracusa (tiled, double buffering) and generic with the bundle, then saves its code cache. */
async function addCodeCache(): Promise<void> {
  const bundle = loadBundle(DIR);
  const work = mkdtempSync(join(tmpdir(), 'firmgen-bundle-'));
  const model = join(ROOT, 'examples', 'mini-mobilenet-v2', 'network.onnx');
  const log = console.log;
  console.log = () => {}; // the generations' summaries
  try {
    for (const platform of [['--platform', 'siracusa', '--l1', '64000'], ['--platform', 'generic']]) {
      const code = await bundle.gen(['node', 'gen', 'firmware', ...platform, model, '-o', join(work, platform[1])]);
      if (code !== undefined) throw new Error(`bundle: gen firmware ${platform.join(' ')} on the example exited with ${code}`);
    }
  } finally {
    console.log = log;
    rmSync(work, { recursive: true, force: true });
  }
  bundle.writeWithCache();
}

const esbuild = await loadEsbuild();
for (const f of [OLD_BUNDLE, ESBUILD_OUT, BUNDLE]) rmSync(f, { force: true });
if (!esbuild) {
  console.log('bundle: esbuild is not installed; the CLI runs from its modules');
} else {
  await esbuild.build({
    entryPoints: [join(DIR, 'gen.js')],
    outfile: ESBUILD_OUT,
    bundle: true,
    platform: 'node',
    format: 'cjs',
    target: 'node20',
    logLevel: 'warning',
    // Loaded lazily by the few commands that need them, and large (or native): left to Node's own loading.
    external: ['ts-morph', 'typescript', 'highs', 'onnxruntime-node', 'assemblyscript', 'assemblyscript/*'],
    plugins: [otherCommandsOut, packagesIn],
    // The modules' import.meta.url is the bundle's own URL (bundle-loader.ts passes its path as __filename).
    define: { 'import.meta.url': '__bundleUrl' },
    banner: { js: 'var __bundleUrl = require("node:url").pathToFileURL(__filename).href;' },
  });
  const text = readFileSync(ESBUILD_OUT, 'utf8');
  rmSync(ESBUILD_OUT);
  if (/import\.meta|\bimport\(/.test(text)) throw new Error(`bundle: esbuild's output still has import.meta or import()`);
  writeBundleFile(DIR, wrapSource(ascii(text)), Buffer.alloc(0));
  await addCodeCache();
  console.log(`bundle: ${BUNDLE} (with its code cache)`);
}
