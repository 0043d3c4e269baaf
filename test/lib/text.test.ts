import { describe, expect, it } from 'vitest';
import { fold } from '../../src/lib/text.js';

describe('fold', () => {
  it('folds accents and case', () => {
    expect(fold('HISTÓRICO')).toBe('historico');
    expect(fold('Histórico')).toBe(fold('historico'));
    expect(fold('Lâmpada ÇÃO')).toBe('lampada cao');
  });
});
