import { InvalidArgumentError, type Command } from './commander.js';
import { buildWithReports, C_TARGETS, type CTarget } from '../../runtime/node/c-build.js';
import { formatSizes } from '../../runtime/node/c-sizes.js';

const targetList = `${C_TARGETS.slice(0, -1).join(', ')} or ${C_TARGETS[C_TARGETS.length - 1]}`;

function target(text: string): CTarget {
  if (!(C_TARGETS as string[]).includes(text)) throw new InvalidArgumentError(`expected ${targetList}`);
  return text as CTarget;
}

/**
 * `gen build <dir> --target host|rv32|arm`: builds out/c and reports the size of each section (per memory region for
 * rv32; per PE role and memory region for arm, SpiNNaker2's Cortex-M4F images).
 */
export function buildCommand(program: Command): void {
  program
    .command('build')
    .description('build the generated C: host (this machine\'s compiler), rv32 (bare-metal RISC-V ELF for qemu) or arm (SpiNNaker2: an ARM Cortex-M4F image per PE role, not run); report text, data and bss per memory region')
    .argument('<dir>', 'output directory of `gen firmware`')
    .option('-t, --target <target>', targetList, target, 'host')
    .option('--json', 'print the size report as JSON')
    .addHelpText('after', '\nExamples:\n  gen build out/ --target rv32\n  gen run out/ --on qemu --inputs inputs.npz --expect outputs.npz\n  gen build s2-out/ --target arm')
    .action((dir: string, o: { target: CTarget; json?: boolean }) => {
      const { build, reports } = buildWithReports(dir, o.target);
      if (o.json) {
        // One build, one object (host, rv32); an image per role, an array (arm).
        console.log(JSON.stringify(reports.length === 1 ? reports[0] : reports, null, 2));
        return;
      }
      console.log(reports.map(formatSizes).join('\n\n'));
      console.log(build.ms > 0 ? `built in ${(build.ms / 1000).toFixed(1)} s` : 'up to date');
    });
}
