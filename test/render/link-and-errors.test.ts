import type { InputBlock } from '@slack/types';
import { describe, expect, it } from 'vitest';
import { encodeRoute } from '../../src/domain/routes.js';
import type { LinkStatusView } from '../../src/domain/views.js';
import { ActionIds, BlockIds, InputActionIds, ViewIds } from '../../src/render/ids.js';
import {
  checkMessageLimits,
  linkFieldErrors,
  renderBudgetExhausted,
  renderCredentialsExpired,
  renderDigestComingSoon,
  renderLinked,
  renderLinkModal,
  renderLinkRefused,
  renderLinkStatus,
  renderLinkUnavailable,
  renderNotFound,
  renderNotLinked,
  renderServerError,
  renderTimeout,
  renderUnlinkConfirm,
  renderUnlinked,
  renderUpstreamRejected,
} from '../../src/render/index.js';
import { allText, buttonNamed, buttonsOf, ctx, NOW } from './fixtures.js';

const status: LinkStatusView = {
  linked: true,
  broken: false,
  checks: null,
  linkedBy: 'U0ADMIN',
  linkedAt: Date.UTC(2026, 10, 19, 12, 0),
  login: 'manutencao@predio.com.br',
  empresaId: 12,
  unidadeId: 4,
  tokenExpiresAt: NOW + 90 * 60_000,
  refreshExpiresAt: NOW + 6 * 86_400_000,
  budget: { limit: 250, windowMs: 3_600_000, used: 37, remaining: 213, pausedUntil: null },
  cache: { hits: 45, misses: 15 },
  feed: null,
};

describe('link status', () => {
  it('shows who linked, when, the company, the budget in words and the cache hit rate', () => {
    const text = allText(renderLinkStatus(status, ctx));
    expect(text).toContain('<@U0ADMIN> em 19/11/2026 09:00');
    expect(text).toContain('manutencao@predio.com.br');
    expect(text).toContain('*Empresa*\n12');
    expect(text).toContain('*Unidade*\n4');
    expect(text).toContain('37 de 250 consultas usadas na última hora, 213 livres');
    expect(text).toContain('75% de acertos');
    // Until 2026-11-27 "(em 1 h)" for 1 h 30 min.
    expect(text).toContain('22/11/2026 12:06 (em 1 h 30 min)');
  });

  it('shows the change feed: its interval in force and its share of the window, or that it costs nothing', () => {
    const feed = {
      listening: true,
      intervalMs: 300_000,
      stretchedBy: null,
      used: 12,
      cap: 50,
      saturated: false,
      shareCap: 50,
    };
    expect(allText(renderLinkStatus({ ...status, feed }, ctx))).toContain(
      '*Alertas*\nverificação a cada 5 min · 12 de 50 consultas da cota dos alertas usadas na janela',
    );
    // In pt-BR words (until 2026-11-27 "a cada 288s", "a cada 2m").
    expect(
      allText(
        renderLinkStatus({ ...status, feed: { ...feed, intervalMs: 288_000, stretchedBy: 'share' } }, ctx),
      ),
    ).toContain('verificação a cada 4 min 48 s (');
    // Longer than FEED_INTERVAL: says why, without naming the setting (until 2026-11-27 `FEED_INTERVAL`).
    expect(allText(renderLinkStatus({ ...status, feed: { ...feed, stretchedBy: 'share' } }, ctx))).toContain(
      'verificação a cada 5 min (mais espaçada que o intervalo configurado: a cota dos alertas não paga',
    );
    expect(allText(renderLinkStatus({ ...status, feed: { ...feed, stretchedBy: 'load' } }, ctx))).toContain(
      'as verificações esperaram por consultas livres na janela',
    );
    expect(
      allText(renderLinkStatus({ ...status, feed: { ...feed, listening: false, used: 0 } }, ctx)),
    ).toContain('sem assinantes (nenhuma consulta)');
    expect(allText(renderLinkStatus({ ...status, feed: { ...feed, cap: 0, shareCap: 0 } }, ctx))).toContain(
      'desligados (a configuração do bot não reserva consultas para os alertas)',
    );
    // Off for the window because of the saturated share alone: that one is said, not the share being off.
    const stopped = allText(
      renderLinkStatus({ ...status, feed: { ...feed, cap: 0, saturated: true, used: 0 } }, ctx),
    );
    expect(stopped).toContain(
      'parados nesta janela: comandos esperaram por consultas, e a configuração do bot não deixa consultas para os alertas quando isso acontece',
    );
    expect(stopped).not.toContain('desligados');
    // No setting's name reaches a person (until 2026-11-27 `FEED_INTERVAL`, `FEED_BUDGET_SHARE`…).
    for (const variant of [
      { stretchedBy: 'share' as const },
      { stretchedBy: 'load' as const },
      { cap: 0, shareCap: 0 },
      { cap: 0, saturated: true },
    ])
      expect(allText(renderLinkStatus({ ...status, feed: { ...feed, ...variant } }, ctx))).not.toMatch(
        /FEED_/,
      );
    expect(allText(renderLinkStatus(status, ctx))).not.toContain('Alertas');
    // Commands were refused slots in this window: the feed keeps to its smaller share, and says so.
    expect(
      allText(renderLinkStatus({ ...status, feed: { ...feed, used: 2, cap: 12, saturated: true } }, ctx)),
    ).toContain(
      '2 de 12 consultas da cota dos alertas usadas na janela (cota reduzida: comandos esperaram por consultas nesta janela)',
    );
  });

  it('uses the window length in words and says until when calls are paused', () => {
    const paused = renderLinkStatus(
      {
        ...status,
        budget: { limit: 25, windowMs: 36_000, used: 25, remaining: 0, pausedUntil: NOW + 5 * 60_000 },
      },
      ctx,
    );
    expect(allText(paused)).toContain('25 de 25 consultas usadas nos últimos 36 s, 0 livres');
    expect(allText(paused)).toContain('*Pausado*\naté 10:41');
  });

  it('tells how to link when not linked, and that an admin must link again when broken', () => {
    const unlinked = allText(
      renderLinkStatus(
        { ...status, linked: false, linkedBy: null, login: null, budget: null, cache: null },
        ctx,
      ),
    );
    expect(unlinked).toContain('não está vinculado');
    expect(unlinked).toContain('`/estoque vincular`');
    const broken = allText(renderLinkStatus({ ...status, broken: true }, ctx));
    expect(broken).toContain('Um administrador precisa vincular de novo');
  });

  it('a broken link says when the bot checks it again by itself, or why it will not', () => {
    const checked = allText(
      renderLinkStatus({ ...status, broken: true, checks: { nextAt: NOW + 20 * 60_000 } }, ctx),
    );
    expect(checked).toContain('O vínculo parou de funcionar');
    expect(checked).toContain('O bot verifica de novo sozinho');
    expect(checked).toContain('próxima verificação automática às 10:56');
    expect(checked).toContain(
      'Se a senha mudou ou o login perdeu o acesso, um administrador vincula de novo',
    );
    const tomorrow = allText(
      renderLinkStatus({ ...status, broken: true, checks: { nextAt: NOW + 86_400_000 } }, ctx),
    );
    expect(tomorrow).toContain('próxima verificação automática em 23/11/2026 às 10:36');
    const overdue = allText(renderLinkStatus({ ...status, broken: true, checks: { nextAt: NOW - 1 } }, ctx));
    expect(overdue).toContain('próxima verificação automática em instantes');
    const password = allText(
      renderLinkStatus({ ...status, broken: true, checks: { nextAt: null, ended: 'password' } }, ctx),
    );
    expect(password).toContain('recusou a senha guardada. O bot não tenta de novo sozinho');
    expect(password).toContain('Um administrador precisa vincular de novo com `/estoque vincular`.');
    const ended = allText(
      renderLinkStatus({ ...status, broken: true, checks: { nextAt: null, ended: 'ended' } }, ctx),
    );
    expect(ended).toContain('as verificações automáticas terminaram');
  });
});

