import { describe, expect, it } from 'vitest';
import {
  dashboardForward,
  dashboardUrl,
  parseDashboardAddress,
  schedulerAddress,
} from '../../../src/config/addresses.js';
import { testSpec } from './spec-fixture.js';

describe('addresses', () => {
  it('builds the scheduler address from the scheduler host and port', () => {
    expect(schedulerAddress(testSpec({ workers: [] }))).toBe('tcp://n0:8786');
  });
  it('parses dask dashboard addresses', () => {
    expect(parseDashboardAddress(':8787')).toEqual({ host: '', port: 8787 });
    expect(parseDashboardAddress('127.0.0.1:9000')).toEqual({ host: '127.0.0.1', port: 9000 });
    expect(parseDashboardAddress('9001')).toEqual({ host: '', port: 9001 });
  });
  it('shows the dashboard on the scheduler host unless bound to a specific address', () => {
    expect(dashboardUrl(testSpec({ workers: [] }))).toBe('http://n0:8787/status');
    expect(dashboardUrl(testSpec({ workers: [], dashboard: '10.1.1.1:8000' }))).toBe('http://10.1.1.1:8000/status');
  });
  it('reaches an all-interfaces dashboard through the scheduler host loopback', () => {
    expect(dashboardForward(testSpec({ workers: [], dashboard: ':8787' }))).toEqual({ host: '127.0.0.1', port: 8787 });
    expect(dashboardForward(testSpec({ workers: [], dashboard: '10.1.1.1:8000' }))).toEqual({
      host: '10.1.1.1',
      port: 8000,
    });
  });
});
