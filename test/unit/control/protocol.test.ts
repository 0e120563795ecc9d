import { describe, expect, it } from 'vitest';
import { ExpectedError, UsageError } from '../../../src/errors.js';
import {
  LineDecoder,
  ProtocolError,
  decodeRequest,
  decodeServerMessage,
  encodeMessage,
  errorBody,
  errorFromBody,
} from '../../../src/control/protocol.js';

describe('control protocol', () => {
  it('encodes one JSON object per line and decodes it back', () => {
    const line = encodeMessage({ id: 3, method: 'scale', params: { n: 4 } });
    expect(line).toBe('{"id":3,"method":"scale","params":{"n":4}}\n');
    expect(decodeRequest(line.trim())).toEqual({ id: 3, method: 'scale', params: { n: 4 } });
    const ok = encodeMessage({ id: 3, ok: true, result: [1] });
    expect(decodeServerMessage(ok.trim())).toEqual({ id: 3, ok: true, result: [1] });
    const ev = encodeMessage({ event: { kind: 'notice', level: 'info', message: 'hi' } });
    expect(decodeServerMessage(ev.trim())).toEqual({ event: { kind: 'notice', level: 'info', message: 'hi' } });
  });

  it('maps errors to bodies and back, keeping hint and exit code', () => {
    const body = errorBody(new UsageError('bad N', { hint: 'give a number' }));
    expect(body).toEqual({ message: 'bad N', hint: 'give a number', exitCode: 2 });
    expect(errorBody(new TypeError('x is undefined'))).toEqual({ message: 'x is undefined', exitCode: 1 });
    const back = errorFromBody(body);
    expect(back).toBeInstanceOf(ExpectedError);
    expect([back.message, back.hint, back.exitCode]).toEqual(['bad N', 'give a number', 2]);
    const line = encodeMessage({ id: 1, ok: false, error: body }).trim();
    expect(decodeServerMessage(line)).toEqual({ id: 1, ok: false, error: body });
  });

  it('refuses what is not a request', () => {
    for (const bad of [
      'nope',
      '[]',
      '{"method":"x"}',
      '{"id":0,"method":"x"}',
      '{"id":1.5,"method":"x"}',
      '{"id":1}',
    ]) {
      expect(() => decodeRequest(bad)).toThrow(ProtocolError);
    }
    expect(() => decodeServerMessage('{"id":1,"ok":false}')).toThrow(ProtocolError);
    expect(() => decodeServerMessage('{"event":{}}')).toThrow(ProtocolError);
  });

  it('refuses to encode a line over the limit', () => {
    expect(() => encodeMessage({ id: 1, ok: true, result: 'x'.repeat(200) }, 100)).toThrow(
      /exceeds the 100-byte line limit/,
    );
    expect(encodeMessage({ id: 1, ok: true, result: 'é'.repeat(20) }, 100)).toHaveLength(51);
  });

  it('splits chunks into lines, across chunk boundaries and multi-byte characters', () => {
    const d = new LineDecoder(64);
    const bytes = Buffer.from('{"a":"é"}\n\n{"b":2}\n{"c"');
    expect(d.push(bytes.subarray(0, 7))).toEqual([]); // cuts the é in half
    expect(d.push(bytes.subarray(7))).toEqual(['{"a":"é"}', '{"b":2}']);
    expect(d.push(Buffer.from(':3}\n'))).toEqual(['{"c":3}']);
  });

  it('throws on a line over the limit, even before its newline arrives', () => {
    const d = new LineDecoder(10);
    d.push(Buffer.from('12345'));
    expect(() => d.push(Buffer.from('678901'))).toThrow(/exceeds the 10-byte limit/);
    expect(() => new LineDecoder(10).push(Buffer.from('12345678901\n'))).toThrow(ProtocolError);
    expect(new LineDecoder(10).push(Buffer.from('1234567890\n'))).toEqual(['1234567890']);
  });
});
