import { describe, expect, it } from 'vitest';
import { parseRetire } from '../../../src/dask/retire-json.js';

const req = { method: 'POST', path: '/api/v1/retire_workers' };

describe('parseRetire', () => {
  it("Dask's answer lists the retired only: an asked worker left out was kept (its results had nowhere to go)", () => {
    expect(parseRetire(req, ['tcp://a:1', 'tcp://b:2'], { 'tcp://a:1': { name: 'a' } })).toEqual({
      retired: ['tcp://a:1'],
      kept: [{ address: 'tcp://b:2' }],
    });
    expect(parseRetire(req, ['tcp://a:1'], {})).toEqual({ retired: [], kept: [{ address: 'tcp://a:1' }] });
    // retire {n}: the scheduler picked; nothing was asked by address.
    expect(parseRetire(req, undefined, { 'tcp://a:1': {} })).toEqual({ retired: ['tcp://a:1'], kept: [] });
  });

  it("the preload's answer says what was kept and how many results only it holds", () => {
    const body = {
      retired: { 'tcp://a:1': {} },
      kept: { 'tcp://b:2': { results: 20 }, 'tcp://c:3': { results: 'x' } },
    };
    expect(parseRetire(req, ['tcp://a:1', 'tcp://b:2', 'tcp://c:3'], body)).toEqual({
      retired: ['tcp://a:1'],
      kept: [{ address: 'tcp://b:2', results: 20 }, { address: 'tcp://c:3' }],
    });
  });

  it('refuses what is not an object', () => {
    expect(() => parseRetire(req, [], [1])).toThrow(/expected an object keyed by worker address/);
  });
});
