import type { Button, KnownBlock, ModalView, PlainTextOption } from '@slack/types';
import { decodeRoute } from '../domain/routes.js';
import type { MaterialMatch } from '../domain/views.js';
import type { Material } from '../upstream/schemas.js';
import { actions, button, context, finalizeMessage, mrkdwn, plain, section } from './blocks.js';
import { formatAge, mentionUser, plural, safeText, truncate, visibleText } from './format.js';
import { type HelpOptions, renderHelp } from './help.js';
import { ActionIds, BlockIds, InputActionIds, ViewIds } from './ids.js';
import { Limits } from './limits.js';
import { materialBlock } from './materials.js';
import type { Message, RenderContext } from './types.js';

/** Modals of the shortcuts and the Home: the material picker, a request looked up or found in a message. */

const STOCK_NOTE = 'O saldo vem dos itens de solicitações já vistos, não é o estoque em tempo real.';

function modal(
  callbackId: string,
  title: string,
  blocks: KnownBlock[],
  extra: Partial<ModalView> = {},
): ModalView {
  const fitted = finalizeMessage({ text: title, blocks }, Limits.modalBlocks);
  return {
    type: 'modal',
    callback_id: callbackId,
    title: plain(truncate(title, Limits.modalTitle)),
    close: plain('Fechar'),
    blocks: fitted.blocks,
    ...extra,
  };
}

/** An option of the material picker: "código · nome", at most 75 characters; the value is the material id. */
export function materialOption(material: Material): PlainTextOption {
  const name =
    visibleText(material.nome) || visibleText(material.nomeFormatted) || `Material ${material.material}`;
  const code = visibleText(material.codigo);
  const label = code ? `${code} · ${name}` : name;
  return {
    text: plain(truncate(label, Limits.optionText)),
    value: String(material.material),
  };
}

export interface PickedMaterial {
  match: MaterialMatch | null;
  /** The id that was chosen (kept when the material is no longer listed). */
  materialId: number;
  fetchedAt: number;
}

/**
 * `Buscar material`: an external_select whose options come from the cached list (block_suggestion); once a
 * material is chosen, its detail and last known stock, and a channel to share it in (the submit button).
 */
export function renderMaterialModal(
  picked: PickedMaterial | null,
  ctx: RenderContext,
  /**
   * Nothing shown yet: `listReading`, the material list is still being read (the picker suggests nothing yet);
   * `materialLoading`, a material was chosen and is being read.
   */
  pending?: 'listReading' | 'materialLoading',
): ModalView {
  const select = {
    type: 'external_select' as const,
    action_id: ActionIds.materialPick,
    placeholder: plain('Nome ou código do material'),
    min_query_length: 2,
    ...(picked?.match && { initial_option: materialOption(picked.match.material) }),
  };
  const blocks: KnownBlock[] = [
    {
      type: 'section',
      block_id: BlockIds.materialPick,
      text: mrkdwn('Digite ao menos 2 letras do nome, ou o código.'),
      accessory: select,
    },
  ];
  if (picked === null) {
    blocks.push(
      context(
        pending === 'listReading'
          ? ':hourglass_flowing_sand: Lendo a lista de materiais… As sugestões aparecem assim que ela chegar.'
          : pending === 'materialLoading'
            ? ':hourglass_flowing_sand: Buscando o material…'
            : 'A busca usa a lista de materiais já lida, sem consultar o sistema a cada letra.',
      ),
    );
    return modal(ViewIds.materialModal, 'Buscar material', blocks);
  }
  if (picked.match === null) {
    blocks.push(section(`O material ${picked.materialId} não está mais na lista de materiais ativos.`));
    return modal(ViewIds.materialModal, 'Buscar material', blocks);
  }
  blocks.push(
    { type: 'divider' },
    materialBlock(picked.match, ctx),
    // "lida há 2 min", "lida agora" (until 2026-11-27 "Lista de materiais de há 2 min").
    context(`Lista de materiais lida ${formatAge(picked.fetchedAt, ctx.now)} · ${STOCK_NOTE}`),
    {
      type: 'input',
      block_id: BlockIds.shareChannel,
      optional: true,
      label: plain('Compartilhar no canal'),
      element: {
        type: 'conversations_select',
        action_id: InputActionIds.shareChannel,
        placeholder: plain('Escolha o canal'),
        default_to_current_conversation: true,
        response_url_enabled: true,
        filter: { include: ['public', 'private'], exclude_bot_users: true },
      },
      hint: plain('Todos no canal verão o material, com o seu nome.'),
    },
  );
  return modal(ViewIds.materialModal, 'Buscar material', blocks, {
    submit: plain('Compartilhar'),
    private_metadata: JSON.stringify({ materialId: picked.materialId }),
  });
}

