/**
 * A token-level reader of the AssemblyScript the closure templates produce: enough of the language to find a
 * closure's argument struct, its function's parameters and locals, and every identifier its body names. It serves
 * the closure check in milliseconds (the TypeScript compiler behind ts-morph takes most of a second to load), and is
 * conservative: what it does not understand (destructuring, nested functions, arrows) is reported, never passed.
 * test/backend/closure-check.test.ts holds it against the ts-morph reading on every closure the test models produce.
 */

export interface Token {
  kind: 'ident' | 'punct' | 'number' | 'string';
  text: string;
}

// Character classes by code (a regular expression per character was most of the check's time).
export const isDigit = (c: number): boolean => c >= 48 && c <= 57;
export const isIdentStart = (c: number): boolean => (c >= 65 && c <= 90) || (c >= 97 && c <= 122) || c === 95 || c === 36;
export const isIdentPart = (c: number): boolean => isIdentStart(c) || isDigit(c);

/** Tokens of AS source: comments and white space dropped; strings, numbers, identifiers and one-character punctuation. */
export function tokenize(source: string): Token[] {
  const out: Token[] = [];
  const n = source.length;
  let i = 0;
  while (i < n) {
    const c = source[i];
    if (c === ' ' || c === '\t' || c === '\n' || c === '\r') { i++; continue; }
    if (c === '/' && source[i + 1] === '/') { while (i < n && source[i] !== '\n') i++; continue; }
    if (c === '/' && source[i + 1] === '*') {
      const end = source.indexOf('*/', i + 2);
      i = end < 0 ? n : end + 2;
      continue;
    }
    if (c === '"' || c === "'" || c === '`') {
      let j = i + 1;
      while (j < n && source[j] !== c) j += source[j] === '\\' ? 2 : 1;
      out.push({ kind: 'string', text: source.slice(i, j + 1) });
      i = j + 1;
      continue;
    }
    if (isDigit(source.charCodeAt(i)) || (c === '.' && isDigit(source.charCodeAt(i + 1)))) {
      const m = /^(0[xXbBoO][0-9a-fA-F_]+|[0-9_]*\.?[0-9_]+(?:[eE][+-]?[0-9]+)?)/.exec(source.slice(i, i + 64))!;
      out.push({ kind: 'number', text: m[0] });
      i += m[0].length;
      continue;
    }
    if (isIdentStart(source.charCodeAt(i))) {
      let j = i + 1;
      while (j < n && isIdentPart(source.charCodeAt(j))) j++;
      out.push({ kind: 'ident', text: source.slice(i, j) });
      i = j;
      continue;
    }
    out.push({ kind: 'punct', text: c });
    i++;
  }
  return out;
}

/** Words of the language a closure body may use that name nothing. */
const KEYWORDS = new Set([
  'let', 'const', 'var', 'if', 'else', 'for', 'while', 'do', 'return', 'break', 'continue', 'switch', 'case', 'default',
  'as', 'new', 'typeof', 'instanceof', 'in', 'of', 'void',
]);

const LOOPS = new Set(['for', 'while', 'do']);

/** What the closure check needs from one rendered closure (struct class + function). */
export interface ClosureShape {
  /** The struct's fields in order, or undefined when the class is missing. */
  fields?: string[];
  /** False when the function is missing. */
  hasFunction: boolean;
  /** Parameters, declared locals and labels of the function. */
  locals: Set<string>;
  /** Every free identifier of the body (not after a '.'), in order, and every field read as `a.<field>`. */
  names: string[];
  structReads: string[];
  /** Constructs the reader does not follow: the check refuses the closure rather than guess. */
  unsupported: string[];
}

/** Index of the token closing the bracket opened at `open`. */
function closing(t: Token[], open: number): number {
  const o = t[open].text;
  const c = o === '{' ? '}' : o === '(' ? ')' : ']';
  let depth = 0;
  for (let i = open; i < t.length; i++) {
    if (t[i].kind !== 'punct') continue;
    if (t[i].text === o) depth++;
    else if (t[i].text === c && --depth === 0) return i;
  }
  return t.length - 1;
}

function find(t: Token[], from: number, pred: (i: number) => boolean): number {
  for (let i = from; i < t.length; i++) if (pred(i)) return i;
  return -1;
}

export function readClosure(source: string, fn: string): ClosureShape {
  const t = tokenize(source);
  const isIdent = (i: number, text: string): boolean => t[i]?.kind === 'ident' && t[i].text === text;
  const isPunct = (i: number, text: string): boolean => t[i]?.kind === 'punct' && t[i].text === text;
  const shape: ClosureShape = { hasFunction: false, locals: new Set(), names: [], structReads: [], unsupported: [] };

  const cls = find(t, 0, (i) => isIdent(i, 'class') && isIdent(i + 1, `${fn}_args`));
  if (cls >= 0) {
    const open = find(t, cls, (i) => isPunct(i, '{'));
    const close = closing(t, open);
    shape.fields = [];
    // A property: an identifier opening a member (after '{' or ';') followed by ':'.
    for (let i = open + 1; i < close; i++) {
      if (t[i].kind === 'ident' && isPunct(i + 1, ':') && (isPunct(i - 1, '{') || isPunct(i - 1, ';'))) shape.fields.push(t[i].text);
    }
  }

  const fnAt = find(t, 0, (i) => isIdent(i, 'function') && isIdent(i + 1, fn) && isPunct(i + 2, '('));
  if (fnAt < 0) return shape;
  shape.hasFunction = true;
  const paramsEnd = closing(t, fnAt + 2);
  for (let i = fnAt + 3; i < paramsEnd; i++) {
    if (t[i].kind === 'ident' && isPunct(i + 1, ':') && (isPunct(i - 1, '(') || isPunct(i - 1, ','))) shape.locals.add(t[i].text);
  }
  const bodyOpen = find(t, paramsEnd, (i) => isPunct(i, '{'));
  const bodyClose = closing(t, bodyOpen);
  for (let i = bodyOpen + 1; i < bodyClose; i++) {
    const tok = t[i];
    if (tok.kind !== 'ident') {
      if (tok.text === '=' && isPunct(i + 1, '>')) shape.unsupported.push('an arrow function');
      continue;
    }
    const w = tok.text;
    if (w === 'let' || w === 'const' || w === 'var') {
      if (t[i + 1]?.kind === 'ident') shape.locals.add(t[i + 1].text);
      else shape.unsupported.push(`a destructuring ${w}`);
      continue;
    }
    if (w === 'function' || w === 'class') { shape.unsupported.push(`a nested ${w}`); continue; }
    if (isPunct(i - 1, '.')) {
      // a.<field> reads the struct (unless the 'a' is itself a property: x.a.f).
      if (isIdent(i - 2, 'a') && !isPunct(i - 3, '.')) shape.structReads.push(w);
      continue;
    }
    // A loop label: `name: for|while|do` opening a statement.
    if (isPunct(i + 1, ':') && LOOPS.has(t[i + 2]?.text ?? '') && (isPunct(i - 1, ';') || isPunct(i - 1, '{') || isPunct(i - 1, '}'))) {
      shape.locals.add(w);
      continue;
    }
    if (KEYWORDS.has(w)) continue;
    shape.names.push(w);
  }
  return shape;
}
