import type { KnownBlock } from '@slack/types';
import type { Route } from '../domain/routes.js';
import { actions, context, finalizeMessage, routeButton, section } from './blocks.js';
import { code, formatAt, formatNumber, formatRatePeriod, safeText, truncate } from './format.js';
import { ActionIds } from './ids.js';
import type { Message, RenderContext } from './types.js';

/**
 * Every failure as a short ephemeral pt-BR message: what happened and what to do. Never a stack trace; the
 * correlation id lets support find the one log line.
 */

const HOW_TO_LINK = 'Um administrador do workspace vincula com `/estoque vincular`.';

function reference(correlationId: string): string {
  return `Ref. ${code(truncate(correlationId, 100))}`;
}

function failure(text: string, extra: KnownBlock[] = []): Message {
  return finalizeMessage({ text, blocks: [section(text), ...extra] });
}

/** `lost`: the workspace had a link that the bot's storage lost (nobody unlinked it), and is to be linked again. */
export function renderNotLinked(lost = false): Message {
  if (lost)
    return failure(
      'Este workspace não está vinculado ao sistema de estoque: o vínculo se perdeu no armazenamento do bot ' +
        '(ninguém o desfez). Um administrador do workspace vincula de novo com `/estoque vincular`.',
    );
  return failure(`Este workspace ainda não está vinculado ao sistema de estoque. ${HOW_TO_LINK}`);
}

export function renderNotFound(what: 'request' | 'purchase', id: number): Message {
  return failure(what === 'request' ? `Solicitação ${id} não encontrada.` : `Compra ${id} não encontrada.`);
}

/** A 404 where no one id was asked for (a list whose filters name something the service does not have). */
export function renderNothingFound(): Message {
  return failure(
    ':mag: O sistema de estoque não encontrou o que foi pedido. Confira os números usados nos filtros (como `almox:` ou `compra:`).',
  );
}

export function renderForbidden(): Message {
  return failure(':no_entry: O login vinculado não tem permissão para ver isso no sistema de estoque.');
}

export function renderCredentialsExpired(): Message {
  return failure(
    ':warning: O acesso ao sistema de estoque expirou e não pôde ser renovado. ' +
      'Um administrador precisa vincular de novo com `/estoque vincular`.',
  );
}

/**
 * The DM to the admin who linked, when the link broke. `checkedAgain`: the bot checks the link again by itself
 * (domain/links/link-healer.ts), and says so; not after the issuer refused the password as wrong.
 */
export function renderBrokenLinkAdminNotice(workspaceName?: string, checkedAgain = false): Message {
  const where = workspaceName?.trim() ? ` no workspace *${safeText(workspaceName, 100)}*` : '';
  const again = checkedAgain
    ? ' Se foi uma falha passageira do sistema de estoque, não é preciso fazer nada: o bot verifica o vínculo de ' +
      'novo sozinho, por até 7 dias, e avisa você aqui quando voltar a funcionar.'
    : '';
  return failure(
    `:warning: As credenciais do estoque que você vinculou${where} expiraram e não puderam ser renovadas ` +
      '(a senha mudou, ou o login perdeu o acesso ao sistema?). Os comandos estão parados: vincule de novo com `/estoque vincular`.' +
      again,
  );
}

/** The DM to the admin who linked, when a check found the broken link working again and restored it. */
export function renderHealedLinkAdminNotice(workspaceName?: string): Message {
  const where = workspaceName?.trim() ? ` no workspace *${safeText(workspaceName, 100)}*` : '';
  return failure(
    `:white_check_mark: O vínculo do estoque que você fez${where} voltou a funcionar: o sistema de estoque aceitou ` +
      'de novo o login vinculado. Os comandos, os resumos e os alertas voltaram; não é preciso vincular de novo.',
  );
}

/**
 * To the admin who linked, once: the link is gone from the store although nobody unlinked it (Redis lost it: a
 * restart without persistence, an eviction). Members only see "não vinculado"; the admin knows why and what to do.
 */
export function renderVanishedLinkAdminNotice(): Message {
  return failure(
    ':warning: O vínculo do estoque que você fez neste workspace sumiu do armazenamento do bot (o Redis perdeu ' +
      'os dados). Os comandos respondem "não vinculado" até que um administrador vincule de novo com ' +
      '`/estoque vincular`. Avise também quem opera o bot: o Redis precisa de persistência.',
  );
}

