import { Command, CommanderError } from './commander.js';
import { EXIT_ERROR, GenError, printable } from '../errors.js';
import { GENERATOR_VERSION } from '../version.js';

// Each command's module is loaded only when that command runs (help lists them all): `gen firmware` never loads
// the emulator's runtime, `gen run` never loads the generator's planners.
const COMMANDS: Record<string, () => Promise<(p: Command) => void>> = {
  firmware: async () => (await import('./firmware.js')).firmwareCommand,
  run: async () => (await import('./run.js')).runCommand,
  quantize: async () => (await import('./quantize.js')).quantizeCommand,
  build: async () => (await import('./build.js')).buildCommand,
  forward: async () => (await import('./forward.js')).forwardCommand,
};

/**
 * `gen` with `argv` as process.argv (node, script, words...): one clear line on failure (stack only with --verbose),
 * exit codes 0 ok / 1 outputs differ / 2 error. Returns the code the process must exit with at once (an error), or
 * undefined when the command finished (a command may have set process.exitCode, as `run` does for differing
 * outputs). A fresh command tree per call, so that the fuzzer's long-lived workers (test/fuzz/cli-server.ts) run
 * exactly what bin/gen.js runs.
 */
export async function gen(argv: string[]): Promise<number | undefined> {
  const program = new Command();
  program
    .name('gen')
    .description('firmgen: quantized ONNX model -> bare-metal firmware (C for the board, AssemblyScript for the emulator), and an emulator to run it.')
    .version(GENERATOR_VERSION)
    .option('--verbose', 'print stack traces of errors')
    // Usage errors as every other error: one line (the hint on it), what the user typed escaped. The parser's own
    // lines (an unknown option, then its "Did you mean") are joined by a space, not shown as an escaped "\n".
    .configureOutput({ outputError: (text, write) => write(`${printable(text.trim().split('\n').map((l) => l.trim()).join(' '), 400)} (gen --help for usage)\n`) })
    .addHelpText('after', `
Examples:
  gen firmware --platform siracusa model.onnx -o out/
  gen run out/ --inputs inputs.npz --expect outputs.npz
`);
  program.exitOverride();
  const words = argv.slice(2);
  const asked = words.find((a) => !a.startsWith('-'));
  const versionOnly = asked === undefined && words.some((w) => w === '-V' || w === '--version');
  const wanted = versionOnly ? [] : asked !== undefined && asked in COMMANDS ? [asked] : Object.keys(COMMANDS);
  for (const name of wanted) (await COMMANDS[name]())(program);

  try {
    await program.parseAsync(argv);
    return undefined;
  } catch (e) {
    if (e instanceof CommanderError) return e.exitCode === 0 ? 0 : EXIT_ERROR;
    const verbose = program.opts().verbose === true;
    if (e instanceof GenError) {
      console.error(`error: ${e.message}`);
    } else {
      console.error(`internal error: ${printable((e as Error).message ?? String(e), 2000)}`);
    }
    if (verbose) console.error((e as Error).stack);
    return EXIT_ERROR;
  }
}
