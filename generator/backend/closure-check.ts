import { readdirSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import type { Project, SourceFile } from 'ts-morph';
import { GenError } from '../errors.js';
import { RUNTIME } from './paths.js';

/*
 * Closures are checked, not hoped for. AssemblyScript has no capturing closures, so a kernel body that names a
 * variable of the surrounding network (a buffer, a loop counter of the caller) would either fail to compile or,
 * worse, silently read a global. Every identifier a closure body uses must be its own local, a field of its
 * argument struct (`a.<field>`, declared by the generator), an AssemblyScript builtin or an export of the HAL.
 */

const AS_BUILTINS = new Set([
  'load', 'store', 'changetype', 'unchecked', 'min', 'max', 'abs', 'sqrt', 'floor', 'select', 'memory', 'v128',
  'i8', 'u8', 'i16', 'u16', 'i32', 'u32', 'i64', 'u64', 'isize', 'usize', 'bool', 'f32', 'f64', 'void',
  'StaticArray', 'Math', 'NaN', 'Infinity', 'true', 'false', 'null', 'abort', 'unreachable',
  // wasm SIMD namespaces (the kernels' fast paths, built with --enable simd).
  'i8x16', 'i16x8', 'i32x4', 'i64x2', 'f32x4', 'f64x2',
]);

let halExports: Set<string> | undefined;

/** Names the HAL (runtime/as) exports: what generated code may call from inside a closure. */
function halNames(): Set<string> {
  if (halExports) return halExports;
  halExports = new Set();
  const dir = join(RUNTIME, 'as');
  for (const f of readdirSync(dir).filter((x) => x.endsWith('.ts'))) {
    const text = readFileSync(join(dir, f), 'utf8');
    for (const m of text.matchAll(/export\s+(?:declare\s+)?(?:function|const|let|class)\s+([A-Za-z_]\w*)/g)) halExports.add(m[1]);
  }
  return halExports;
}

export interface ClosureSource {
  fn: string;
  /** Fields the generator declared as the closure's free variables. */
  fields: string[];
  /** The rendered AS of the struct class and the function. */
  source: string;
}

let project: Project | undefined;
/** ts-morph loads the TypeScript compiler (~1 s): only when firmware is generated, never for `gen run`. */
let morph: typeof import('ts-morph') | undefined;

export function checkClosures(closures: ClosureSource[]): void {
  morph ??= createRequire(import.meta.url)('ts-morph') as typeof import('ts-morph');
  project ??= new morph.Project({ useInMemoryFileSystem: true, compilerOptions: { noLib: true } });
  for (const c of closures) {
    const file = project.createSourceFile(`/${c.fn}.ts`, c.source, { overwrite: true });
    try {
      checkOne(file, c);
    } finally {
      project.removeSourceFile(file);
    }
  }
}

function fail(c: ClosureSource, why: string): never {
  throw new GenError('closure', `closure ${c.fn}: ${why}`);
}

function checkOne(file: SourceFile, c: ClosureSource): void {
  const { Node, SyntaxKind } = morph!;
  const struct = file.getClass(`${c.fn}_args`) ?? fail(c, 'has no argument struct');
  const declared = struct.getProperties().map((p) => p.getName());
  if (declared.join(',') !== c.fields.join(',')) {
    fail(c, `argument struct holds [${declared.join(', ')}] but the generator declared [${c.fields.join(', ')}]`);
  }
  const fn = file.getFunction(c.fn) ?? fail(c, 'function missing');
  const locals = new Set<string>(fn.getParameters().map((p) => p.getName()));
  fn.forEachDescendant((n) => {
    if (Node.isVariableDeclaration(n)) locals.add(n.getName());
  });
  const allowed = halNames();
  fn.getBody()?.forEachDescendant((n) => {
    if (!Node.isIdentifier(n)) return;
    const parent = n.getParent();
    if (Node.isPropertyAccessExpression(parent) && parent.getNameNode() === n) {
      // a.<field>: the struct is the only object a closure reads fields of.
      const target = parent.getExpression().getText();
      if (target === 'a' && !c.fields.includes(n.getText())) fail(c, `uses a.${n.getText()}, which its argument struct does not declare`);
      return;
    }
    const name = n.getText();
    if (locals.has(name) || AS_BUILTINS.has(name) || allowed.has(name) || name === `${c.fn}_args`) return;
    if (parent && parent.getKind() === SyntaxKind.TypeReference) return;
    fail(c, `captures '${name}', which is neither a local, a field of its argument struct, nor a HAL function`);
  });
}
