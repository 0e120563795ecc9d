// Host files are UTF-8. Decoding silently turns a stray byte into U+FFFD, which could
// end up in a host name, a path or an env value; refuse it where it is instead.
import { ConfigError } from '../../errors.js';

/** Text of a UTF-8 file, or a ConfigError at the line and column of the first bad byte. */
export function decodeUtf8(bytes: Uint8Array, file: string): string {
  const bad = invalidUtf8At(bytes);
  if (bad < 0) return new TextDecoder('utf-8', { ignoreBOM: false }).decode(bytes);
  const lineStart = bytes.lastIndexOf(0x0a, bad - 1) + 1;
  const line = 1 + bytes.subarray(0, lineStart).filter((b) => b === 0x0a).length;
  const col = 1 + new TextDecoder().decode(bytes.subarray(lineStart, bad)).length;
  const byte = bytes[bad]!.toString(16).padStart(2, '0');
  throw new ConfigError({ file, line, col }, `not valid UTF-8 (byte 0x${byte}); a host file must be UTF-8 text`, {
    hint: `convert it, e.g. iconv -f latin1 -t utf-8 ${file}`,
  });
}

/** Offset of the first byte that does not start a valid UTF-8 sequence, else -1. */
export function invalidUtf8At(b: Uint8Array): number {
  for (let i = 0; i < b.length;) {
    const c = b[i]!;
    if (c < 0x80) {
      i++;
      continue;
    }
    // Continuation bytes, the smallest code point (no overlong forms) and the lead's bits.
    const n = c >= 0xc2 && c <= 0xdf ? 1 : c >= 0xe0 && c <= 0xef ? 2 : c >= 0xf0 && c <= 0xf4 ? 3 : 0;
    if (n === 0) return i;
    let cp = c & (0x3f >> n);
    for (let k = 1; k <= n; k++) {
      const x = b[i + k];
      if (x === undefined || (x & 0xc0) !== 0x80) return i;
      cp = (cp << 6) | (x & 0x3f);
    }
    const min = [0, 0x80, 0x800, 0x10000][n]!;
    if (cp < min || cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff)) return i;
    i += n + 1;
  }
  return -1;
}
