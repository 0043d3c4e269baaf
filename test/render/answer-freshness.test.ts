import { describe, expect, it } from 'vitest';
import { cacheLine, degradedWarning } from '../../src/render/answer.js';
import type { RenderContext } from '../../src/render/types.js';

const now = Date.UTC(2026, 10, 23, 13, 0);
const ctx: RenderContext = { timeZone: 'America/Sao_Paulo', now };
const savedAt = now - 6 * 3_600_000;

describe('what an answer says about its saved data', () => {
  it('while the fresh answer waits for a budget slot: atualizando, with the age, and no cache line', () => {
    const freshness = { fetchedAt: savedAt, fromCache: true, degraded: null };
    const refreshing = { ...ctx, refreshing: true };
    expect(degradedWarning(freshness, refreshing)).toBe(
      ':arrows_counterclockwise: Atualizando… mostrando dados salvos de 23/11/2026 04:00 (há 6 h); esta mensagem muda quando a consulta terminar.',
    );
    expect(cacheLine(freshness, refreshing)).toBeNull();
  });

  it('when the budget is spent: the saved data, and when new queries can be made', () => {
    const freshness = {
      fetchedAt: savedAt,
      fromCache: true,
      degraded: 'budget' as const,
      retryAt: now + 32 * 60_000,
    };
    expect(degradedWarning(freshness, ctx)).toBe(
      ':warning: Limite de consultas ao sistema atingido: mostrando dados salvos de 23/11/2026 04:00 (há 6 h). Novas consultas às 10:32.',
    );
    const { retryAt: _, ...unknown } = freshness;
    expect(degradedWarning(unknown, ctx)).toBe(
      ':warning: Limite de consultas ao sistema atingido: mostrando dados salvos de 23/11/2026 04:00 (há 6 h).',
    );
  });
});
