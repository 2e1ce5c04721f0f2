/**
 * Typed errors. Every failure a user can cause (bad file, unsupported op, model too big) is a GenError that
 * names where it happened; the CLI prints its one-line message and exits non-zero without a stack trace.
 */
export type ErrorKind = 'input' | 'model' | 'unsupported' | 'capacity' | 'template' | 'closure' | 'internal' | 'run';

export interface ErrorSite {
  file?: string;
  node?: string;
  op?: string;
  tensor?: string;
}

export class GenError extends Error {
  readonly kind: ErrorKind;
  readonly site: ErrorSite;
  readonly reason: string;

  constructor(kind: ErrorKind, reason: string, site: ErrorSite = {}) {
    super(formatMessage(reason, site));
    this.name = 'GenError';
    this.kind = kind;
    this.site = site;
    this.reason = reason;
  }

  /** The same error with more context filled in (inner sites win: they are more precise). */
  withSite(outer: ErrorSite): GenError {
    return new GenError(this.kind, this.reason, { ...outer, ...this.site });
  }
}

function formatMessage(reason: string, site: ErrorSite): string {
  const parts: string[] = [];
  if (site.file) parts.push(site.file);
  if (site.node) parts.push(`node '${site.node}'${site.op ? ` (${site.op})` : ''}`);
  else if (site.op) parts.push(site.op);
  if (site.tensor) parts.push(`tensor '${site.tensor}'`);
  return parts.length > 0 ? `${parts.join(': ')}: ${reason}` : reason;
}

/** Exit codes shared by every command: 0 ok, 1 outputs differ, 2 bad input or failure. */
export const EXIT_OK = 0;
export const EXIT_MISMATCH = 1;
export const EXIT_ERROR = 2;
