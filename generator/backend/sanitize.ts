/**
 * Identifiers and comments derived from model names. A model is untrusted input: a tensor called
 * `x; system("rm -rf /")` or containing `*\/` must not be able to change the meaning of the generated code.
 */
export function sanitizeIdentifier(name: string, fallback = 'x'): string {
  let s = name.replace(/[^A-Za-z0-9_]/g, '_').replace(/_+/g, '_');
  if (s.length === 0 || s === '_') s = fallback;
  if (/^[0-9]/.test(s)) s = `_${s}`;
  return s.slice(0, 48);
}

/** Text safe inside a C or TS block comment and on one line. */
export function sanitizeComment(text: string): string {
  // Cut first: both replacements keep every character's position, and the second pairs slashes from the left, so the
  // first 120 characters come out the same whatever follows them (a kernel's comment can run to kilobytes).
  return text.slice(0, 120).replace(/[^A-Za-z0-9_ .,:;()[\]=+\-#/]/g, '_').replace(/\/\//g, '/_');
}

/** Hands out unique symbols: the same input name twice gets the same symbol; collisions get a suffix. */
export class SymbolTable {
  private readonly byName = new Map<string, string>();
  private readonly used = new Set<string>();

  constructor(reserved: Iterable<string> = []) {
    for (const r of reserved) this.used.add(r);
  }

  symbol(name: string, prefix: string): string {
    const key = `${prefix}\u0000${name}`;
    const known = this.byName.get(key);
    if (known) return known;
    const base = `${prefix}${sanitizeIdentifier(name)}`;
    let s = base;
    for (let i = 1; this.used.has(s); i++) s = `${base}_${i}`;
    this.used.add(s);
    this.byName.set(key, s);
    return s;
  }
}

/** A file or folder name from model text: letters, digits, `.`, `_` and `-` only, never `.`/`..`, at most 64 characters. */
export function safeFileName(name: string, fallback = 'model'): string {
  const s = name.replace(/[^A-Za-z0-9._-]/g, '_').replace(/^[.]+/, '_').slice(0, 64);
  return s.length === 0 ? fallback : s;
}
