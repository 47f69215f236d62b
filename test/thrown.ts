import { DantinoxError } from '../src/errors.js';

/** The {@link DantinoxError} `fn` throws; any other error, or none, fails the test. */
export function thrown(fn: () => unknown): DantinoxError {
  try {
    fn();
  } catch (error) {
    if (error instanceof DantinoxError) return error;
    throw error;
  }
  throw new Error('expected a DantinoxError');
}
