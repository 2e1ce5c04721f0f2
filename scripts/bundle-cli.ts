// Bundles `gen firmware` into one CommonJS function at `npm run build`, then generates the shipped example with it and
// stores V8's code cache of what that compiled beside it, in one file (generator/cli/bundle-loader.ts). Node 20 has no
// compile cache: loading the CLI's ~150 modules one by one was ~0.12 s CPU of a 0.55 s `gen firmware`, and compiling
// the bundle's functions as a run reaches them most of what start-up then had left. Paired runs (miniMobileNet,
// Siracusa, 20 each) against the ES-module bundle this replaces: 6 % less CPU as CommonJS with its packages inside,
// 13 % with the code cache. bin/gen.js runs the bundle for `gen firmware` when it exists and the modules otherwise.
// Only that command: the emulator's runtime finds its worker and its files beside its own modules (import.meta.url),
// which a bundle moves, so the other commands stay out of it and run from their modules. Without esbuild (a
// production install) no bundle is written and a stale one is removed, so the bundle never runs code older than dist/.
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
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
  onResolve(o: { filter: RegExp }, f: (a: { path: string; importer: string }) => unknown): void;
  onLoad(o: { filter: RegExp; namespace?: string }, f: (a: { path: string }) => unknown): void;
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
 * commander.ts, proto.ts and npy.ts require their CommonJS packages through createRequire (cheaper for ES modules, see
 * there), which esbuild does not follow: written as plain require calls here, the packages go into the bundle and
 * into its code cache instead of through Node's module loader at every start. proto.ts (onnx-proto, for encoding)
 * and npy.ts (fflate, for zipSync) require theirs inside a function, so the bundle sets them up at first use only;
 * gen firmware reads models and arrays with its own decoders (onnx/decode.ts, onnx/unzip.ts) and never writes an
 * archive, so esbuild leaves fflate out altogether.
 */
const REQUIRED_PACKAGES = /[\\/]dist[\\/]generator[\\/](cli[\\/]commander|onnx[\\/](proto|npy))\.js$/;
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
 * protobufjs (under onnx-proto) looks for the package long at every start through a require by a name it computes
 * (util.inquire), which esbuild leaves to Node: resolving and compiling long's file that way was ~10 ms of module
 * initialisation (node --cpu-prof). Where long resolves from inquire, the same file goes into the bundle instead:
 * util.Long is the same class.
 */
const LONG_INQUIRY = 'util.inquire("long")';
const longIn = {
  name: 'long-in',
  setup(b: PluginBuild): void {
    b.onLoad({ filter: /[\\/]protobufjs[\\/]src[\\/]util[\\/]minimal\.js$/ }, (a) => {
      const text = readFileSync(a.path, 'utf8');
      let long: string;
      try {
        // Where inquire's own require finds it (not protobufjs's: a nested copy of another version may sit there).
        long = createRequire(createRequire(a.path).resolve('@protobufjs/inquire')).resolve('long');
      } catch {
        return undefined; // not installed: protobufjs's own look-up, as before
      }
      if (!text.includes(LONG_INQUIRY)) throw new Error(`${a.path}: no ${LONG_INQUIRY} to bundle`);
      return { contents: text.replace(LONG_INQUIRY, `require(${JSON.stringify(long)})`), loader: 'js' };
    });
  },
};

/**
 * child_process is loaded at its first use, not at start: commander requires it for subcommands that are programs
 * (gen has none) and the HiGHS solver's runner (solver/highs.ts) spawns only when a plan needs the ILP. Node's
 * child_process with its dgram and socket modules was ~2 ms of every start. The two use spawn and execFileSync.
 */
const LAZY_CHILD_PROCESS = `let loaded;
const load = () => (loaded ??= require('node:child_process'));
export function spawn(...a) { return load().spawn(...a); }
export function execFileSync(...a) { return load().execFileSync(...a); }
`;
const childProcessLater = {
  name: 'child-process-later',
  setup(b: PluginBuild): void {
    b.onResolve({ filter: /^(node:)?child_process$/ }, (a) =>
      /[\\/]commander[\\/]lib[\\/]command\.js$|[\\/]solver[\\/]highs\.js$/.test(a.importer) ? { path: 'child_process', namespace: 'later' } : undefined);
    b.onLoad({ filter: /.*/, namespace: 'later' }, () => ({ contents: LAZY_CHILD_PROCESS, loader: 'js' }));
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

/** The loader as CommonJS for bin/gen.js (CommonJS: no ES-module loader starts for `gen firmware`). */
const LOADER_CJS = join(DIR, 'bundle-loader.cjs');

const esbuild = await loadEsbuild();
for (const f of [OLD_BUNDLE, ESBUILD_OUT, BUNDLE, LOADER_CJS]) rmSync(f, { force: true });
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
    // No comments or indentation: a third of the text to read, decode and scan for the functions the cache lacks.
    minifyWhitespace: true,
    logLevel: 'warning',
    // Loaded lazily by the few commands that need them, and large (or native): left to Node's own loading.
    external: ['ts-morph', 'typescript', 'highs', 'onnxruntime-node', 'assemblyscript', 'assemblyscript/*'],
    plugins: [otherCommandsOut, packagesIn, longIn, childProcessLater],
    // The modules' import.meta.url is the bundle's own URL (bundle-loader.ts passes its path as __filename). Their
    // clock, performance.now() (durations only), is process.hrtime: Node's performance global loads perf_hooks and
    // worker_threads at its first use (~3 ms of every start).
    define: { 'import.meta.url': '__bundleUrl', performance: '__bundleClock' },
    banner: {
      js: 'var __bundleUrl = require("node:url").pathToFileURL(__filename).href; ' +
        'var __bundleClock = { now() { const t = process.hrtime(); return t[0] * 1e3 + t[1] / 1e6; } };',
    },
  });
  const text = readFileSync(ESBUILD_OUT, 'utf8');
  rmSync(ESBUILD_OUT);
  if (/import\.meta|\bimport\(/.test(text)) throw new Error(`bundle: esbuild's output still has import.meta or import()`);
  if (/__bundleClock\.(?!now\()/.test(text)) throw new Error('bundle: the modules use more of performance than now()');
  if (/worker_threads/.test(text)) throw new Error('bundle: something in it loads worker_threads at start');
  await esbuild.build({
    entryPoints: [join(DIR, 'bundle-loader.js')], outfile: LOADER_CJS, platform: 'node', format: 'cjs', target: 'node20', logLevel: 'warning',
    // Its one import() (the commands left out of the bundle) stays an import() of an ES module.
    supported: { 'dynamic-import': true },
  });
  writeBundleFile(DIR, wrapSource(ascii(text)), Buffer.alloc(0));
  await addCodeCache();
  console.log(`bundle: ${BUNDLE} (with its code cache)`);
}
