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
} from './format.js';
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

/** "Último saldo conhecido: 12 (mín. 5, máx. 40) — visto na solicitação 1234 em 20/11/2026 14:30". */
export function lastKnownStockText(stock: LastKnownStock | null, ctx: RenderContext): string {
  if (!stock) return 'Sem saldo conhecido';
  const below = isBelowMinimum(stock.current, stock.minimum) ? ` · ${BELOW_MINIMUM}` : '';
  return (
    `Último saldo conhecido: ${formatNumber(stock.current)}${stockBounds(stock.minimum, stock.maximum)}` +
    ` — visto na solicitação ${stock.requestId} em ${formatDateTime(stock.seenAt, ctx.timeZone)}${below}`
  );
}

function joinParts(parts: (string | null)[]): string | null {
  const kept = parts.filter((part): part is string => part !== null);
  return kept.length === 0 ? null : kept.join(' · ');
}

function brandLine(match: MaterialMatch): string | null {
  const { marca, modelo, fabricante } = match.material;
  const brand = [marca, modelo].filter((part): part is string => part != null && part.trim() !== '');
  const maker = fabricante?.trim() ? fabricante.trim() : null;
  return joinParts([
    brand.length === 0 ? null : `Marca/modelo: ${brand.map((part) => safeText(part, 80)).join(' / ')}`,
    maker !== null && maker.toLowerCase() !== marca?.trim().toLowerCase()
      ? `Fabricante: ${safeText(maker, 80)}`
      : null,
  ]);
}

function materialName(match: MaterialMatch): string {
  const { nome, nomeFormatted, material } = match.material;
  const name = nome?.trim() || nomeFormatted?.trim() || match.knownName?.trim();
  return name ? safeText(name, 150) : `Material ${material}`;
}

export function materialBlock(match: MaterialMatch, ctx: RenderContext): KnownBlock {
  const { material } = match;
  const unit =
    typeof material.unidadeConsumo === 'string' && material.unidadeConsumo.trim() !== ''
      ? material.unidadeConsumo
      : null;
  const lines = [
    `*${material.codigo?.trim() ? `${code(truncate(material.codigo.trim(), 40))} ` : ''}${materialName(match)}*`,
    joinParts([
      match.typeName ? `Tipo: ${safeText(match.typeName, 60)}` : null,
      match.categoryName ? `Categoria: ${safeText(match.categoryName, 60)}` : null,
    ]),
    brandLine(match),
    joinParts([
      material.custo === null ? null : `Custo: ${formatMoney(material.custo)}`,
      unit === null ? null : `Unidade: ${safeText(unit, 20)}`,
    ]),
    lastKnownStockText(match.lastKnown, ctx),
  ];
  return section(lines.filter((line): line is string => line !== null).join('\n'));
}

export function renderMaterialSearch(answer: Answer<MaterialSearchView>, ctx: RenderContext): Message {
  const view = answer.data;
  const search = `“${escapeMrkdwn(truncate(view.text.trim(), 100))}”`;
  const where = view.stockroomId === null ? '' : ` no almoxarifado ${view.stockroomId}`;
  const current = localPage(view.matches, view.page, MATERIALS_PAGE_SIZE);
  const route: Route = {
    view: 'materials',
    text: view.text,
    ...(view.stockroomId !== null && { stockroomId: view.stockroomId }),
    page: current.page,
  };
  const count = plural(view.matches.length, 'material', 'materiais');
  if (view.matches.length === 0) {
    return answerMessage({
      text: `Nenhum material encontrado para ${search}${where}`,
      body: [
        section(
          `Nenhum material encontrado para ${search}${where}. Tente outra grafia, menos palavras ou o código exato.`,
        ),
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
    header(`Materiais: “${truncate(view.text.trim(), 100)}”`),
    ...current.rows.map((match) => materialBlock(match, ctx)),
    context(
      `${pageLine(current.page, current.totalPages, count)}${where ? ` · almoxarifado ${view.stockroomId}` : ''}` +
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
