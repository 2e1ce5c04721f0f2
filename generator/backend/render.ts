import Mustache from 'mustache';
import { readFileSync } from 'node:fs';
import { GenError } from '../errors.js';
import { TAGS, type Token, parseTokens, tokensOf } from './template-tokens.js';

/*
 * The one way templates are rendered. Custom tags because `{{ }}` collides with C initialisers, no HTML escaping,
 * and a name the view does not define is an error before rendering: mustache would silently print ''.
 */
export { TAGS };

const writer = new Mustache.Writer();

/** Renders `source` (the template called `templateName`); `tokens` are its parse when the caller has them. */
export function renderTemplate(source: string, view: object, templateName: string, tokens = parseTokens(source)): string {
  try {
    return renderChecked(tokens, [view], templateName);
  } catch (e) {
    if (e !== LAMBDA) throw e;
  }
  // A view with a function in it (mustache calls it): mustache renders, after the check alone.
  checkNames(tokens, [view], templateName);
  // What Mustache.render does after its parse (mustache 4.2 Writer.render), from tokens parsed once.
  return writer.renderTokens(tokens as never, new Mustache.Context(view), {}, source, { tags: TAGS, escape: String });
}

const cache = new Map<string, string>();

export function renderFile(path: string, view: object): string {
  let src = cache.get(path);
  if (src === undefined) {
    src = readFileSync(path, 'utf8');
    cache.set(path, src);
  }
  return renderTemplate(src, view, path, tokensOf(path, src));
}

/** Thrown by renderChecked on a function value: the template is rendered by mustache instead. */
const LAMBDA = Symbol('a function in the view');

/**
 * The check and the render in one walk: what mustache 4.2's Writer.renderTokens gives with escape = String (a value
 * is String(value), '&' appends it as it is, a section pushes its array items, its object, string or number, and
 * renders once for any other truthy value; an inverted section renders on a falsy value or an empty array), failing
 * on the first name no context defines, as checkNames does. A context that is no object (a string section's string)
 * defines no name, as in mustache's lookup of a name without dots. One walk: the check's and mustache's were most
 * of emit's time (node --cpu-prof), mustache's with a Context and a cache object per section item.
 */
function renderChecked(tokens: Token[], stack: unknown[], name: string): string {
  let out = '';
  for (const t of tokens) {
    const type = t[0];
    if (type === 'text') {
      out += t[1];
    } else if (type === 'name' || type === '&') {
      const v = lookup(t[1], stack, name);
      if (typeof v === 'function') throw LAMBDA;
      if (v != null) out += type === 'name' ? String(v) : v;
    } else if (type === '#') {
      const v = lookup(t[1], stack, name);
      if (typeof v === 'function') throw LAMBDA;
      if (!v) continue;
      const body = t[4] ?? [];
      if (Array.isArray(v)) {
        for (const item of v) {
          stack.push(item);
          out += renderChecked(body, stack, name);
          stack.pop();
        }
      } else if (typeof v === 'object' || typeof v === 'string' || typeof v === 'number') {
        stack.push(v);
        out += renderChecked(body, stack, name);
        stack.pop();
      } else out += renderChecked(body, stack, name);
    } else if (type === '^') {
      const v = lookup(t[1], stack, name);
      if (typeof v === 'function') throw LAMBDA;
      if (!v || (Array.isArray(v) && v.length === 0)) out += renderChecked(t[4] ?? [], stack, name);
    } else if (type === '>') {
      throw new GenError('template', `partials are not used ('${t[1]}')`, { file: name });
    }
  }
  return out;
}

/**
 * Walks the template as mustache would render it and fails on the first name no context defines. The context stack
 * is one array, innermost last, pushed and popped (a new array per section item was most of this walk's time).
 */
function checkNames(tokens: Token[], stack: unknown[], name: string): void {
  for (const t of tokens) {
    const [type, key] = t;
    if (type === 'name' || type === '&') {
      lookup(key, stack, name);
    } else if (type === '#') {
      const v = lookup(key, stack, name);
      const body = t[4] ?? [];
      if (Array.isArray(v)) {
        for (const item of v) {
          stack.push(item);
          checkNames(body, stack, name);
          stack.pop();
        }
      } else if (v && typeof v === 'object') {
        stack.push(v);
        checkNames(body, stack, name);
        stack.pop();
      } else if (v) checkNames(body, stack, name);
    } else if (type === '^') {
      const v = lookup(key, stack, name);
      if (!v || (Array.isArray(v) && v.length === 0)) checkNames(t[4] ?? [], stack, name);
    } else if (type === '>') {
      throw new GenError('template', `partials are not used ('${key}')`, { file: name });
    }
  }
}

/**
 * Dotted keys split once (the templates' keys: a few hundred). A split per look-up was about half of look-up's time
 * (9 -> 5 ms a warm run of the decoder, node --cpu-prof).
 */
const PARTS = new Map<string, string[]>();

/** The value of `key` in the innermost context (the stack's last) that defines its first part. */
function lookup(key: string, stack: unknown[], template: string): unknown {
  if (key === '.') return stack[stack.length - 1];
  // (Most keys are one name: no array of parts for them; every render walks its whole template here.)
  if (!key.includes('.')) {
    for (let i = stack.length - 1; i >= 0; i--) {
      const ctx = stack[i];
      if (ctx && typeof ctx === 'object' && key in (ctx as object)) {
        const v = (ctx as Record<string, unknown>)[key];
        if (v === undefined) throw new GenError('template', `'${key}' is undefined in the view`, { file: template });
        return v;
      }
    }
    throw new GenError('template', `'${key}' is not defined by the view`, { file: template });
  }
  let parts = PARTS.get(key);
  if (parts === undefined) {
    parts = key.split('.');
    PARTS.set(key, parts);
  }
  for (let i = stack.length - 1; i >= 0; i--) {
    const ctx = stack[i];
    if (ctx && typeof ctx === 'object' && parts[0] in (ctx as object)) {
      let v: unknown = ctx;
      for (const p of parts) {
        if (!v || typeof v !== 'object' || !(p in (v as object))) {
          throw new GenError('template', `'${key}' is not defined by the view`, { file: template });
        }
        v = (v as Record<string, unknown>)[p];
      }
      if (v === undefined) throw new GenError('template', `'${key}' is undefined in the view`, { file: template });
      return v;
    }
  }
  throw new GenError('template', `'${key}' is not defined by the view`, { file: template });
}
