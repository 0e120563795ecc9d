// Words into lines of at most `width` characters: a word longer than a line is broken,
// never cut, so every sentence shown is whole.
export function wrapWords(text: string, width: number): string[] {
  const w = Math.max(1, width);
  const out: string[] = [];
  let line = '';
  for (const word of text.split(' ')) {
    if (line && line.length + 1 + word.length > w) {
      out.push(line);
      line = '';
    }
    let rest = line ? `${line} ${word}` : word;
    while (rest.length > w) {
      out.push(rest.slice(0, w));
      rest = rest.slice(w);
    }
    line = rest;
  }
  if (line || out.length === 0) out.push(line);
  return out;
}
