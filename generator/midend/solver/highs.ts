/**
 * HiGHS (npm `highs`, compiled to wasm) behind a synchronous call: the solve runs in a child process
 * (./highs-child.ts), so the planner stays synchronous, a solve that overruns its limit is killed, and a process
 * that never needs the solver never loads it (~0.2 s).
 */
import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { ROOT } from '../../backend/paths.js';

export interface SolveRequest {
  /** The model in CPLEX LP format. */
  lp: string;
  /** A feasible starting point by column name (a heuristic's solution). */
  start: Record<string, number>;
  /** Seconds HiGHS may spend. */
  timeLimit: number;
  /** Further HiGHS options (snake_case names). */
  options?: Record<string, number | string | boolean>;
}

export interface SolveResult {
  /** HiGHS's model status by name: optimal, timeLimit, infeasible, ...; 'error' when the solve did not run. */
  status: string;
  objective?: number;
  /** The best proven bound on the objective (a MIP's dual bound). */
  bound?: number;
  columns?: Record<string, number>;
  loadMs: number;
  solveMs: number;
  message?: string;
}

/** The child beside this module; from the CLI's one-file bundle (dist/generator/cli/) it is found under the root. */
const BESIDE = fileURLToPath(new URL('./highs-child.js', import.meta.url));
const CHILD = existsSync(BESIDE) ? BESIDE : join(ROOT, 'dist', 'generator', 'midend', 'solver', 'highs-child.js');
/** Loading the wasm and starting Node take well under this; the rest of the wall limit is the solve itself. */
const STARTUP_S = 10;

export function solveSync(req: SolveRequest): SolveResult {
  try {
    const out = execFileSync(process.execPath, [CHILD], {
      input: JSON.stringify(req),
      encoding: 'utf8',
      timeout: (req.timeLimit + STARTUP_S) * 1000,
      maxBuffer: 64 * 1024 * 1024,
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    return JSON.parse(out) as SolveResult;
  } catch (e) {
    const err = e as { message?: string; stderr?: string };
    // Node prints the failing source line first (the minified wasm loader): the error's own line says more.
    const lines = (err.stderr || err.message || String(e)).split('\n').map((l) => l.trim()).filter((l) => l);
    const why = (lines.find((l) => /^\w*Error\b/.test(l)) ?? lines[0] ?? 'no output').slice(0, 300);
    return { status: 'error', loadMs: 0, solveMs: 0, message: why };
  }
}
