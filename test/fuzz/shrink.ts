import { cloneRecipe, type Recipe } from './recipe.js';

/**
 * Greedy shrinking of a failing recipe: drop steps (last first), then shrink input dimensions (to 1, halve, minus
 * one), then simplify each step's draws to zeros, keeping every edit under which `stillFails` holds, until nothing
 * helps or the attempt budget is spent. Every candidate is a valid graph (recipe.ts).
 */
export async function shrinkRecipe<R extends Recipe>(
  start: R, stillFails: (r: R) => Promise<boolean>, maxAttempts = 40,
): Promise<{ recipe: R; attempts: number }> {
  let best = start;
  let attempts = 0;
  const tryIt = async (cand: R): Promise<boolean> => {
    if (attempts >= maxAttempts) return false;
    attempts++;
    if (await stillFails(cand)) {
      best = cand;
      return true;
    }
    return false;
  };
  const copy = (): R => ({ ...best, ...cloneRecipe(best) });
  let progress = true;
  while (progress && attempts < maxAttempts) {
    progress = false;
    for (let i = best.steps.length - 1; i >= 0 && best.steps.length > 1; i--) {
      const c = copy();
      c.steps.splice(i, 1);
      if (await tryIt(c)) progress = true;
    }
    for (let k = 0; k < best.inputs.length; k++) {
      for (let a = 0; a < best.inputs[k].shape.length; a++) {
        for (const f of [(n: number) => 1, (n: number) => Math.ceil(n / 2), (n: number) => n - 1]) {
          const n = best.inputs[k].shape[a];
          const m = f(n);
          if (m >= n || m < 1) continue;
          const c = copy();
          // Inputs of the same shape stay the same shape: joins between them need it.
          for (const inp of c.inputs) if (inp.shape.join() === best.inputs[k].shape.join()) inp.shape[a] = m;
          if (await tryIt(c)) {
            progress = true;
            break;
          }
        }
      }
    }
    for (let i = 0; i < best.steps.length; i++) {
      if (best.steps[i].draws.every((v) => v === 0)) continue;
      const c = copy();
      c.steps[i].draws = c.steps[i].draws.map(() => 0);
      if (await tryIt(c)) progress = true;
    }
  }
  return { recipe: best, attempts };
}