/** The picker opened while a read of the material list failed a moment ago: none is tried again yet. */
export function renderMaterialListUnreadable(): Message {
  const text =
    'Não consegui ler a lista de materiais há pouco, então ainda não há sugestões. Tente de novo em alguns minutos.';
  return finalizeMessage({ text, blocks: [section(`:warning: ${text}`)] });
}

/** `Compartilhar` of a material no longer listed (the modal was closed already). */
export function renderMaterialGone(materialId: number): Message {
  return finalizeMessage({
    text: `O material ${materialId} não está mais na lista de materiais ativos; nada foi compartilhado.`,
    blocks: [
      section(
        `:warning: O material ${materialId} não está mais na lista de materiais ativos; nada foi compartilhado.`,
      ),
    ],
  });
}

/** `Compartilhar` whose post the channel refused (a response_url that expired, a channel gone). */
export function renderShareNotPosted(): Message {
  const text =
    'Não consegui publicar o material no canal escolhido; nada foi compartilhado. Tente de novo pelo atalho *Buscar material*.';
  return finalizeMessage({ text, blocks: [section(`:warning: ${text}`)] });
}

/** A modal Slack would not open (a trigger expired or used, Slack rate-limiting or failing), told beside it. */
export function renderModalNotOpened(): Message {
  const text = 'Não consegui abrir a janela no Slack; tente de novo em alguns segundos.';
  return finalizeMessage({ text, blocks: [section(`:warning: ${text}`)] });
}

/**
 * `/estoque vincular` whose form Slack would not open (views.open refused: an expired trigger, a 429, a 5xx), or whose
 * admin check could not be made in the trigger's 3 s. Until 2026-11-27 it came as `/estoque`'s usage, as if the
 * argument had been mistyped.
 */
export function renderLinkModalNotOpened(): Message {
  const text =
    'Não consegui abrir o formulário de vínculo no Slack; rode `/estoque vincular` de novo em alguns segundos.';
  return finalizeMessage({ text, blocks: [section(`:warning: ${text}`)] });
}

/** A material chosen in the picker that Slack would not show in the modal (views.update refused: a 429, a 5xx). */
export function renderMaterialNotShown(): Message {
  const text =
    'Não consegui mostrar o material na janela do Slack; escolha de novo em alguns segundos (ou use `/estoque <código>`).';
  return finalizeMessage({ text, blocks: [section(`:warning: ${text}`)] });
}

/**
 * A request (or its failure) that Slack would not show in the modal (views.update refused: a 429, a 5xx, the view
 * itself), told beside it: the modal still says it is loading.
 */
export function renderRequestNotShown(id: number): Message {
  const text = `Não consegui mostrar a solicitação ${id} na janela do Slack; use \`/solicitacao ${id}\` em um canal, ou o atalho de novo em alguns segundos.`;
  return finalizeMessage({ text, blocks: [section(`:warning: ${text}`)] });
}

/**
 * In place of an answer modal Slack refused for what it holds (`invalid_blocks`, a view too large: post-refusals.ts):
 * fixed words and the number only, nothing of the answer that could be refused again.
 */
export function renderRequestFallbackModal(title: string, id: number): ModalView {
  return modal(ViewIds.requestModal, title, [
    section(
      `:warning: O Slack recusou a janela com os detalhes da solicitação ${id}. Veja-a com \`/solicitacao ${id}\` em um canal.`,
    ),
    context('O problema ficou registrado para quem mantém o bot.'),
  ]);
}

/** The material as posted in a channel by `Compartilhar`. */
export function renderMaterialShared(match: MaterialMatch, byUserId: string, ctx: RenderContext): Message {
  return finalizeMessage({
    // Upstream text: escaped like every other, or a code could carry a mention into the channel's notifications.
    text: `Material ${visibleText(match.material.codigo) ? safeText(match.material.codigo, 100) : match.material.material}`,
    blocks: [
      materialBlock(match, ctx),
      context(`${STOCK_NOTE} · Compartilhado por ${mentionUser(byUserId)}`),
    ],
  });
}

/** `Consultar solicitação`: asks the number. */
export function renderRequestLookupModal(): ModalView {
  return modal(
    ViewIds.requestLookup,
    'Consultar solicitação',
    [
      {
        type: 'input',
        block_id: BlockIds.requestNumber,
        label: plain('Número da solicitação'),
        element: {
          type: 'plain_text_input',
          action_id: InputActionIds.requestNumber,
          placeholder: plain('Ex.: 1312'),
          // Room for the number as people write it (`solicitação nº 1.312/2026`), read as /solicitacao reads it.
          max_length: 40,
        },
      },
    ],
    { submit: plain('Consultar') },
  );
}

