import * as assert from 'uvu/assert';
import { GenError } from '../../generator/errors.js';

/** The message of the GenError `f` throws; any other outcome fails the test. */
export function genError(f: () => unknown): string {
  try {
    f();
  } catch (e) {
    assert.instance(e, GenError);
    return (e as GenError).message;
  }
  throw new Error('expected a GenError');
}
