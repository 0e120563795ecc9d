// NO_COLOR: one switch for every component. Emphasis that is not colour (bold,
// inverse) stays, as no-color.org allows.
import { createContext, useContext } from 'react';

export const ColorContext = createContext(true);

const PALETTE = [
  'cyan',
  'magenta',
  'blue',
  'green',
  'yellowBright',
  'cyanBright',
  'magentaBright',
  'blueBright',
] as const;

export function useColor(): (c: string) => string | undefined {
  const on = useContext(ColorContext);
  return (c) => (on ? c : undefined);
}

/** A stable colour per log source. */
export function sourceColor(source: string): string {
  if (source === 'sshcluster') return 'white';
  let h = 0;
  for (let i = 0; i < source.length; i++) h = (h * 31 + source.charCodeAt(i)) >>> 0;
  return PALETTE[h % PALETTE.length]!;
}