export function lookupNumberError(): string {
  return 'Informe o número da solicitação (ex.: 1312 ou SM 1312).';
}

/** Shown at once (the trigger lasts 3 s), replaced by the answer when it comes. */
export function renderLoadingModal(title: string, text: string): ModalView {
  return modal(ViewIds.requestModal, title, [section(`:hourglass_flowing_sand: ${text}`)]);
}

/** The message offers `Tentar de novo` (a timeout, the budget spent). */
export function offersRetry(message: Message): boolean {
  return message.blocks.some(
    (block) =>
      block.type === 'actions' &&
      block.elements.some(
        (element) => 'action_id' in element && element.action_id?.startsWith(ActionIds.retryPrefix) === true,
      ),
  );
}

/**
 * The request's own page buttons, turned into the modal's: `Anterior` (its route on the nearest page before the
 * one shown; `Itens`, page 1, is not kept beside it) and `Próxima` (the next page), with the same route in the value
 * and an action id the request modal's listener answers with views.update (one per page, so they stay unique).
 * Every other button of the answer is left out.
 */
function modalPageButtons(block: KnownBlock, id: number | undefined, page: number): KnownBlock | null {
  if (block.type !== 'actions' || id === undefined) return null;
  let before: { button: Button; page: number } | null = null;
  let after: Button | null = null;
  for (const element of block.elements) {
    if (element.type !== 'button' || !element.action_id?.startsWith(ActionIds.navigatePrefix)) continue;
    const route = decodeRoute(element.value);
    if (route?.view !== 'request' || route.id !== id) continue;
    const button = { ...element, action_id: `${ActionIds.requestPagePrefix}${route.page}` };
    if (route.page < page && (before === null || route.page > before.page))
      before = { button, page: route.page };
    if (route.page === page + 1 && after === null) after = button;
  }
  return actions([before?.button ?? null, after]);
}

/**
 * An answer (a request, a failure) inside a modal. Its buttons answer through a message's response_url, which a
 * modal has none of: they are left out, but for the request's `Anterior`/`Próxima`, which page the modal itself
 * (until 2026-11-27 they were left out too, and "Página 1 de 5" had no way to page 2); the modal says how to get
 * the others: for a request shown, the command that shows it with them; for a failure that offered
 * `Tentar de novo` (a timeout, the budget), how to try again.
 */
export function renderAnswerModal(title: string, message: Message, id?: number, page = 1): ModalView {
  const retry = offersRetry(message);
  const blocks = message.blocks
    .flatMap((block) => {
      if (block.type !== 'actions') return [block];
      const pages = modalPageButtons(block, id, page);
      return pages ? [pages] : [];
    })
    .map((block) => {
      if (block.type === 'section' && block.accessory?.type === 'button') {
        const { accessory: _dropped, ...rest } = block;
        return rest;
      }
      return block;
    });
  if (id !== undefined) {
    blocks.push(
      context(
        retry
          ? `Para tentar de novo: \`/solicitacao ${id}\` em um canal, ou o atalho outra vez.`
          : `Histórico, atualizar e compartilhar: \`/solicitacao ${id}\` em um canal.`,
      ),
    );
  }
  return modal(ViewIds.requestModal, title, blocks);
}

/** Several request numbers in one message: one button each. */
export function renderRequestChoiceModal(ids: readonly number[]): ModalView {
  const buttons = ids.map((id) =>
    button({ text: `Solicitação ${id}`, actionId: `${ActionIds.requestOpenPrefix}${id}`, value: String(id) }),
  );
  const blocks: KnownBlock[] = [
    section(`Esta mensagem cita ${plural(ids.length, 'solicitação', 'solicitações')}. Qual abrir?`),
  ];
  const row = actions(buttons);
  if (row) blocks.push(row);
  return modal(ViewIds.requestModal, 'Abrir solicitação', blocks);
}

export function renderNoRequestFoundModal(): ModalView {
  return modal(ViewIds.requestModal, 'Abrir solicitação', [
    section(
      'Não encontrei número de solicitação nesta mensagem. Procuro `solicitação 4105`, `SM 4105`, `#4105` ' +
        'ou, na falta deles, um número de 4 a 9 algarismos.',
    ),
    context('Para abrir outra, use *Consultar solicitação* na aba Início do app ou `/solicitacao <número>`.'),
  ]);
}

export function renderHelpModal(ctx: RenderContext, options: HelpOptions = {}): ModalView {
  return renderAnswerModal('Ajuda', renderHelp(ctx, options));
}
