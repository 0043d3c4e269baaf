import { describe, expect, it } from 'vitest';
import { renderFollowsEndedDm } from '../../src/render/feed.js';
import {
  checkMessageLimits,
  type Message,
  renderAppRefused,
  renderBadUpstreamData,
  renderBrokenLinkAdminNotice,
  renderBudgetExhausted,
  renderCredentialsExpired,
  renderDigestComingSoon,
  renderDigestPosted,
  renderDigestUnavailable,
  renderForbidden,
  renderHealedLinkAdminNotice,
  renderInviteBot,
  renderLinked,
  renderLinkRefused,
  renderLinkUnavailable,
  renderNotFound,
  renderNotLinked,
  renderNotSubscribed,
  renderNoWorkspace,
  renderServerError,
  renderStaleButton,
  renderTimeout,
  renderUnexpected,
  renderUnlinkCancelled,
  renderUnlinked,
  renderUnsubscribed,
  renderUpstreamRejected,
  renderUserNotMatched,
} from '../../src/render/index.js';
import { buttonsOf, ctx, NOW } from './fixtures.js';

/**
 * The one-paragraph messages: what the user reads is the behaviour, so each is pinned by its text (a snapshot
 * would add nothing but the block boilerplate). The layouts of the answers are in snapshots.test.ts.
 */

/** One mrkdwn section, taken as written (verbatim: no auto-linking of names or channels), whose text is `text`. */
function expectNotice(message: Message, text: string): void {
  expect(message.text).toBe(text);
  expect(message.blocks).toEqual([{ type: 'section', text: { type: 'mrkdwn', text, verbatim: true } }]);
  expect(checkMessageLimits(message)).toEqual([]);
}

/** The reference a person quotes to support, under the message. */
function refOf(message: Message): string | undefined {
  const last = message.blocks.at(-1) as { type: string; elements?: { text: string }[] } | undefined;
  return last?.type === 'context' ? last.elements?.[0]?.text : undefined;
}

