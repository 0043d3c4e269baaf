import type { InputBlock, ModalView } from '@slack/types';
import type { LinkField } from '../domain/links/link-service.js';
import type { LinkedCompany } from '../domain/views.js';
import { actions, button, finalizeMessage, mrkdwn, plain, section } from './blocks.js';
import { BOT_STORE_UNAVAILABLE_TEXT } from './errors.js';
import { code, escapeMrkdwn, formatAt, mentionUser, plural, truncate } from './format.js';
import { ActionIds, BlockIds, InputActionIds, ViewIds } from './ids.js';
import type { Message, RenderContext } from './types.js';

/** Linking the workspace to an upstream login: the modal, the unlink confirmation and the outcomes. */

export interface LinkModalInitial {
  login?: string | null;
  empresaId?: number | null;
  unidadeId?: number | null;
}

function input(block: Omit<InputBlock, 'type'>): InputBlock {
  return { type: 'input', ...block };
}

/** The modal of `/estoque vincular`. Slack has no password input: the hint says how the password is kept. */
export function renderLinkModal(initial: LinkModalInitial = {}): ModalView {
  const login = initial.login?.trim();
  return {
    type: 'modal',
    callback_id: ViewIds.linkModal,
    title: plain('Vincular estoque'),
    submit: plain('Vincular'),
    close: plain('Cancelar'),
    blocks: [
      section(
        'Informe o login do sistema de estoque que o bot usará para consultar os dados deste workspace.',
      ),
      input({
        block_id: BlockIds.linkLogin,
        label: plain('Login'),
        element: {
          type: 'plain_text_input',
          action_id: InputActionIds.login,
          max_length: 200,
          placeholder: plain('e-mail ou login do sistema'),
          ...(login && { initial_value: login.slice(0, 200) }),
        },
      }),
      input({
        block_id: BlockIds.linkPassword,
        label: plain('Senha'),
        hint: plain('Guardada criptografada; nunca aparece em mensagens nem em logs.'),
        element: { type: 'plain_text_input', action_id: InputActionIds.password, max_length: 200 },
      }),
      input({
        block_id: BlockIds.linkCompany,
        label: plain('Empresa (número)'),
        hint: plain('O número da empresa no sistema.'),
        element: {
          type: 'number_input',
          action_id: InputActionIds.company,
          is_decimal_allowed: false,
          min_value: '1',
          ...(initial.empresaId != null && { initial_value: String(initial.empresaId) }),
        },
      }),
      input({
        block_id: BlockIds.linkUnit,
        label: plain('Unidade (número)'),
        hint: plain('Opcional: limita os dados a uma unidade.'),
        optional: true,
        element: {
          type: 'number_input',
          action_id: InputActionIds.unit,
          is_decimal_allowed: false,
          min_value: '1',
          ...(initial.unidadeId != null && { initial_value: String(initial.unidadeId) }),
        },
      }),
      input({
        block_id: BlockIds.linkEndSession,
        label: plain('Sessão'),
        optional: true,
        element: {
          type: 'checkboxes',
          action_id: InputActionIds.endSession,
          options: [{ text: plain('Encerrar a sessão ativa deste login, se houver'), value: 'end' }],
        },
      }),
    ],
  };
}

const FIELD_BLOCKS: Record<LinkField, string> = {
  login: BlockIds.linkLogin,
  password: BlockIds.linkPassword,
  company: BlockIds.linkCompany,
  unit: BlockIds.linkUnit,
  endSession: BlockIds.linkEndSession,
};

/** The `errors` of a `response_action: 'errors'` answer: the message under the field it concerns. */
export function linkFieldErrors(field: LinkField, message: string): Record<string, string> {
  return { [FIELD_BLOCKS[field]]: message.trim().slice(0, 150) || 'Valor não aceito.' };
}

function notice(text: string): Message {
  return finalizeMessage({ text, blocks: [section(text)] });
}

/**
 * The link was not made. `busy`: the rate budget is spent; `unavailable`: upstream did not answer; `bot_store`: the
 * bot's own storage did not answer while the login waited for its budget slot; `refused`:
 * upstream refused it (`message` says why, from the link service). `afterModal` is for the message posted once the
 * modal has closed, which must say that nothing was linked; without it the text is short, fit to show under a
 * modal field. With `ctx`, a retry time is given as a time of day.
 */
