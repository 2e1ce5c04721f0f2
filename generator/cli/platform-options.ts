import type { Command } from './commander.js';
import { CATALOG } from '../platforms/catalog.js';

/** Registers every platform's own options on a command, from their declarations (one flag, the platforms that take it). */
export function addPlatformOptions(c: Command): Command {
  const declared = new Map<string, { help: string; takers: string[] }>();
  for (const p of CATALOG) {
    for (const opt of p.options ?? []) {
      const d = declared.get(opt.flag) ?? declared.set(opt.flag, { help: opt.help, takers: [] }).get(opt.flag)!;
      d.takers.push(p.name);
    }
  }
  for (const [flag, d] of declared) c.option(flag, `${d.takers.join(', ')}: ${d.help}`);
  return c;
}

/** The values of the platforms' own options among the parsed flags (by the keys the platforms declare). */
export function platformValues(flags: Record<string, unknown>): Record<string, unknown> {
  const keys = new Set(CATALOG.flatMap((p) => p.options.map((o) => o.key)));
  return Object.fromEntries(Object.entries(flags).filter(([k, v]) => keys.has(k) && v !== undefined));
}
