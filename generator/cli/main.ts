import { Command, CommanderError } from './commander.js';
import { EXIT_ERROR, GenError, printable } from '../errors.js';
import { GENERATOR_VERSION } from '../version.js';

/** `gen`: one clear line on failure (stack only with --verbose), exit codes 0 ok / 1 outputs differ / 2 error. */
const program = new Command();
program
  .name('gen')
  .description('firmgen: quantized ONNX model -> bare-metal firmware (C for the board, AssemblyScript for the emulator), and an emulator to run it.')
  .version(GENERATOR_VERSION)
  .option('--verbose', 'print stack traces of errors')
  // Usage errors as every other error: one line (the hint on it), what the user typed escaped.
  .configureOutput({ outputError: (text, write) => write(`${printable(text.trim(), 400)} (gen --help for usage)\n`) })
  .addHelpText('after', `
Examples:
  gen firmware --platform siracusa model.onnx -o out/
  gen run out/ --inputs inputs.npz --expect outputs.npz
`);
program.exitOverride();
// Each command's module is loaded only when that command runs (help lists them all): `gen firmware` never loads
// the emulator's runtime, `gen run` never loads the generator's planners.
const COMMANDS: Record<string, () => Promise<(p: Command) => void>> = {
  firmware: async () => (await import('./firmware.js')).firmwareCommand,
  run: async () => (await import('./run.js')).runCommand,
  quantize: async () => (await import('./quantize.js')).quantizeCommand,
  build: async () => (await import('./build.js')).buildCommand,
  forward: async () => (await import('./forward.js')).forwardCommand,
};
const words = process.argv.slice(2);
const asked = words.find((a) => !a.startsWith('-'));
const versionOnly = asked === undefined && words.some((w) => w === '-V' || w === '--version');
const wanted = versionOnly ? [] : asked !== undefined && asked in COMMANDS ? [asked] : Object.keys(COMMANDS);
for (const name of wanted) (await COMMANDS[name]())(program);

try {
  await program.parseAsync(process.argv);
} catch (e) {
  if (e instanceof CommanderError) {
    process.exit(e.exitCode === 0 ? 0 : EXIT_ERROR);
  }
  const verbose = program.opts().verbose === true;
  if (e instanceof GenError) {
    console.error(`error: ${e.message}`);
  } else {
    console.error(`internal error: ${printable((e as Error).message ?? String(e), 2000)}`);
  }
  if (verbose) console.error((e as Error).stack);
  process.exit(EXIT_ERROR);
}
