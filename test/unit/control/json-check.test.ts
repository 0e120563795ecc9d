// The state file's checks: the first problem with its path, unknown keys allowed.
import { describe, expect, it } from 'vitest';
import {
  arrayOf,
  literal,
  nullable,
  object,
  oneOf,
  optional,
  positiveInt,
  str,
  wholeNumber,
} from '../../../src/control/json-check.js';

const shape = object({
  version: literal(1),
  name: str,
  procs: arrayOf(object({ role: oneOf('scheduler', 'worker'), pid: optional(wholeNumber) })),
  controller: nullable(object({ pid: positiveInt })),
});

describe('json checks', () => {
  it('passes a good document, extra keys included', () => {
    expect(
      shape({ version: 1, name: 'a', procs: [{ role: 'worker', pid: 3, extra: true }], controller: null, more: 1 }, []),
    ).toBeUndefined();
  });

  it('says where the first problem is and what was expected', () => {
    expect(
      shape({ version: 1, name: 'a', procs: [{ role: 'worker' }, { role: 'boss' }], controller: null }, []),
    ).toEqual(['procs', '1', 'role', 'expected one of "scheduler", "worker", got string "boss"']);
    expect(shape({ version: 1, name: 'a', procs: [], controller: { pid: 0 } }, [])).toEqual([
      'controller',
      'pid',
      'expected a whole number > 0, got number 0',
    ]);
    expect(shape({ version: 1, procs: [], controller: null }, [])).toEqual(['name', 'expected a string, got nothing']);
    expect(shape([], [])).toEqual(['expected an object, got an array']);
  });
});