export function renderLinkUnavailable(
  reason: 'busy' | 'unavailable' | 'store' | 'bot_store' | 'refused',
  retryAt: number | null,
  afterModal = false,
  message?: string | null,
  ctx?: RenderContext,
): Message {
  let text: string;
  if (reason === 'busy') {
    const when =
      ctx && retryAt !== null && retryAt > ctx.now
        ? formatAt(retryAt, ctx.now, ctx.timeZone)
        : 'em alguns minutos';
    text = `Limite de consultas ao sistema atingido; tente de novo ${when}.`;
  } else if (reason === 'unavailable') {
    text = 'O sistema de estoque não respondeu; tente de novo em alguns minutos.';
  } else if (reason === 'bot_store') {
    // The bot's own storage did not answer before the login could be sent: nothing was asked upstream.
    text = BOT_STORE_UNAVAILABLE_TEXT;
  } else if (reason === 'store') {
    // The login went through; the bot's own storage (Redis) would not keep the link.
    text = 'O login foi aceito, mas não consegui guardar o vínculo agora; tente de novo em alguns minutos.';
  } else {
    text = message?.trim() ? truncate(message.trim(), 300) : 'O sistema de estoque recusou o login.';
  }
  // Escaped even for a modal error: the text may come from upstream and must never mention anyone if posted.
  const escaped = escapeMrkdwn(text);
  if (!afterModal) return finalizeMessage({ text: truncate(escaped, 150), blocks: [section(escaped)] });
  return notice(`:warning: Nada foi vinculado. ${escaped}`);
}

export function renderUnlinkConfirm(): Message {
  const text =
    'Desvincular o estoque deste workspace? As credenciais salvas e o cache são apagados e os comandos param até alguém vincular de novo.';
  return finalizeMessage({
    text: 'Desvincular o estoque?',
    blocks: [
      section(text),
      actions([
        button({
          text: 'Desvincular',
          actionId: ActionIds.unlinkConfirm,
          style: 'danger',
          confirm: {
            title: plain('Desvincular o estoque?'),
            text: mrkdwn(
              'Ninguém no workspace poderá consultar o estoque até um administrador vincular de novo.',
            ),
            confirm: plain('Desvincular'),
            deny: plain('Voltar'),
            style: 'danger',
          },
        }),
        button({ text: 'Cancelar', actionId: ActionIds.unlinkCancel }),
      ]),
    ].filter((block) => block !== null),
  });
}

export function renderUnlinked(byUserId: string): Message {
  return notice(
    `:white_check_mark: Estoque desvinculado por ${mentionUser(byUserId)}. Credenciais e cache apagados.`,
  );
}

export function renderUnlinkCancelled(): Message {
  return notice('Nada mudou: o estoque continua vinculado.');
}

export function renderLinked(view: {
  login: string;
  empresaId: number;
  unidadeId: number | null;
  stockroomCount: number;
}): Message {
  const unit = view.unidadeId === null ? 'todas as unidades' : `unidade ${view.unidadeId}`;
  // The API answers an empty list rather than an error where the company context does not hold (upstream-api.md):
  // none found may be a wrong company or unit, so the admin is asked to check.
  const found =
    view.stockroomCount === 0
      ? `:warning: Nenhum almoxarifado ativo encontrado: confira a empresa ${view.empresaId}${view.unidadeId === null ? '' : ` e a unidade ${view.unidadeId}`} (o sistema de estoque responde com uma lista vazia, e não com um erro, quando elas não valem para o login) e vincule de novo se preciso. `
      : `${plural(view.stockroomCount, 'almoxarifado ativo encontrado', 'almoxarifados ativos encontrados')}. `;
  return notice(
    `:white_check_mark: Estoque vinculado: login ${code(truncate(view.login.trim(), 100))}, empresa ${view.empresaId}, ${unit}. ` +
      found +
      'Experimente `/estoque almoxarifados` ou `/estoque ajuda`.',
  );
}

/** An `almox:N` that the saved list of active stockrooms does not hold (/estoque, /compras pendentes). */
export function stockroomNotActiveText(stockroomId: number): string {
  return `O almoxarifado ${stockroomId} não está entre os ativos desta empresa (veja \`/estoque almoxarifados\`).`;
}

/**
 * The linked company shows no active stockroom: said wherever an answer is built from that list (`/estoque
 * almoxarifados`, `/compras pendentes`, the digest), naming the company, never as a plain "none". The API answers
 * an empty list, not an error, where the link's company or unit does not hold for its login, or the login lost
 * access (upstream-api.md), as the link check says when linking (renderLinked).
 */
export function noActiveStockroomsText(company: LinkedCompany): string {
  const named = [
    company.empresaId === null ? null : `empresa ${company.empresaId}`,
    company.unidadeId === null ? null : `unidade ${company.unidadeId}`,
  ].filter((part): part is string => part !== null);
  return (
    `:warning: A empresa vinculada${named.length > 0 ? ` (${named.join(', ')})` : ''} não mostra nenhum almoxarifado ativo. ` +
    'O sistema de estoque responde com uma lista vazia, e não com um erro, quando a empresa ou a unidade não valem ' +
    'para o login ou quando o acesso foi perdido: um administrador deve conferir a empresa e a unidade do vínculo ' +
    '(`/estoque status`) e, se preciso, vincular de novo com `/estoque vincular`.'
  );
}

/** The Slack lookup of who clicked or typed failed: nothing was done, and the person can try again. */
export function renderAdminCheckFailed(): Message {
  return notice(
    'Não consegui confirmar no Slack quem você é, então nada foi feito. Tente de novo em instantes; se continuar, fale com um administrador do workspace.',
  );
}

export function renderLinkRefused(): Message {
  return notice(
    'Só administradores e donos do workspace, ou quem estiver em BOT_ADMINS, podem vincular ou desvincular credenciais.',
  );
}
