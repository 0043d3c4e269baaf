import type { KnownBlock } from '@slack/types';
import { answerMessage } from './answer.js';
import { context, finalizeMessage, header, section } from './blocks.js';
import { escapeMrkdwnEntities } from './format.js';
import type { Message, RenderContext } from './types.js';

/** `/estoque ajuda` and the usage shown after a bad argument: every command with a concrete example. */

export type CommandName = 'estoque' | 'solicitacao' | 'compras';

interface UsageLine {
  examples: string[];
  what: string;
}

const USAGE: Record<CommandName, { title: string; lines: UsageLine[] }> = {
  estoque: {
    title: 'Materiais e estoque',
    lines: [
      {
        examples: ['/estoque lâmpada almox:2'],
        what: 'materiais pelo nome ou código exato, com o último saldo conhecido',
      },
      { examples: ['/estoque almoxarifados'], what: 'almoxarifados ativos (o número é o do `almox:`)' },
      { examples: ['/estoque tipos', '/estoque categorias'], what: 'tipos e categorias de material' },
      { examples: ['/estoque status'], what: 'vínculo, validade do acesso, consultas usadas e cache' },
      {
        examples: ['/estoque vincular', '/estoque desvincular'],
        what: 'liga ou desliga o login do sistema (só administradores)',
      },
      {
        examples: ['/estoque resumo assinar 07:30 almox:2 dias:uteis'],
        what: 'resumo diário neste canal (padrão 08:00, todos os dias)',
      },
      {
        examples: ['/estoque resumo listar', '/estoque resumo cancelar', '/estoque resumo agora'],
        what: 'lista os resumos, cancela o deste canal ou posta agora',
      },
      {
        examples: ['/estoque alertas assinar almox:2 eventos:novas,status'],
        what: 'alertas neste canal: novas solicitações, mudanças de status e recebimentos (padrão: tudo)',
      },
      {
        examples: ['/estoque alertas listar', '/estoque alertas cancelar'],
        what: 'lista os alertas do workspace ou cancela os deste canal',
      },
      { examples: ['/estoque ajuda'], what: 'esta ajuda' },
    ],
  },
  solicitacao: {
    title: 'Solicitações de material',
    lines: [
      {
        examples: ['/solicitacao 1234'],
        what: 'itens da solicitação: quantidades, estoque, compra e valores',
      },
      { examples: ['/solicitacao 1234 historico'], what: 'histórico de status, do mais antigo ao mais novo' },
      { examples: ['/solicitacao'], what: 'solicitações dos últimos 30 dias' },
      {
        examples: [
          '/solicitacao status:1,2 de:01/10/2026 ate:31/10/2026 almox:2 torre',
          '/solicitacao compra:5678',
        ],
        what: 'filtra por status, período, almoxarifado, compra e texto',
      },
      { examples: ['/solicitacao minhas'], what: 'as suas solicitações (pelo seu e-mail)' },
      {
        examples: ['/solicitacao 1234 acompanhar', '/solicitacao 1234 parar'],
        what: 'mensagem direta a cada mudança dela (ou o botão *Acompanhar*)',
      },
      { examples: ['/solicitacao acompanhando'], what: 'as que você acompanha, com o último status visto' },
      {
        examples: ['/solicitacao minhas acompanhar', '/solicitacao minhas parar'],
        what: 'acompanha todas as suas, inclusive as novas',
      },
    ],
  },
  compras: {
    title: 'Compras e entradas',
    lines: [
      { examples: ['/compras pendentes', '/compras pendentes almox:2'], what: 'compras com saldo a receber' },
      {
        examples: ['/compras fornecedor:12 status:1 de:01/10/2026 ate:31/10/2026'],
        what: 'ordens de compra (também `almox:` e texto)',
      },
      { examples: ['/compras 5678'], what: 'solicitações vinculadas à compra' },
      {
        examples: ['/compras entradas almox:2 oc:5678 de:01/10/2026'],
        what: 'entradas de material (as datas são as da compra)',
      },
    ],
  },
};

/** `pagina:` is taken by exactly the answers that page (the parser's rule): the footer says which, by their button. */
const CONVENTIONS =
  'Filtros são `chave:valor`; datas em `dd/mm/aaaa`; `pagina:2` abre outra página das respostas com *Próxima*. ' +
  'Acentos e maiúsculas não importam.';

/**
 * Local mode's own command, after `/estoque`'s lines: the sandbox runs beside the bot only there (elsewhere the
 * command says it does not exist, so the help does not offer it). Until 2026-11-27 no help named it.
 */
const LOCAL_MODE_LINE: UsageLine = {
  examples: ['/estoque sandbox avancar', '/estoque sandbox avancar 5'],
  what: 'modo local: o sandbox muda solicitações e compras (3 mudanças, ou até 20) e os alertas avisam',
};

export interface HelpOptions {
  /** Local mode (the sandbox runs in the bot's process): the help names `/estoque sandbox avancar`. */
  localMode?: boolean;
}

/** Help shows no data, so it needs no clock; without a context it renders as a private answer. */
const STATIC_CONTEXT: RenderContext = { timeZone: 'UTC', now: 0 };

function usageText(command: CommandName, options: HelpOptions = {}): string {
  const { title, lines: own } = USAGE[command];
  const lines = command === 'estoque' && options.localMode ? [...own, LOCAL_MODE_LINE] : own;
  return [
    `*${title}*`,
    ...lines.map(
      (line) => `• ${line.examples.map((example) => `\`${example}\``).join(' · ')} — ${line.what}`,
    ),
  ].join('\n');
}

export function renderHelp(ctx?: RenderContext, options: HelpOptions = {}): Message {
  const body: KnownBlock[] = [
    header('Estoque no Slack'),
    section(usageText('estoque', options)),
    section(usageText('solicitacao')),
    section(usageText('compras')),
    context(CONVENTIONS),
  ];
  const text = 'Ajuda: /estoque, /solicitacao e /compras';
  return answerMessage({ text, body, route: { view: 'help' }, freshness: null, ctx: ctx ?? STATIC_CONTEXT });
}

/**
 * A bad argument: what was wrong (from the parser, pt-BR), then how that command is used. The problem is the parser's
 * own mrkdwn: what the user typed is quoted in it as code (`\`pagina:x\``), so only the entities are escaped. In
 * local mode `/estoque`'s usage names `sandbox avancar` as its help does (until 2026-11-27 it did not).
 */
export function renderUsage(command: CommandName, problem: string, options: HelpOptions = {}): Message {
  const problemText = `:warning: ${escapeMrkdwnEntities(problem.trim() || 'comando não entendido')}`;
  return finalizeMessage({
    text: `Comando /${command}: ${escapeMrkdwnEntities(problem)}`,
    blocks: [section(problemText), section(usageText(command, options)), context(CONVENTIONS)],
  });
}