/**
 * "Limite de 250 consultas por hora atingido; tente de novo às 14:32". Without the budget's figures the
 * sentence leaves them out.
 */
export function renderBudgetExhausted(
  retryAt: number,
  ctx: RenderContext,
  budget?: { limit: number; windowMs: number },
): Message {
  const limit = budget
    ? `Limite de ${formatNumber(budget.limit)} consultas ${formatRatePeriod(budget.windowMs)} atingido`
    : 'Limite de consultas ao sistema de estoque atingido';
  const when =
    retryAt > ctx.now ? `tente de novo ${formatAt(retryAt, ctx.now, ctx.timeZone)}` : 'tente de novo agora';
  return failure(`:hourglass: ${limit}; ${when}.`);
}

export function renderServerError(hash: string | null, correlationId: string): Message {
  const forSupport = hash?.trim()
    ? `Se continuar, informe ao suporte o código ${code(truncate(hash.trim(), 100))}.`
    : 'Se continuar, informe ao suporte a referência abaixo.';
  return failure(
    `:warning: O sistema de estoque teve um erro interno. Tente de novo em instantes. ${forSupport}`,
    [context(reference(correlationId))],
  );
}

/**
 * No answer in time; with a route, `Tentar de novo` asks again (a command without one is sent again). `upstream`
 * false: no call had gone out (the bot's own store or another replica's read held it), so upstream is not blamed.
 */
export function renderTimeout(
  route: Route | null,
  correlationId: string,
  options: { upstream?: boolean } = {},
): Message {
  const retry = route && actions([routeButton('Tentar de novo', route, ActionIds.retryPrefix, 'primary')]);
  const again = route ? '' : ' Tente de novo em alguns instantes.';
  const what =
    options.upstream === false
      ? 'Não consegui preparar a resposta a tempo.'
      : 'O sistema de estoque demorou demais para responder.';
  return failure(`:hourglass: ${what}${again}`, [
    ...(retry ? [retry] : []),
    context(reference(correlationId)),
  ]);
}

/** The answer passed UPSTREAM_MAX_RESPONSE_BYTES: cut off, not shown, not saved. */
export function renderResponseTooLarge(correlationId: string): Message {
  return failure(
    ':warning: A resposta do sistema de estoque veio grande demais e foi recusada. ' +
      'Filtre mais (por almoxarifado com `almox:`, por período com `de:` e `ate:`) e tente de novo.',
    [context(reference(correlationId))],
  );
}

/**
 * The service keeps refusing the linked login (401) after its token was renewed and it logged in again: the
 * login lost access or permission upstream.
 */
export function renderUnauthorized(correlationId: string): Message {
  return failure(
    ':no_entry: O sistema de estoque recusou o login vinculado mesmo depois de renovar o acesso. ' +
      'O login pode ter perdido a permissão ou sido desativado: um administrador confere o usuário no sistema ' +
      'de estoque e vincula de novo com `/estoque vincular`.',
    [context(reference(correlationId))],
  );
}

/** The bot is stopping (a deploy, a restart) before this answer could finish: the user asks again in a moment. */
export function renderRestarting(route: Route): Message {
  const retry = actions([routeButton('Tentar de novo', route, ActionIds.retryPrefix, 'primary')]);
  return failure(':arrows_counterclockwise: O bot está reiniciando, tente de novo em alguns segundos.', [
    ...(retry ? [retry] : []),
  ]);
}

/**
 * The process is stopping before a command without a route of its own (a subscription, a follow, `resumo agora`)
 * finished: it may or may not have been done, so the person is told to check or send it again.
 */
export function renderRestartingCommand(command: string): Message {
  return failure(
    `:arrows_counterclockwise: O bot está reiniciando e ${code(truncate(command.replace(/\s+/g, ' '), 100))} pode não ter terminado; confira ou envie de novo em alguns segundos.`,
  );
}

/**
 * A command without a route of its own (a follow, `minhas acompanhar`) got no answer by its deadline: its reads
 * were cut then, but whether it was recorded is not known, so the person is told to check or send it again.
 */
export function renderCommandTimeout(
  command: string,
  correlationId: string,
  options: { upstream?: boolean } = {},
): Message {
  const what = code(truncate(command.replace(/\s+/g, ' '), 100));
  const why =
    options.upstream === false
      ? `Não consegui concluir ${what} a tempo e ele`
      : `O sistema de estoque demorou demais para responder e ${what}`;
  return failure(`:hourglass: ${why} pode não ter terminado; confira ou envie de novo em alguns instantes.`, [
    context(reference(correlationId)),
  ]);
}

