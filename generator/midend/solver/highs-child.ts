/**
 * Runs one HiGHS solve in its own process (spawned by ./highs.ts): the planner is synchronous and HiGHS only loads
 * asynchronously, and a process of its own also gives the solve a hard wall-clock limit and returns its wasm memory.
 * stdin: {lp, start, timeLimit} (CPLEX LP text, a starting solution by column name, seconds); stdout: one JSON line.
 */
import { readFileSync } from 'node:fs';
import highsEntry from 'highs';
import type { SolveRequest, SolveResult } from './highs.js';

// The package's types describe a CommonJS module whose `default` is the loader; its ESM entry exports the loader.
const loadHighs = highsEntry as unknown as typeof highsEntry.default;

const req = JSON.parse(readFileSync(0, 'utf8')) as SolveRequest;
const t0 = performance.now();
const highs = await loadHighs();
const loadMs = performance.now() - t0;
const model = highs.createModel({ format: 'lp', data: req.lp });
let result: SolveResult;
try {
  model.options.set({ output_flag: false, time_limit: req.timeLimit, mip_rel_gap: 0, ...req.options });
  const names = Object.keys(req.start);
  if (names.length > 0) {
    // The heuristic's plan as the first incumbent: the solver starts from it and only has to beat it.
    model.setSolution({ indices: names.map((n) => model.getColByName(n)), values: names.map((n) => req.start[n]) });
  }
  const t1 = performance.now();
  model.run();
  const solveMs = performance.now() - t1;
  const code = model.getModelStatus();
  const status = Object.entries(highs.constants.modelStatus).find(([, v]) => v === code)?.[0] ?? String(code);
  const info = (k: string): number | undefined => {
    try {
      const v = Number(model.info.get(k));
      return Number.isFinite(v) ? v : undefined;
    } catch {
      return undefined;
    }
  };
  const hasSolution = info('primal_solution_status') === 2;
  const columns: Record<string, number> = {};
  if (hasSolution) {
    const x = model.getSolution().colValue;
    for (let i = 0; i < x.length; i++) columns[model.getColName(i)] = x[i];
  }
  result = {
    status, loadMs, solveMs,
    ...(hasSolution ? { objective: model.getObjectiveValue(), columns } : {}),
    ...(info('mip_dual_bound') !== undefined ? { bound: info('mip_dual_bound') } : {}),
  };
} finally {
  model.dispose();
}
process.stdout.write(`${JSON.stringify(result)}\n`);
