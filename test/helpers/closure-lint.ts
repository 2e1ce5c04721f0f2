import { createRequire } from 'node:module';
import type { Project, SourceFile } from 'ts-morph';
import { AS_BUILTINS, halNames, type ClosureSource } from '../../generator/backend/closure-check.js';

/*
 * The same closure check read through ts-morph (the TypeScript compiler's syntax tree): the lint DESIGN.md names,
 * kept as the second reading that closure-scan.ts's token-level one is tested against. It loads the TypeScript
 * compiler (most of a second), so generation does not use it.
 */

let project: Project | undefined;
let morph: typeof import('ts-morph') | undefined;

/** Why a closure is not closed according to the syntax tree (null when it is). */
export function lintClosure(c: ClosureSource): string | null {
  morph ??= createRequire(import.meta.url)('ts-morph') as typeof import('ts-morph');
  project ??= new morph.Project({ useInMemoryFileSystem: true, compilerOptions: { noLib: true } });
  const file = project.createSourceFile(`/${c.fn}.ts`, c.source, { overwrite: true });
  try {
    return lintOne(file, c);
  } finally {
    project.removeSourceFile(file);
  }
}

function lintOne(file: SourceFile, c: ClosureSource): string | null {
  const { Node, SyntaxKind } = morph!;
  const struct = file.getClass(`${c.fn}_args`);
  if (!struct) return 'has no argument struct';
  const declared = struct.getProperties().map((p) => p.getName());
  if (declared.join(',') !== c.fields.join(',')) {
    return `argument struct holds [${declared.join(', ')}] but the generator declared [${c.fields.join(', ')}]`;
  }
  const fn = file.getFunction(c.fn);
  if (!fn) return 'function missing';
  const locals = new Set<string>(fn.getParameters().map((p) => p.getName()));
  fn.forEachDescendant((n) => {
    if (Node.isVariableDeclaration(n)) locals.add(n.getName());
    if (Node.isLabeledStatement(n)) locals.add(n.getLabel().getText());
  });
  const allowed = halNames();
  let fault: string | null = null;
  fn.getBody()?.forEachDescendant((n, walk) => {
    if (!Node.isIdentifier(n)) return;
    const parent = n.getParent();
    if (Node.isPropertyAccessExpression(parent) && parent.getNameNode() === n) {
      const target = parent.getExpression().getText();
      if (target === 'a' && !c.fields.includes(n.getText())) fault = `uses a.${n.getText()}, which its argument struct does not declare`;
      if (fault) walk.stop();
      return;
    }
    const name = n.getText();
    if (locals.has(name) || AS_BUILTINS.has(name) || allowed.has(name) || name === `${c.fn}_args`) return;
    if (parent && parent.getKind() === SyntaxKind.TypeReference) return;
    fault = `captures '${name}', which is neither a local, a field of its argument struct, nor a HAL function`;
    walk.stop();
  });
  return fault;
}
