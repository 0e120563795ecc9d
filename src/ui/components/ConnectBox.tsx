// `c`: how a Dask client on this machine connects to this cluster. `sshcluster env`
// exports the scheduler's address and, with TLS, the certificate files Dask needs (a
// plain Client('tls://…') fails with "TLS expects a ssl_context").
import { Box, Text } from 'ink';
import { useColor } from '../hooks/use-color.js';
import { wrapWords } from './wrap.js';

/** The shell line that points a client at this cluster. */
export function connectLine(name: string): string {
  return `eval "$(sshcluster env --name ${name})"`;
}

function lines(name: string): { text: string; code: boolean }[] {
  return [
    { text: 'Connect a Dask client from this machine (c or esc closes):', code: false },
    { text: connectLine(name), code: true },
    { text: 'then, in Python: from distributed import Client; client = Client()', code: true },
    {
      text: `It exports the scheduler's address and, with TLS, the certificates Dask needs. For a Python script instead: sshcluster env --name ${name} --python`,
      code: false,
    },
  ];
}

/** Rows the box takes at `width` columns (its border and padding included). */
export function connectBoxRows(name: string, width: number): number {
  const inner = Math.max(10, width - 4);
  return 2 + lines(name).reduce((n, l) => n + wrapWords(l.text, inner).length, 0);
}

export function ConnectBox({ name, width }: { name: string; width: number }) {
  const c = useColor();
  const inner = Math.max(10, width - 4);
  return (
    <Box flexDirection="column" borderStyle="round" borderColor={c('cyan')} paddingX={1}>
      {lines(name).flatMap((l, i) =>
        wrapWords(l.text, inner).map((row, j) => (
          <Text key={`${i}-${j}`} wrap="truncate" bold={l.code} dimColor={!l.code && i > 0}>
            {row}
          </Text>
        )),
      )}
    </Box>
  );
}