describe('notices', () => {
  it.each<[string, () => Message, string]>([
    [
      'no workspace',
      () => renderNoWorkspace(),
      'Não consegui identificar o workspace deste pedido. Tente de novo de um canal do workspace.',
    ],
    [
      'not linked',
      () => renderNotLinked(),
      'Este workspace ainda não está vinculado ao sistema de estoque. Um administrador do workspace vincula com `/estoque vincular`.',
    ],
    [
      'not linked: the link was lost',
      () => renderNotLinked(true),
      'Este workspace não está vinculado ao sistema de estoque: o vínculo se perdeu no armazenamento do bot (ninguém o desfez). Um administrador do workspace vincula de novo com `/estoque vincular`.',
    ],
    ['not found', () => renderNotFound('request', 999), 'Solicitação 999 não encontrada.'],
    ['not found purchase', () => renderNotFound('purchase', 4242), 'Compra 4242 não encontrada.'],
    [
      'forbidden',
      () => renderForbidden(),
      ':no_entry: O login vinculado não tem permissão para ver isso no sistema de estoque.',
    ],
    [
      'credentials expired',
      () => renderCredentialsExpired(),
      ':warning: O acesso ao sistema de estoque expirou e não pôde ser renovado. Um administrador precisa vincular de novo com `/estoque vincular`.',
    ],
    [
      'user not matched',
      () => renderUserNotMatched('maria@predio.com.br'),
      'Nenhum usuário do sistema de estoque tem o seu e-mail (maria@predio.com.br). Use `/solicitacao` com filtros, como `/solicitacao torre`.',
    ],
    [
      'upstream rejected, a request list',
      () => renderUpstreamRejected('O período máximo é de 12 meses.', { requestList: true }),
      ':warning: O sistema de estoque recusou a consulta. Motivo: O período máximo é de 12 meses. Confira os filtros; o período das solicitações vai até 12 meses.',
    ],
    [
      'upstream rejected, any other query',
      () => renderUpstreamRejected('Fornecedor inválido.'),
      ':warning: O sistema de estoque recusou a consulta. Motivo: Fornecedor inválido. Confira os filtros.',
    ],
    [
      'budget exhausted',
      () => renderBudgetExhausted(NOW + 56 * 60_000, ctx, { limit: 250, windowMs: 3_600_000 }),
      ':hourglass: Limite de 250 consultas por hora atingido; tente de novo às 11:32.',
    ],
    [
      'stale button',
      () => renderStaleButton(),
      'Este botão não funciona mais. Rode o comando de novo para ver os dados atuais.',
    ],
    [
      'link refused',
      () => renderLinkRefused(),
      'Só administradores e donos do workspace, ou quem estiver em BOT_ADMINS, podem vincular ou desvincular credenciais.',
    ],
    [
      'broken link admin notice',
      () => renderBrokenLinkAdminNotice('Condomínio Paulista'),
      ':warning: As credenciais do estoque que você vinculou no workspace *Condomínio Paulista* expiraram e não puderam ser renovadas (a senha mudou, ou o login perdeu o acesso ao sistema?). Os comandos estão parados: vincule de novo com `/estoque vincular`.',
    ],
    [
      'broken link admin notice, checked again by the bot',
      () => renderBrokenLinkAdminNotice(undefined, true),
      ':warning: As credenciais do estoque que você vinculou expiraram e não puderam ser renovadas (a senha mudou, ou o login perdeu o acesso ao sistema?). Os comandos estão parados: vincule de novo com `/estoque vincular`. Se foi uma falha passageira do sistema de estoque, não é preciso fazer nada: o bot verifica o vínculo de novo sozinho, por até 7 dias, e avisa você aqui quando voltar a funcionar.',
    ],
    [
      'healed link admin notice',
      () => renderHealedLinkAdminNotice(),
      ':white_check_mark: O vínculo do estoque que você fez voltou a funcionar: o sistema de estoque aceitou de novo o login vinculado. Os comandos, os resumos e os alertas voltaram; não é preciso vincular de novo.',
    ],
    ['unlink cancelled', () => renderUnlinkCancelled(), 'Nada mudou: o estoque continua vinculado.'],
    [
      'unlinked',
      () => renderUnlinked('U0ADMIN'),
      ':white_check_mark: Estoque desvinculado por <@U0ADMIN>. Credenciais e cache apagados.',
    ],
    [
      'linked',
      () =>
        renderLinked({
          login: 'manutencao@predio.com.br',
          empresaId: 12,
          unidadeId: null,
          stockroomCount: 4,
        }),
      ':white_check_mark: Estoque vinculado: login `manutencao@predio.com.br`, empresa 12, todas as unidades. 4 almoxarifados ativos encontrados. Experimente `/estoque almoxarifados` ou `/estoque ajuda`.',
    ],
    [
      'link unavailable busy, in the modal',
      () => renderLinkUnavailable('busy', NOW + 30 * 60_000),
      'Limite de consultas ao sistema atingido; tente de novo em alguns minutos.',
    ],
    [
      'link unavailable busy, after the modal',
      () => renderLinkUnavailable('busy', NOW + 30 * 60_000, true, null, ctx),
      ':warning: Nada foi vinculado. Limite de consultas ao sistema atingido; tente de novo às 11:06.',
    ],
    [
      // Text from upstream is escaped: it can never mention the channel.
      'link refused by upstream',
      () => renderLinkUnavailable('refused', null, true, 'Login ou senha inválidos <!here>'),
      ':warning: Nada foi vinculado. Login ou senha inválidos &lt;!here&gt;',
    ],
    [
      'digest coming soon',
      () => renderDigestComingSoon(),
      'O resumo diário chega numa próxima versão. Por enquanto, use `/compras pendentes` e `/solicitacao`.',
    ],
    ['unsubscribed', () => renderUnsubscribed(), 'Resumo diário cancelado neste canal.'],
    [
      'not subscribed',
      () => renderNotSubscribed(),
      'Este canal não assina o resumo diário. Para assinar: `/estoque resumo assinar [HH:MM] [almox:ID] [dias:uteis]`.',
    ],
    [
      'invite the bot',
      () => renderInviteBot(),
      'Não consigo postar neste canal. Convide o bot com `/invite @estoque-bot` e tente de novo.',
    ],
    [
      'archived: inviting would not mend it',
      () => renderInviteBot('is_archived'),
      'Não consigo postar neste canal: o canal foi arquivado. Use o comando em outro canal.',
    ],
    [
      'read-only: inviting would not mend it',
      () => renderInviteBot('restricted_action_read_only_channel'),
      'Não consigo postar neste canal: o canal só aceita mensagens de quem o administra. Use o comando em outro canal.',
    ],
    ['digest posted', () => renderDigestPosted(), 'Resumo postado neste canal.'],
    [
      'the app refused in the workspace: an admin must reinstall it',
      () => renderAppRefused('missing_scope'),
      'Não consigo postar neste canal: o Slack não aceita mais o app neste workspace (`missing_scope`). Peça a um administrador do Slack que reinstale o app; até lá, resumos e alertas ficam parados.',
    ],
    [
      'no permission in the channel: inviting mends it',
      () => renderInviteBot('no_permission'),
      'Não consigo postar neste canal. Convide o bot com `/invite @estoque-bot` e tente de novo.',
    ],
    [
      'digest unavailable',
      () => renderDigestUnavailable(),
      'Não consegui postar neste canal agora: o Slack não aceitou a mensagem. Tente de novo em instantes.',
    ],
  ])('%s', (_, render, text) => {
    expectNotice(render(), text);
  });
});

