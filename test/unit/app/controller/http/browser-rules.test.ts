// The shared dashboard port forwards what a browser needs and none of the scheduler's
// unauthenticated API (issue 12, finding 3).
import { describe, expect, it } from 'vitest';
import { browserRefusal, normalizedPath } from '../../../../../src/app/controller/http/browser-rules.js';

const host = '127.0.0.1:8787';

describe('browserRefusal', () => {
  it('forwards the dashboard pages, statics and its websocket to a loopback Host', () => {
    for (const url of [
      '/status',
      '/statics/css/base.css',
      '/individual-task-stream',
      '/status/ws?bokeh-session-id=x',
      '/info/main/workers.html',
      '/json/identity.json',
      '/health',
      '/',
    ]) {
      expect(browserRefusal('GET', url, host), url).toBeUndefined();
    }
    expect(browserRefusal('HEAD', '/status', 'localhost:8787')).toBeUndefined();
    // ssh -L from a laptop keeps the Host a loopback name with another port.
    expect(browserRefusal('GET', '/status', 'localhost:9999')).toBeUndefined();
    expect(browserRefusal('GET', '/status', '[::1]:8787')).toBeUndefined();
  });

  it('refuses every method but GET and HEAD', () => {
    for (const m of ['POST', 'PUT', 'DELETE', 'PATCH', 'OPTIONS', 'CONNECT', undefined]) {
      expect(browserRefusal(m, '/status', host), String(m)).toMatch(/not forwarded/);
    }
  });

  it('refuses the API and the proxy however the path is spelled', () => {
    for (const url of [
      '/api/v1/retire_workers',
      '/api/v1',
      '/api',
      '/API/v1/get_workers',
      '//api/v1/get_workers',
      '/./api/v1/get_workers',
      '/status/../api/v1/get_workers',
      '/%61pi/v1/get_workers',
      '/api%2fv1/get_workers',
      '/%2561pi/v1',
      '/api\\v1',
      '/proxy/8788/10.0.0.2/status',
      '/proxy',
    ]) {
      expect(browserRefusal('GET', url, host), url).toMatch(/HTTP API|proxy/);
    }
    expect(browserRefusal('GET', '/apidocs', host)).toBeUndefined();
  });

  it('refuses a request target that is not a path, or a bad encoding', () => {
    expect(browserRefusal('GET', 'http://127.0.0.1:8787/api/v1/get_workers', host)).toMatch(/request target/);
    expect(browserRefusal('GET', '*', host)).toMatch(/request target/);
    expect(browserRefusal('GET', '/%E0%A4%A', host)).toMatch(/request target/);
  });

  it('refuses a Host that is not loopback (DNS rebinding from a web page)', () => {
    expect(browserRefusal('GET', '/status', 'evil.example:8787')).toMatch(/Host/);
    expect(browserRefusal('GET', '/status', '127.0.0.1.evil.example:8787')).toMatch(/Host/);
    expect(browserRefusal('GET', '/status', undefined)).toMatch(/Host/);
  });
});

describe('normalizedPath', () => {
  it('folds what a server could read as the same path', () => {
    expect(normalizedPath('/a//b/./c/../D?x=1')).toBe('/a/b/d');
  });
});
