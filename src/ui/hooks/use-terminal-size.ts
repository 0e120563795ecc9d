// Columns and rows of the terminal, re-read on resize (the screen cleared then).
import { useStdout } from 'ink';
import { useEffect, useState } from 'react';

export function useTerminalSize(fixed?: { width: number; height: number }): { width: number; height: number } {
  const { stdout } = useStdout();
  const read = () => ({ width: stdout.columns || 100, height: stdout.rows || 30 });
  const [size, setSize] = useState(read);
  useEffect(() => {
    if (fixed) return;
    const on = () => {
      // Ink's own resize handler has just drawn the old-sized frame into the new size;
      // its line count no longer matches the screen, so start from a clear one.
      stdout.write('\x1b[2J\x1b[H');
      setSize(read());
    };
    stdout.on('resize', on);
    return () => void stdout.off('resize', on);
  }, [stdout, fixed]);
  return fixed ?? size;
}
