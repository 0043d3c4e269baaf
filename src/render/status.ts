import type { KnownBlock } from '@slack/types';
import type { LinkStatusView } from '../domain/views.js';
import { answerMessage } from './answer.js';
import { fieldsSection, header, section } from './blocks.js';
import {
  EMPTY,
  formatAt,
  formatDateTime,
  formatIn,
  formatNumber,
  formatSpan,
  formatWindow,
  mentionUser,
  safeText,
} from './format.js';
import type { Message, RenderContext } from './types.js';

/** `/estoque status`: the link, token expiries, the rate budget and the cache. Never a secret. */

const HOW_TO_LINK = 'Um administrador do workspace vincula com `/estoque vincular`.';

function expiry(at: number | null, ctx: RenderContext): string {
  if (at === null) return EMPTY;
  const when = formatDateTime(at, ctx.timeZone);
  return at <= ctx.now ? `expirado em ${when}` : `${when} (${formatIn(at, ctx.now)})`;
}

/** "37 de 250 consultas usadas na última hora, 213 livres". */
export function budgetText(budget: NonNullable<LinkStatusView['budget']>): string {
  return (
    `${formatNumber(budget.used)} de ${formatNumber(budget.limit)} consultas usadas ${formatWindow(budget.windowMs)}, ` +
    `${formatNumber(budget.remaining)} ${budget.remaining === 1 ? 'livre' : 'livres'}`
  );
}

/** "82% de acertos (41 de 50 leituras)". */
export function cacheText(cache: NonNullable<LinkStatusView['cache']>): string {
  const total = cache.hits + cache.misses;
  if (total === 0) return 'Nenhuma leitura ainda';
  const percent = Math.round((cache.hits / total) * 100);
  return `${percent}% de acertos (${formatNumber(cache.hits)} de ${formatNumber(total)} leituras)`;
}

/**
 * Why the rounds come less often than FEED_INTERVAL asks. People read this: no setting is named to them (until
 * 2026-11-27 `FEED_INTERVAL`, `FEED_BUDGET_SHARE` and `FEED_BUDGET_SHARE_SATURATED` were); the README names them.
 */
const STRETCHED: Record<NonNullable<NonNullable<LinkStatusView['feed']>['stretchedBy']> | 'none', string> = {
  none: '',
  share:
    ' (mais espaçada que o intervalo configurado: a cota dos alertas não paga verificações mais frequentes)',
  load: ' (mais espaçada que o intervalo configurado: as verificações esperaram por consultas livres na janela, e os comandos dos usuários vêm antes)',
};

/**
 * "verificação a cada 4 min 48 s · 3 de 50 consultas da cota dos alertas usadas na janela", or why it does not
 * run (until 2026-11-27 the interval read as configured, "a cada 288s", "a cada 2m").
 */
export function feedText(feed: NonNullable<LinkStatusView['feed']>): string {
  // FEED_BUDGET_SHARE is 0.
  if (feed.shareCap === 0) return 'desligados (a configuração do bot não reserva consultas para os alertas)';
  // FEED_BUDGET_SHARE_SATURATED is 0, and commands waited for calls in this window.
  if (feed.cap === 0)
    return 'parados nesta janela: comandos esperaram por consultas, e a configuração do bot não deixa consultas para os alertas quando isso acontece';
  const share =
    `${formatNumber(feed.used)} de ${formatNumber(feed.cap)} consultas da cota dos alertas usadas na janela` +
    (feed.saturated ? ' (cota reduzida: comandos esperaram por consultas nesta janela)' : '');
  if (!feed.listening) return `sem assinantes (nenhuma consulta) · ${share}`;
  return `verificação a cada ${formatSpan(feed.intervalMs)}${STRETCHED[feed.stretchedBy ?? 'none']} · ${share}`;
}

/**
 * Why a broken link does not work, and when the bot checks it again by itself (or why it will not), ending with
 * `whatNow` (who links again, and how) where an admin is needed now.
 */
export function brokenLinkText(
  checks: LinkStatusView['checks'],
  ctx: RenderContext,
  whatNow: { ifNeeded: string; now: string },
): string {
  const head = ':warning: *O vínculo parou de funcionar*: ';
  if (checks?.nextAt != null) {
    const when = checks.nextAt <= ctx.now ? 'em instantes' : formatAt(checks.nextAt, ctx.now, ctx.timeZone);
    return (
      `${head}o sistema de estoque recusou o acesso do login vinculado. O bot verifica de novo sozinho e o ` +
      `vínculo volta quando o acesso voltar; próxima verificação automática ${when}. ${whatNow.ifNeeded}`
    );
  }
  if (checks?.ended === 'password')
    return (
      `${head}o sistema de estoque recusou a senha guardada. O bot não tenta de novo sozinho (repetir uma senha ` +
      `recusada pode bloquear o login). ${whatNow.now}`
    );
  if (checks?.ended === 'ended')
    return (
      `${head}as credenciais expiraram e não puderam ser renovadas, e as verificações automáticas terminaram. ` +
      whatNow.now
    );
  return `${head}as credenciais expiraram e não puderam ser renovadas. ${whatNow.now}`;
}

export function renderLinkStatus(view: LinkStatusView, ctx: RenderContext): Message {
  const body: KnownBlock[] = [header('Status do estoque')];
  if (!view.linked) {
    body.push(section(`Este workspace não está vinculado ao sistema de estoque. ${HOW_TO_LINK}`));
    return answerMessage({
      text: 'Estoque não vinculado',
      body,
      route: { view: 'status' },
      freshness: null,
      ctx,
    });
  }
  if (view.broken) {
    body.push(
      section(
        brokenLinkText(view.checks, ctx, {
          ifNeeded:
            'Se a senha mudou ou o login perdeu o acesso, um administrador vincula de novo com `/estoque vincular`.',
          now: 'Um administrador precisa vincular de novo com `/estoque vincular`.',
        }),
      ),
    );
  }
  const linkedBy = view.linkedBy ? mentionUser(view.linkedBy) : EMPTY;
  const fields = [
    `*Vinculado por*\n${linkedBy}${view.linkedAt === null ? '' : ` em ${formatDateTime(view.linkedAt, ctx.timeZone)}`}`,
    `*Login*\n${safeText(view.login, 100)}`,
    `*Empresa*\n${view.empresaId ?? EMPTY}`,
    `*Unidade*\n${view.unidadeId ?? 'todas'}`,
    `*Acesso válido até*\n${expiry(view.tokenExpiresAt, ctx)}`,
    `*Renovação válida até*\n${expiry(view.refreshExpiresAt, ctx)}`,
  ];
  if (view.budget) {
    fields.push(`*Consultas ao sistema*\n${budgetText(view.budget)}`);
    if (view.budget.pausedUntil !== null && view.budget.pausedUntil > ctx.now) {
      fields.push(
        `*Pausado*\naté ${formatAt(view.budget.pausedUntil, ctx.now, ctx.timeZone).replace(/^(às|em) /, '')}`,
      );
    }
  }
  if (view.cache) fields.push(`*Cache*\n${cacheText(view.cache)}`);
  if (view.feed) fields.push(`*Alertas*\n${feedText(view.feed)}`);
  body.push(fieldsSection(fields));
  return answerMessage({
    text: view.broken ? 'Estoque: vínculo quebrado' : 'Estoque vinculado',
    body,
    route: { view: 'status' },
    freshness: null,
    ctx,
  });
}