describe('failures with a reference', () => {
  it.each<[string, () => Message, string, string]>([
    [
      'server error, with the hash to quote',
      () => renderServerError('A1B2C3', 'corr-123'),
      ':warning: O sistema de estoque teve um erro interno. Tente de novo em instantes. Se continuar, informe ao suporte o código `A1B2C3`.',
      'corr-123',
    ],
    [
      'bad upstream data',
      () => renderBadUpstreamData('corr-789'),
      ':warning: O sistema de estoque respondeu com dados num formato inesperado. Se continuar, informe ao suporte a referência abaixo.',
      'corr-789',
    ],
    [
      'unexpected',
      () => renderUnexpected('corr-000'),
      ':warning: Algo deu errado do nosso lado. Tente de novo; se continuar, informe ao suporte a referência abaixo.',
      'corr-000',
    ],
  ])('%s', (_, render, text, correlationId) => {
    const message = render();
    expect(message.text).toBe(text);
    expect(message.blocks[0]).toEqual({ type: 'section', text: { type: 'mrkdwn', text, verbatim: true } });
    expect(message.blocks).toHaveLength(2);
    expect(refOf(message)).toBe(`Ref. \`${correlationId}\``);
    expect(buttonsOf(message)).toEqual([]);
    expect(checkMessageLimits(message)).toEqual([]);
  });

  it('a timeout offers one button that retries the same route, and the reference', () => {
    const route = { view: 'request', id: 1234, page: 1 } as const;
    const message = renderTimeout(route, 'corr-456');
    expect(message.text).toBe(':hourglass: O sistema de estoque demorou demais para responder.');
    const buttons = buttonsOf(message);
    expect(buttons.map(({ text, actionId, route }) => ({ text, actionId, route }))).toEqual([
      { text: 'Tentar de novo', actionId: 'retry:0', route },
    ]);
    // The value is the route's button form, as buttons already posted carry it.
    expect(buttons[0]?.value).toBe('{"r":"request","id":1234,"p":1}');
    expect(refOf(message)).toBe('Ref. `corr-456`');
    expect(checkMessageLimits(message)).toEqual([]);
  });
});

describe('follows ended by a link to another company', () => {
  it('names the numbers in order, twenty at most, and says how to follow again', () => {
    const one = renderFollowsEndedDm([4105]).text;
    expect(one).toContain('outra empresa');
    expect(one).toContain('deixei de acompanhar para você a solicitação 4105.');
    expect(one).toContain('/solicitacao <número> acompanhar');
    const many = renderFollowsEndedDm(Array.from({ length: 23 }, (_, i) => 5000 - i)).text;
    expect(many).toContain('as solicitações 4978, 4979,');
    expect(many).toContain('4997 e mais 3.');
    expect(many).not.toContain('4998');
  });
});
