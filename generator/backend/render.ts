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
  const parts = key.split('.');
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
