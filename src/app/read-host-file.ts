// The host file is read whole, so a device (/dev/zero), a FIFO or a huge file would hang
// or eat memory: only a regular file up to MAX_HOST_FILE_BYTES is read, checked on the
// open descriptor (no window between the check and the read).
import fs from 'node:fs';
import { ConfigError } from '../errors.js';

/** Thousands of host entries fit in far less; the YAML parser needs ~60x this in memory. */
export const MAX_HOST_FILE_BYTES = 1024 * 1024;

export function readHostFileBytes(file: string): Buffer {
  // O_NONBLOCK: opening a FIFO for reading would otherwise wait for a writer.
  const fd = fs.openSync(file, fs.constants.O_RDONLY | fs.constants.O_NONBLOCK | fs.constants.O_NOCTTY);
  try {
    const st = fs.fstatSync(fd);
    if (!st.isFile()) throw new ConfigError({ file }, `not a regular file (${kindOf(st)}); expected a YAML host file`);
    if (st.size > MAX_HOST_FILE_BYTES) throw tooBig(file);
    // Read one byte past the limit: a file that grows meanwhile is refused too.
    const buf = Buffer.alloc(MAX_HOST_FILE_BYTES + 1);
    let n = 0;
    for (let got; n < buf.length && (got = fs.readSync(fd, buf, n, buf.length - n, null)) > 0;) n += got;
    if (n > MAX_HOST_FILE_BYTES) throw tooBig(file);
    return buf.subarray(0, n);
  } finally {
    fs.closeSync(fd);
  }
}

function tooBig(file: string): ConfigError {
  return new ConfigError(
    { file },
    `over ${MAX_HOST_FILE_BYTES / 2 ** 20} MiB, too big for a host file; expected a YAML host file`,
  );
}

function kindOf(st: fs.Stats): string {
  if (st.isDirectory()) return 'a directory';
  if (st.isFIFO()) return 'a FIFO';
  if (st.isCharacterDevice()) return 'a character device';
  if (st.isBlockDevice()) return 'a block device';
  if (st.isSocket()) return 'a socket';
  return 'not a file';
}
