// POSIX sh quoting of one word, for the commands we run on hosts and the ones we show
// (a hint's `ssh` line): a leaf every layer may use, so `list` and `status` load no SSH code for it.
const SAFE_WORD = /^[A-Za-z0-9_\-+.,/:@%]+$/;

/** Bare when harmless, else single-quoted. */
export function quoteWord(word: string): string {
  if (SAFE_WORD.test(word)) return word;
  return `'${word.replace(/'/g, `'\\''`)}'`;
}
