import { describe, expect, it } from 'vitest';
import { unknownKeyHint } from '../../../src/config/read/did-you-mean.js';

// A level with keys `color`, `size` and a section `style` whose keys may be misplaced here.
const VALID = ['color', 'size', 'style'];
const SECTIONS = { style: ['colour', 'font', 'sise'] };
const hint = (key: string) => unknownKeyHint(key, VALID, SECTIONS);

describe('unknownKeyHint ranks the likelier reading first', () => {
  it('one edit from a key of this level: that key, then the section the key belongs to', () => {
    expect(hint('colour')).toBe('did you mean "color"? (or style.colour)');
    expect(hint('sise')).toBe('did you mean "size"? (or style.sise)');
  });

  it('two edits from a key of this level: the section only', () => {
    expect(unknownKeyHint('port', ['host', 'connect_options'], { connect_options: ['port'] })).toBe(
      '"port" belongs under connect_options',
    );
  });

  it('a section this level does not hold is not offered', () => {
    expect(unknownKeyHint('colour', ['color', 'size'], SECTIONS)).toBe('did you mean "color"?');
  });

  it('one reading alone, or the valid keys when there is none', () => {
    expect(hint('font')).toBe('"font" belongs under style');
    expect(hint('sizze')).toBe('did you mean "size"?');
    expect(hint('weight')).toBe('expected one of color, size, style');
  });
});