export function renderBadUpstreamData(correlationId: string): Message {
  return failure(
    ':warning: O sistema de estoque respondeu com dados num formato inesperado. Se continuar, informe ao suporte a referência abaixo.',
    [context(reference(correlationId))],
  );
}

/** The text of the bot's own storage not answering for a moment (a command, and the link modal). */
export const BOT_STORE_UNAVAILABLE_TEXT =
  'Falha temporária do bot: o armazenamento interno não respondeu, e nada foi consultado no sistema de estoque. Tente de novo em instantes.';

/**
 * The bot's own store (Redis) did not answer while a call waited for its budget slot: not the upstream's limit
 * (until 2026-11-27 this read "Limite de consultas ao sistema atingido").
 */
export function renderBotStoreUnavailable(correlationId: string): Message {
  return failure(`:warning: ${BOT_STORE_UNAVAILABLE_TEXT}`, [context(reference(correlationId))]);
}

export function renderUnexpected(correlationId: string): Message {
  return failure(
    ':warning: Algo deu errado do nosso lado. Tente de novo; se continuar, informe ao suporte a referência abaixo.',
    [context(reference(correlationId))],
  );
}

/** `/solicitacao minhas` when no upstream user has the Slack user's e-mail. */
export function renderUserNotMatched(email: string | null): Message {
  const lead = email?.trim()
    ? `Nenhum usuário do sistema de estoque tem o seu e-mail (${safeText(email, 100)}).`
    : 'Não consegui ler o seu e-mail no Slack para achar você no sistema de estoque.';
  return failure(`${lead} Use \`/solicitacao\` com filtros, como \`/solicitacao torre\`.`);
}

/** `/solicitacao minhas` when Slack could not tell the user's e-mail now (users.info failed). */
export function renderUserEmailUnavailable(): Message {
  return failure(
    ':warning: O Slack não informou o seu e-mail agora, e é por ele que acho você no sistema de estoque. Tente de novo em instantes.',
  );
}

/**
 * A 400 from upstream: it refused the query. The 12 months are said only under a request list, the one list whose
 * period the API limits (a purchase or receipt list has no such limit).
 */
export function renderUpstreamRejected(
  detail: string | null,
  { requestList = false }: { requestList?: boolean } = {},
): Message {
  const why = detail?.trim() ? ` Motivo: ${safeText(detail, 300)}` : '';
  const advice = requestList
    ? 'Confira os filtros; o período das solicitações vai até 12 meses.'
    : 'Confira os filtros.';
  return failure(`:warning: O sistema de estoque recusou a consulta.${why} ${advice}`);
}

/**
 * A query the bot itself would not send (the API document's limits), never a refusal of the stockroom system:
 * the request list's period of at most 12 months (`de:` alone runs to today), or another filter out of range.
 */
export function renderInvalidQuery(field: string): Message {
  if (field === 'dataInicial' || field === 'dataFinal') {
    return failure(
      ':warning: O período pedido passa de 12 meses, o máximo da lista de solicitações. Com `de:` sozinho o ' +
        'período vai até hoje: use uma data dos últimos 12 meses, acrescente `ate:` (até 12 meses depois), ou ' +
        'use só `ate:` (os 12 meses até esse dia).',
    );
  }
  return failure(
    ':warning: Um dos filtros está fora do que a consulta aceita. Confira os números e as datas com `/estoque ajuda`.',
  );
}

/** A button whose value can no longer be read (an old message, a changed format). */
export function renderStaleButton(): Message {
  return failure('Este botão não funciona mais. Rode o comando de novo para ver os dados atuais.');
}

/** A command or click the bot could not process (its handler failed or never answered); nothing was done. */
export function renderNotProcessed(): Message {
  return failure('Não consegui processar este pedido agora. Nada foi feito; tente de novo em instantes.');
}

/** A form whose fields did not arrive (a view submission without its values). */
export function renderFormUnreadable(): string {
  return 'Não consegui ler o formulário. Feche e abra de novo.';
}

/** A command or click whose workspace could not be told from the payload. */
export function renderNoWorkspace(): Message {
  return failure(
    'Não consegui identificar o workspace deste pedido. Tente de novo de um canal do workspace.',
  );
}

export function renderDigestComingSoon(): Message {
  return failure(
    'O resumo diário chega numa próxima versão. Por enquanto, use `/compras pendentes` e `/solicitacao`.',
  );
}
