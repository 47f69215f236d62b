import { availableParallelism } from 'node:os';
import { describe, expect, it } from 'vitest';
import { messages } from '../../../src/messages.js';
import { resolveThreads } from '../../../src/models/engines/ort/ort-session.js';
import { checkThreads, MAX_THREADS_PER_CORE, maxThreads } from '../../../src/models/engines/threads.js';
import { thrown } from '../../thrown.js';

describe('thread bound', () => {
  it('is 4 threads per core: 8 on 2 cores, 4 on 1, 4 × availableParallelism() by default', () => {
    expect(MAX_THREADS_PER_CORE).toBe(4);
    expect(maxThreads(2)).toBe(8);
    expect(maxThreads(1)).toBe(4);
    expect(maxThreads()).toBe(4 * availableParallelism());
  });

  it('accepts 1 and the bound itself; refuses the bound + 1 with one line naming --threads and the bound', () => {
    expect(checkThreads(1, 2)).toBe(1);
    expect(checkThreads(8, 2)).toBe(8);
    const error = thrown(() => checkThreads(9, 2));
    expect(error.code).toBe('INVALID_OPTION');
    expect(error.message).toBe(messages.threadsAboveBound(9, 8, 2));
    expect(error.message).not.toContain('\n');
    expect(error.message).toMatch(/^--threads 9 is more than 8, .*Pass --threads 8 or fewer/);
    expect(thrown(() => checkThreads(100_000, 3)).message).toBe(messages.threadsAboveBound(100_000, 12, 3));
  });

  it('omitted means every core; 0, fractions and non-numbers are refused as before', () => {
    expect(checkThreads(undefined, 3)).toBe(3);
    for (const bad of [0, -1, 1.5, Number.NaN])
      expect(thrown(() => checkThreads(bad, 2)).message).toBe(messages.invalidThreads(bad));
  });

  it('is what ONNX Runtime sessions use, against this machine', () => {
    const bound = maxThreads();
    expect(resolveThreads(bound)).toBe(bound);
    expect(resolveThreads(undefined)).toBe(availableParallelism());
    expect(thrown(() => resolveThreads(bound + 1)).message).toBe(
      messages.threadsAboveBound(bound + 1, bound, availableParallelism()),
    );
  });
});
