import { GenError } from '../../generator/errors.js';

/**
 * What happened to one case on one configuration. `exact` and `rejected` (a clean one-line GenError at generation)
 * are passes; everything else is a finding.
 */
export type Verdict =
  | 'exact' | 'rejected' | 'mismatch' | 'crash' | 'unclear-error' | 'left-output' | 'run-error' | 'host-error' | 'hang';

export const PASSES: ReadonlySet<Verdict> = new Set(['exact', 'rejected']);

export interface Outcome {
  verdict: Verdict;
  /** The stage that failed or the last one reached: generate, emulate, host, host-model. */
  stage: string;
  /** The error's message (first line), or the comparison's details. */
  message: string;
  /** Differing values and total values (mismatch). */
  errors?: number;
  total?: number;
  ms: number;
  /** Wall ms per stage reached (case-run.ts): generate, build, emulate, host, host-model. */
  stages?: Record<string, number>;
}

// eslint-disable-next-line no-control-regex
const CONTROL = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/;

/**
 * A generation error is clean when it is a GenError of a user-facing kind whose message is one line without raw
 * control characters; anything else (a TypeError, an 'internal' GenError, a multi-line message) is a finding.
 */
export function classifyGenerationError(e: unknown): { verdict: Verdict; message: string } {
  const raw = e instanceof Error ? e.message : String(e);
  const first = raw.split('\n')[0];
  if (!(e instanceof GenError)) {
    const where = e instanceof Error ? (e.stack ?? '').split('\n').find((l) => l.includes('/generator/'))?.trim() : undefined;
    return { verdict: 'crash', message: `${e instanceof Error ? e.name : 'throw'}: ${first}${where ? ` (${where.replace(/^at /, '').replace(/.*\/dist\//, '')})` : ''}` };
  }
  // A template or closure error is the generator's own (a view without a field the template reads), never the model's.
  if (e.kind === 'internal' || e.kind === 'template' || e.kind === 'closure' || /internal error/i.test(raw)) return { verdict: 'crash', message: `GenError(${e.kind}): ${first}` };
  if (raw.includes('\n') || CONTROL.test(raw)) return { verdict: 'unclear-error', message: JSON.stringify(raw.slice(0, 300)) };
  return { verdict: 'rejected', message: first };
}

/** A signature that stays the same while a shrinker edits a case: the verdict and the message without numbers or names. */
export function signature(o: Pick<Outcome, 'verdict' | 'message' | 'stage'>): string {
  if (o.verdict === 'mismatch' || o.verdict === 'hang') return `${o.verdict}@${o.stage}`;
  // File paths (the scratch folder differs per run) and quoted names are not part of what failed.
  const m = o.message.replace(/(^|\s)\/\S*?:\s/g, '$1').replace(/'[^']*'/g, "'_'").replace(/-?\d+/g, 'N').replace(/\[[N, ]*\]/g, '[..]').slice(0, 120);
  return `${o.verdict}@${o.stage}: ${m}`;
}
