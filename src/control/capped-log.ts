// The detached controller's own log, controller.log: capped and rotated like the
// process logs (one rotated file), so nothing a cluster does can fill the disk through
// it. The controller's stdout and stderr descriptors point at the same file (for what
// Node itself prints on a crash), so rotation keeps the file in place: its last bytes
// are copied to controller.log.1 and it is truncated, and those O_APPEND descriptors
// go on writing at its new end.
import fs from 'node:fs';

export const CONTROLLER_LOG_MAX_BYTES = 5 * 1024 * 1024;

export class CappedLog {
  private fd?: number;

  constructor(
    readonly file: string,
    private readonly maxBytes = CONTROLLER_LOG_MAX_BYTES,
  ) {}

  write(text: string): void {
    try {
      this.fd ??= fs.openSync(this.file, 'a+', 0o600);
      let data = Buffer.from(text, 'utf8');
      if (data.length > this.maxBytes) data = data.subarray(data.length - this.maxBytes);
      const size = fs.fstatSync(this.fd).size;
      if (size > 0 && size + data.length > this.maxBytes) this.rotate(this.fd, size);
      fs.writeSync(this.fd, data);
    } catch {
      // A log that cannot be written (disk full) must not stop the controller.
    }
  }

  private rotate(fd: number, size: number): void {
    const keep = Math.min(size, this.maxBytes);
    const tail = Buffer.alloc(keep);
    const got = fs.readSync(fd, tail, 0, keep, size - keep);
    const old = `${this.file}.1`;
    fs.rmSync(old, { force: true });
    fs.writeFileSync(old, tail.subarray(0, got), { mode: 0o600, flag: 'wx' });
    fs.ftruncateSync(fd, 0);
  }

  close(): void {
    if (this.fd !== undefined) fs.closeSync(this.fd);
    this.fd = undefined;
  }
}
