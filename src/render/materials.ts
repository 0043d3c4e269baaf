import type { KnownBlock } from '@slack/types';
import type { Route } from '../domain/routes.js';
import type { Answer, MaterialMatch, MaterialSearchView } from '../domain/views.js';
import type { LastKnownStock } from '../store/stock-store.js';
import { answerMessage, localPage, pageLine, pagingButtons } from './answer.js';
import { context, header, section } from './blocks.js';
import {
  code,
  escapeMrkdwn,
  formatDateTime,
  formatMoney,
  formatNumber,
  plural,
  safeText,
  truncate,
  visibleText,
} from './format.js';
import { stockroomNotActiveText } from './link.js';
import type { Message, RenderContext } from './types.js';

/** `/estoque <texto>`: one page of matching materials, each with its last known stock (never a live figure). */

export const MATERIALS_PAGE_SIZE = 8;

/** "(mín. 5, máx. 40)", or only the bounds that are known. */
export function stockBounds(minimum: number | null, maximum: number | null): string {
  const parts = [
    minimum === null ? null : `mín. ${formatNumber(minimum)}`,
    maximum === null ? null : `máx. ${formatNumber(maximum)}`,
  ].filter((part): part is string => part !== null);
  return parts.length === 0 ? '' : ` (${parts.join(', ')})`;
}

export function isBelowMinimum(current: number, minimum: number | null): boolean {
  return minimum !== null && current < minimum;
}

export const BELOW_MINIMUM = ':warning: *abaixo do mínimo*';

/** A stockroom as a balance names it: "Almoxarifado Central (1)", or "Almoxarifado 1" when its name is not saved. */
export function stockroomLabel(stockroomId: number, names?: ReadonlyMap<number, string>): string {
  const name = names?.get(stockroomId);
  return name ? `${safeText(name, 80)} (${stockroomId})` : `Almoxarifado ${stockroomId}`;
}

/** " em Almoxarifado Central (1)", " no almoxarifado 1"; nothing for a balance whose stockroom is not known. */
function inStockroom(stockroomId: number | null | undefined, names?: ReadonlyMap<number, string>): string {
  if (typeof stockroomId !== 'number') return '';
  return names?.has(stockroomId)
    ? ` em ${stockroomLabel(stockroomId, names)}`
    : ` no almoxarifado ${stockroomId}`;
}

function balanceText(stock: LastKnownStock): string {
  return `${formatNumber(stock.current)}${stockBounds(stock.minimum, stock.maximum)}`;
}

function belowMark(stock: LastKnownStock): string {
  return isBelowMinimum(stock.current, stock.minimum) ? ` · ${BELOW_MINIMUM}` : '';
}

/**
 * "Último saldo conhecido em Almoxarifado Central (1): 12 (mín. 5, máx. 40) — visto na solicitação 1234 em
 * 20/11/2026 14:30": the stockroom named when the balance's is known (names: the saved stockroom list).
 */
export function lastKnownStockText(
  stock: LastKnownStock | null,
  ctx: RenderContext,
  names?: ReadonlyMap<number, string>,
): string {
  if (!stock) return 'Sem saldo conhecido';
  return (
    `Último saldo conhecido${inStockroom(stock.stockroomId, names)}: ${balanceText(stock)}` +
    ` — visto na solicitação ${stock.requestId} em ${formatDateTime(stock.seenAt, ctx.timeZone)}${belowMark(stock)}`
  );
}

/**
 * A material's last known stock, never shown as live and never one stockroom's as another's: with `almox:N`, N's
 * balance, or when none of N is known the newest of another stockroom, named as such; without, the newest and
 * below it each other stockroom's, one line each (at most MAX_STOCKROOMS_PER_MATERIAL of them).
 */
export function lastKnownStockLines(match: MaterialMatch, ctx: RenderContext): string {
  const names = match.stockroomNames;
  const others = match.otherStock ?? [];
  const asked = match.stockroomAsked ?? null;
  if (asked !== null && match.lastKnown === null) {
    const [elsewhere] = others;
    if (!elsewhere) return 'Sem saldo conhecido';
    const where =
      typeof elsewhere.stockroomId === 'number'
        ? inStockroom(elsewhere.stockroomId, names).trim()
        : 'de almoxarifado não identificado';
    return (
      `Sem saldo conhecido${inStockroom(asked, names)}; o último conhecido, ${where}: ${balanceText(elsewhere)}` +
      ` — visto na solicitação ${elsewhere.requestId} em ${formatDateTime(elsewhere.seenAt, ctx.timeZone)}` +
      belowMark(elsewhere)
    );
  }
  const lines = [lastKnownStockText(match.lastKnown, ctx, names)];
  if (asked === null && others.length > 0) {
    lines.push('Outros saldos conhecidos:');
    for (const other of others)
      lines.push(
        `• ${typeof other.stockroomId === 'number' ? stockroomLabel(other.stockroomId, names) : 'Almoxarifado não identificado'}: ` +
          `${balanceText(other)} — solicitação ${other.requestId} em ${formatDateTime(other.seenAt, ctx.timeZone)}${belowMark(other)}`,
      );
  }
  return lines.join('\n');
}

