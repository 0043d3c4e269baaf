import { describe, expect, it } from 'vitest';
import type { Route } from '../../src/domain/routes.js';
import { renderNotFound, renderTimeout } from '../../src/render/errors.js';
import { offersRetry, renderAnswerModal } from '../../src/render/home-modals.js';

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
