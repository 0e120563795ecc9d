import { describe, expect, it } from 'vitest';
import { CONTROLLER_V8_FLAGS, controllerV8Flags, LARGE_CLUSTER_HOSTS } from '../../../../src/app/commands/detach.js';

describe('the background controller V8 flags', () => {
  it('keep the compilers off at any size, and grow the heap in smaller steps only from LARGE_CLUSTER_HOSTS hosts', () => {
    expect(controllerV8Flags(4)).toEqual(CONTROLLER_V8_FLAGS);
    expect(controllerV8Flags(LARGE_CLUSTER_HOSTS - 1)).toEqual(CONTROLLER_V8_FLAGS);
    expect(controllerV8Flags(LARGE_CLUSTER_HOSTS)).toEqual([...CONTROLLER_V8_FLAGS, '--heap-growing-percent=50']);
    expect(controllerV8Flags(10_000)).toContain('--heap-growing-percent=50');
  });
});
