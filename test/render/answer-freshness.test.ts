import { describe, expect, it } from 'vitest';
import { answerMessage, cacheLine, degradedWarning } from '../../src/render/answer.js';
import { renderTimeout } from '../../src/render/errors.js';
import { isFirstMessage, renderPending, renderQueued } from '../../src/render/progress.js';
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

describe('first messages, as a tool watching messages tells them from answers', () => {
  it('"consultando…", the place in the queue and saved data being refreshed are first messages; answers are not', () => {
    const saved = { fetchedAt: savedAt, fromCache: true, degraded: null };
    const route = { view: 'stockrooms' as const, page: 1 };
    const answer = (refreshing: boolean) =>
      answerMessage({
        text: 'Almoxarifados',
        body: [],
        route,
        freshness: saved,
        ctx: { ...ctx, refreshing },
      });
    expect(isFirstMessage(renderPending())).toBe(true);
    expect(isFirstMessage(renderQueued(3))).toBe(true);
    expect(renderQueued(3).text).toContain('posição 3');
    expect(isFirstMessage(answer(true))).toBe(true);
    expect(isFirstMessage(answer(false))).toBe(false);
    expect(isFirstMessage(renderTimeout(route, 'corr'))).toBe(false);
  });
});
