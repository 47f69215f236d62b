import { describe, expect, it } from 'vitest';
import { MALLOC_TUNING, NO_RESPAWN_ENV, needsMallocRespawn } from '../../src/cli/malloc-tuning.js';

describe('needsMallocRespawn', () => {
  it('re-executes only bench on Linux when the glibc variables are missing', () => {
    expect(needsMallocRespawn(['bench'], {}, 'linux')).toBe(true);
    expect(needsMallocRespawn(['bench', '--config', 'tiny'], { ...MALLOC_TUNING }, 'linux')).toBe(false);
    expect(needsMallocRespawn(['flops'], {}, 'linux')).toBe(false);
    expect(needsMallocRespawn(['calibrate'], {}, 'linux')).toBe(true);
    expect(needsMallocRespawn(['bench', '--help'], {}, 'linux')).toBe(false);
    expect(needsMallocRespawn(['bench'], {}, 'darwin')).toBe(false);
    expect(needsMallocRespawn(['bench'], { [NO_RESPAWN_ENV]: '1' }, 'linux')).toBe(false);
  });
});
