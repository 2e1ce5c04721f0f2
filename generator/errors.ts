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

/**
 * A memory that the generated image overflows, by how many bytes: what a caller can act on (a platform with a far
 * memory plans its arena smaller so that tensors move out, compile.ts generateFor).
 */
export class CapacityError extends GenError {
  readonly memory: string;
  readonly excess: number;

  constructor(reason: string, memory: string, excess: number, site: ErrorSite = {}) {
    super('capacity', reason, site);
    this.memory = memory;
    this.excess = excess;
  }

  override withSite(outer: ErrorSite): CapacityError {
    return new CapacityError(this.reason, this.memory, this.excess, { ...outer, ...this.site });
  }
}

function formatMessage(reason: string, site: ErrorSite): string {
  const parts: string[] = [];
  if (site.file) parts.push(printable(site.file));
  if (site.node) parts.push(`node ${quoted(site.node)}${site.op ? ` (${printable(site.op, 64)})` : ''}`);
  else if (site.op) parts.push(printable(site.op, 64));
  if (site.tensor) parts.push(`tensor ${quoted(site.tensor)}`);
  return parts.length > 0 ? `${parts.join(': ')}: ${printable(reason, 2000)}` : printable(reason, 2000);
}

/**
 * Text from a model or a user's file made safe for one terminal line: control characters (newlines, ANSI escapes,
 * DEL, C1 controls, line/paragraph separators, bidirectional overrides) shown as escapes, so a name can neither forge
 * a second line nor move the cursor; long text is cut with a mark.
 */
export function printable(text: string, max = 200): string {
  // eslint-disable-next-line no-control-regex
  const s = text.replace(/[\u0000-\u001f\u007f-\u009f\u2028\u2029\u200e\u200f\u202a-\u202e\u2066-\u2069]/g, (c) => {
    const code = c.charCodeAt(0);
    if (c === '\n') return '\\n';
    if (c === '\r') return '\\r';
    if (c === '\t') return '\\t';
    return code <= 0xff ? `\\x${code.toString(16).padStart(2, '0')}` : `\\u${code.toString(16).padStart(4, '0')}`;
  });
  return s.length > max ? `${s.slice(0, max)}...(${s.length - max} more)` : s;
}

/** A model name in quotes, printable, with its quotes escaped so it cannot end the quoting early. */
export function quoted(name: string): string {
  return `'${printable(name, 120).replace(/'/g, "\\'")}'`;
}

/** Exit codes shared by every command: 0 ok, 1 outputs differ, 2 bad input or failure. */
export const EXIT_OK = 0;
export const EXIT_MISMATCH = 1;
export const EXIT_ERROR = 2;
