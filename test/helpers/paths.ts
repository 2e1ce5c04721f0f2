import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

/*
 * Locations for tests, from this module's own URL: the same code works from the sources (test/helpers) and from
 * the compiled tree (dist/test/helpers), since both sit at the same depth below their root.
 */

const here = fileURLToPath(new URL('.', import.meta.url));
const compiled = here.split(/[\\/]/).includes('dist');

/** The repository root. */
export const repoRoot = join(here, compiled ? '../../..' : '../..');
/** ../shared beside the repository: SEMANTICS.md, the executable spec and the Deeploy test vectors. */
export const sharedDir = join(repoRoot, '..', 'shared');
export const deeployDir = join(sharedDir, 'deeploy-tests');