function joinParts(parts: (string | null)[]): string | null {
  const kept = parts.filter((part): part is string => part !== null);
  return kept.length === 0 ? null : kept.join(' · ');
}

function brandLine(match: MaterialMatch): string | null {
  const { marca, modelo, fabricante } = match.material;
  const brand = [marca, modelo].filter((part): part is string => visibleText(part) !== '');
  const maker = visibleText(fabricante) || null;
  return joinParts([
    brand.length === 0 ? null : `Marca/modelo: ${brand.map((part) => safeText(part, 80)).join(' / ')}`,
    maker !== null && maker.toLowerCase() !== visibleText(marca).toLowerCase()
      ? `Fabricante: ${safeText(maker, 80)}`
      : null,
  ]);
}

function materialName(match: MaterialMatch): string {
  const { nome, nomeFormatted, material } = match.material;
  const name = visibleText(nome) || visibleText(nomeFormatted) || visibleText(match.knownName);
  return name ? safeText(name, 150) : `Material ${material}`;
}

export function materialBlock(match: MaterialMatch, ctx: RenderContext): KnownBlock {
  const { material } = match;
  const unit =
    typeof material.unidadeConsumo === 'string' && material.unidadeConsumo.trim() !== ''
      ? material.unidadeConsumo
      : null;
  const lines = [
    `*${visibleText(material.codigo) ? `${code(truncate(visibleText(material.codigo), 40))} ` : ''}${materialName(match)}*`,
    joinParts([
      match.typeName ? `Tipo: ${safeText(match.typeName, 60)}` : null,
      match.categoryName ? `Categoria: ${safeText(match.categoryName, 60)}` : null,
    ]),
    brandLine(match),
    joinParts([
      material.custo === null ? null : `Custo: ${formatMoney(material.custo)}`,
      unit === null ? null : `Unidade: ${safeText(unit, 20)}`,
    ]),
    lastKnownStockLines(match, ctx),
  ];
  return section(lines.filter((line): line is string => line !== null).join('\n'));
}

export function renderMaterialSearch(answer: Answer<MaterialSearchView>, ctx: RenderContext): Message {
  const view = answer.data;
  const search = `“${escapeMrkdwn(truncate(visibleText(view.text), 100))}”`;
  const names =
    view.stockroomId !== null && view.stockroomName
      ? new Map([[view.stockroomId, view.stockroomName]])
      : undefined;
  const where = view.stockroomId === null ? '' : inStockroom(view.stockroomId, names);
  const current = localPage(view.matches, view.page, MATERIALS_PAGE_SIZE);
  const route: Route = {
    view: 'materials',
    text: view.text,
    ...(view.stockroomId !== null && { stockroomId: view.stockroomId }),
    page: current.page,
  };
  const count = plural(view.matches.length, 'material', 'materiais');
  if (view.stockroomId !== null && view.stockroomState === 'inactive') {
    // Nothing was searched: the saved stockroom list does not have it (until 2026-11-27 a material list call,
    // then "Nenhum material encontrado … Tente outra grafia").
    const text = stockroomNotActiveText(view.stockroomId);
    return answerMessage({
      text,
      body: [section(text)],
      route,
      freshness: answer.freshness,
      ctx,
      refresh: true,
    });
  }
  if (view.matches.length === 0) {
    // The spelling hint only when the stockroom is known to be there; otherwise its number may be the cause.
    const hint =
      view.stockroomId !== null && view.stockroomState === 'unchecked'
        ? 'Confira o número do almoxarifado (`/estoque almoxarifados`) ou tente outra grafia, menos palavras ou o código exato.'
        : 'Tente outra grafia, menos palavras ou o código exato.';
    return answerMessage({
      text: `Nenhum material encontrado para ${search}${where}`,
      body: [
        section(`Nenhum material encontrado para ${search}${where}. ${hint}`),
        // upstream-api.md: the material list leaves out protective equipment; a search for gloves must not
        // read as a spelling problem.
        context(
          'EPIs (equipamentos de proteção individual) não aparecem nesta busca: o sistema de estoque não os lista.',
        ),
      ],
      route,
      freshness: answer.freshness,
      ctx,
    });
  }
  const body: KnownBlock[] = [
    header(`Materiais: “${truncate(visibleText(view.text), 100)}”`),
    ...current.rows.map((match) => materialBlock(match, ctx)),
    context(
      `${pageLine(current.page, current.totalPages, count)}` +
        `${view.stockroomId === null ? '' : ` · ${names ? stockroomLabel(view.stockroomId, names) : `almoxarifado ${view.stockroomId}`}`}` +
        ' · O saldo vem dos itens de solicitações já vistos, não é o estoque em tempo real.',
    ),
  ];
  return answerMessage({
    text: `${count} para ${search}${where}`,
    body,
    route,
    freshness: answer.freshness,
    ctx,
    buttons: pagingButtons(route, current.page, current.totalPages),
  });
}
