import { InvalidArgumentError, type Command } from 'commander';
import { buildWithSizes, C_TARGETS, type CTarget } from '../../runtime/node/c-build.js';
import { formatSizes } from '../../runtime/node/c-sizes.js';

function target(text: string): CTarget {
  if (!(C_TARGETS as string[]).includes(text)) throw new InvalidArgumentError(`expected ${C_TARGETS.join(' or ')}`);
  return text as CTarget;
}

/** `gen build <dir> --target host|rv32`: builds out/c and reports the size of each section (per memory region for rv32). */
export function buildCommand(program: Command): void {
  program
    .command('build')
    .description('build the generated C: host (this machine\'s compiler) or rv32 (bare-metal RISC-V ELF for qemu); report text, data and bss per memory region')
    .argument('<dir>', 'output directory of `gen firmware`')
    .option('-t, --target <target>', `${C_TARGETS.join(' or ')}`, target, 'host')
    .option('--json', 'print the size report as JSON')
    .addHelpText('after', '\nExamples:\n  gen build out/ --target rv32\n  gen run out/ --on qemu --inputs inputs.npz --expect outputs.npz')
    .action((dir: string, o: { target: CTarget; json?: boolean }) => {
      const { build, sizes } = buildWithSizes(dir, o.target);
      if (o.json) {
        console.log(JSON.stringify(sizes, null, 2));
        return;
      }
      console.log(formatSizes(sizes));
      console.log(build.ms > 0 ? `built in ${(build.ms / 1000).toFixed(1)} s` : 'up to date');
    });
}