describe('link modal', () => {
  const modal = renderLinkModal();
  const inputs = modal.blocks.filter((block): block is InputBlock => block.type === 'input');
  const byBlock = new Map(inputs.map((block) => [block.block_id, block]));

  it('has the ids the Slack layer reads and fits the modal limits', () => {
    expect(modal.callback_id).toBe(ViewIds.linkModal);
    expect(modal.title.text).toBe('Vincular estoque');
    expect(modal.submit?.text).toBe('Vincular');
    expect(modal.close?.text).toBe('Cancelar');
    expect(checkMessageLimits(modal)).toEqual([]);
    expect(
      inputs.map((block) => [block.block_id, (block.element as { action_id: string }).action_id]),
    ).toEqual([
      [BlockIds.linkLogin, InputActionIds.login],
      [BlockIds.linkPassword, InputActionIds.password],
      [BlockIds.linkCompany, InputActionIds.company],
      [BlockIds.linkUnit, InputActionIds.unit],
      [BlockIds.linkEndSession, InputActionIds.endSession],
    ]);
  });

  it('asks the company as a whole number, the unit and the session option as optional', () => {
    expect(byBlock.get(BlockIds.linkCompany)?.element).toMatchObject({
      type: 'number_input',
      is_decimal_allowed: false,
      min_value: '1',
    });
    expect(byBlock.get(BlockIds.linkCompany)?.optional).toBeFalsy();
    expect(byBlock.get(BlockIds.linkUnit)?.optional).toBe(true);
    expect(byBlock.get(BlockIds.linkEndSession)?.optional).toBe(true);
    expect(byBlock.get(BlockIds.linkEndSession)?.element).toMatchObject({
      type: 'checkboxes',
      options: [{ text: { text: 'Encerrar a sessão ativa deste login, se houver' }, value: 'end' }],
    });
    expect(byBlock.get(BlockIds.linkPassword)?.hint?.text).toContain('criptografada');
  });

  it('puts field errors under the right block', () => {
    expect(linkFieldErrors('company', 'Este login não tem acesso à empresa 12.')).toEqual({
      [BlockIds.linkCompany]: 'Este login não tem acesso à empresa 12.',
    });
  });
});

