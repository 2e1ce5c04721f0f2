import type { DiffResult } from './diff.js';
import type { MutationResult } from './mutate.js';

/** The summary `npm run fuzz` prints: runs per configuration and verdict, then each distinct finding. */
export function summaryTable(diff: DiffResult, mut: MutationResult): string {
  const lines: string[] = [];
  const byConfig = new Map<string, Map<string, number>>();
  for (const r of diff.runs) {
    const m = byConfig.get(r.config) ?? new Map<string, number>();
    m.set(r.outcome.verdict, (m.get(r.outcome.verdict) ?? 0) + 1);
    byConfig.set(r.config, m);
  }
  const verdicts = [...new Set(diff.runs.map((r) => r.outcome.verdict))].sort();
  if (diff.runs.length > 0) {
    const graphs = new Set(diff.runs.map((r) => r.caseSeed)).size;
    lines.push('', `differential: ${graphs} random graphs, ${diff.runs.length} runs (per configuration and verdict)`);
    lines.push(['configuration'.padEnd(22), ...verdicts.map((v) => v.padStart(14))].join(''));
    for (const [c, m] of [...byConfig].sort()) lines.push([c.padEnd(22), ...verdicts.map((v) => String(m.get(v) ?? 0).padStart(14))].join(''));
    // Where a run's time goes (mean wall ms per stage over the runs that reached it): the fuzzer's own profile.
    const sums = new Map<string, [number, number]>();
    for (const r of diff.runs) for (const [k, ms] of Object.entries(r.outcome.stages ?? {})) {
      const t = sums.get(k) ?? [0, 0];
      sums.set(k, [t[0] + ms, t[1] + 1]);
    }
    if (sums.size > 0) lines.push(`mean ms per run: ${[...sums].map(([k, [t, n]]) => `${k} ${Math.round(t / n)} (${n} runs)`).join(', ')}`);
  }
  if (mut.runs.length > 0) {
    const byKind = new Map<string, [number, number]>();
    for (const r of mut.runs) {
      const k = byKind.get(r.kind) ?? [0, 0];
      k[r.problems.length > 0 ? 1 : 0]++;
      byKind.set(r.kind, k);
    }
    const spawned = mut.runs.filter((r) => r.via === 'spawned').length;
    lines.push('', `mutations: ${mut.runs.length} cases, ${spawned} of them spawned, the rest in process (clean / with problems)`);
    for (const [k, [ok, bad]] of [...byKind].sort()) lines.push(`${k.padEnd(22)}${String(ok).padStart(8)}${String(bad).padStart(8)}`);
    // Mean wall ms per command, in process and spawned apart (what the in-process workers save).
    const cmd = new Map<string, [number, number]>();
    for (const r of mut.runs) for (const [c, ms] of r.commandMs) {
      const key = `${c} ${r.via}`;
      const t = cmd.get(key) ?? [0, 0];
      cmd.set(key, [t[0] + ms, t[1] + 1]);
    }
    if (cmd.size > 0) lines.push(`mean ms per command: ${[...cmd].sort().map(([k, [t, n]]) => `${k} ${Math.round(t / n)} (${n})`).join(', ')}`);
  }
  const findings = [...diff.findings.map((f) => ({ ...f, what: `${f.config} ${f.signature}` })), ...mut.findings.map((f) => ({ ...f, what: f.signature }))];
  lines.push('', `findings: ${findings.length}`);
  for (const f of findings) lines.push(`  [${f.count}x] ${f.what.slice(0, 200)}${f.path ? `\n        repro: ${f.path}` : ''}`);
  return lines.join('\n');
}
