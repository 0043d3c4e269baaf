import { describe, expect, it } from 'vitest';
import type { Route } from '../../src/domain/routes.js';
import { renderNotFound, renderTimeout } from '../../src/render/errors.js';
import { offersRetry, renderAnswerModal, renderMaterialModal } from '../../src/render/home-modals.js';
import { ctx, material, NOW } from './fixtures.js';

const route: Route = { view: 'request', id: 1312, page: 1 };
const textOf = (view: { blocks: unknown }) => JSON.stringify(view.blocks);

describe('renderAnswerModal', () => {
  it('a failure that offered Tentar de novo says how to try again, since the button cannot work in a modal', () => {
    const timeout = renderTimeout(route, 'corr-1');
    expect(offersRetry(timeout)).toBe(true);
    const view = renderAnswerModal('Solicitação 1312', timeout, 1312);
    expect(textOf(view)).toContain('Para tentar de novo: `/solicitacao 1312` em um canal');
    expect(textOf(view)).not.toContain('"type":"actions"');
  });

  it('a failure with nothing to retry (not found) offers nothing', () => {
    expect(offersRetry(renderNotFound('request', 1312))).toBe(false);
  });
});

describe('pt-BR of the Home’s modals', () => {
  it('Buscar material says how old its list is in a phrase that reads (until 2026-11-27 "Lista de materiais de há 2 min")', () => {
    const match = {
      material: material(),
      typeName: null,
      categoryName: null,
      lastKnown: null,
      knownName: null,
    };
    const view = renderMaterialModal(
      { match, materialId: match.material.material, fetchedAt: NOW - 2 * 60_000 },
      ctx,
    );
    const text = JSON.stringify(view.blocks);
    expect(text).toContain('Lista de materiais lida há 2 min');
    expect(text).not.toContain('de há');
    const now = renderMaterialModal({ match, materialId: match.material.material, fetchedAt: NOW }, ctx);
    expect(JSON.stringify(now.blocks)).toContain('Lista de materiais lida agora');
  });
});