describe('unlink and link outcomes', () => {
  it('asks for confirmation with a danger button and a cancel button', () => {
    const message = renderUnlinkConfirm();
    const confirm = buttonNamed(message, 'Desvincular');
    expect(confirm?.actionId).toBe(ActionIds.unlinkConfirm);
    expect(confirm?.button.style).toBe('danger');
    expect(confirm?.button.confirm).toBeDefined();
    expect(buttonNamed(message, 'Cancelar')?.actionId).toBe(ActionIds.unlinkCancel);
  });

  it('confirms links and unlinks, and refuses non-admins', () => {
    expect(allText(renderUnlinked('U0ADMIN'))).toContain('desvinculado por <@U0ADMIN>');
    const linked = allText(
      renderLinked({ login: 'manut', empresaId: 12, unidadeId: null, stockroomCount: 1 }),
    );
    expect(linked).toContain('empresa 12');
    expect(linked).toContain('1 almoxarifado ativo encontrado');
    expect(linked).not.toContain('confira');
    // The API answers an empty list, not an error, where the company context does not hold: the admin is told.
    const none = allText(renderLinked({ login: 'manut', empresaId: 12, unidadeId: 3, stockroomCount: 0 }));
    expect(none).toContain('Nenhum almoxarifado ativo encontrado');
    expect(none).toContain('confira a empresa 12 e a unidade 3');
    expect(allText(renderLinkRefused())).toBe(
      'Só administradores e donos do workspace, ou quem estiver em BOT_ADMINS, podem vincular ou desvincular credenciais.',
    );
  });
});

describe('link not made', () => {
  it('says nothing was linked once the modal closed, and when to try again', () => {
    const text = allText(renderLinkUnavailable('busy', NOW + 30 * 60_000, true, null, ctx));
    expect(text).toContain('Nada foi vinculado');
    expect(text).toContain('tente de novo às 11:06');
    expect(renderLinkUnavailable('unavailable', null).text).toBe(
      'O sistema de estoque não respondeu; tente de novo em alguns minutos.',
    );
  });

  it('never lets the refusal text from upstream mention anyone', () => {
    const message = renderLinkUnavailable('refused', null, true, 'Senha inválida <!here>');
    expect(allText(message)).toContain('Senha inválida &lt;!here&gt;');
    expect(renderLinkUnavailable('refused', null, false, '<@U1>').text).not.toContain('<@U1>');
    expect(allText(renderUpstreamRejected('<!channel> período inválido'))).not.toContain('<!channel>');
  });
});

describe('errors', () => {
  it('names what was not found', () => {
    expect(allText(renderNotFound('request', 999))).toBe('Solicitação 999 não encontrada.');
    expect(allText(renderNotFound('purchase', 12))).toBe('Compra 12 não encontrada.');
  });

  it('tells how to link, and that an admin must link again', () => {
    expect(allText(renderNotLinked())).toContain('`/estoque vincular`');
    expect(allText(renderCredentialsExpired())).toContain(
      'Um administrador precisa vincular de novo com `/estoque vincular`',
    );
  });

  it('says when the budget frees up', () => {
    const message = renderBudgetExhausted(Date.UTC(2026, 10, 22, 17, 32), ctx, {
      limit: 250,
      windowMs: 3_600_000,
    });
    expect(allText(message)).toContain('Limite de 250 consultas por hora atingido; tente de novo às 14:32');
    expect(allText(renderBudgetExhausted(NOW + 86_400_000, ctx))).toContain(
      'tente de novo em 23/11/2026 às 10:36',
    );
  });

  it('gives support the hash of a server error and the correlation id', () => {
    const text = allText(renderServerError('7F3A9C', 'req-42'));
    expect(text).toContain('`7F3A9C`');
    expect(text).toContain('`req-42`');
  });

  it('offers a retry button carrying the route after a timeout', () => {
    const route = { view: 'request', id: 1234, page: 2 } as const;
    const [retry] = buttonsOf(renderTimeout(route, 'req-43'));
    expect(retry?.actionId).toBe('retry:0');
    expect(retry?.value).toBe(encodeRoute(route));
  });

  it('says the digest is coming later', () => {
    expect(allText(renderDigestComingSoon())).toContain('próxima versão');
  });
});
