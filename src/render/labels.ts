import type { Button, SectionBlock } from '@slack/types';
import { fieldsSection, section } from './blocks.js';
import {
  escapeMrkdwn,
  formatLooseDate,
  formatMoney,
  formatNumber,
  looksLikeIsoDate,
  safeText,
  truncate,
  truncateMrkdwn,
} from './format.js';
import { Limits } from './limits.js';

/**
 * Purchases and receipts are undocumented beyond their id: they are shown generically, every scalar field that
 * arrives with a readable pt-BR label. Unknown or missing fields never break an answer.
 *
 * The tables below are looked up by upstream's field names: Maps, not object literals, since a field named
 * `toString` or `constructor` would find Object's own function in an object (and the answer failed on it).
 */

const KNOWN_LABELS: ReadonlyMap<string, string> = new Map(
  Object.entries({
    compraMaterialId: 'Compra',
    entradaMaterialId: 'Entrada',
    entradaId: 'Entrada',
    ordemCompra: 'Ordem de compra',
    compraAgrupadora: 'Compra agrupadora',
    fornecedor_Nome: 'Fornecedor',
    almoxarifado_Nome: 'Almoxarifado',
    solicitante_Nome: 'Solicitante',
    comprador_Nome: 'Comprador',
    material_Nome: 'Material',
    site_Nome: 'Site',
    unidade_Nome: 'Unidade',
    empresa_Nome: 'Empresa',
    status_Nome: 'Status',
    status: 'Status',
    dataCompra: 'Data da compra',
    dataEntrada: 'Data da entrada',
    dataEmissao: 'Data de emissão',
    dataCadastro: 'Cadastrada em',
    dataPrevisaoEntrega: 'Previsão de entrega',
    dataPrevista: 'Previsão de entrega',
    valorTotal: 'Valor total',
    valorUnitario: 'Valor unitário',
    valorFrete: 'Frete',
    valorDesconto: 'Desconto',
    numeroNotaFiscal: 'Nota fiscal',
    notaFiscal: 'Nota fiscal',
    quantidade: 'Quantidade',
    quantidadeComprada: 'Qtd. comprada',
    quantidadeRecebida: 'Qtd. recebida',
    quantidadePendente: 'Qtd. pendente',
    saldoReceber: 'Saldo a receber',
    observacao: 'Observação',
    observacoes: 'Observações',
    descricao: 'Descrição',
    numero: 'Número',
    condicaoPagamento: 'Condição de pagamento',
    formaPagamento: 'Forma de pagamento',
    prazoEntrega: 'Prazo de entrega',
    centroCusto_Nome: 'Centro de custo',
  }),
);

/** Fields shown first, in this order; the others follow in the order they arrived. */
const PRIORITY = [
  'status_Nome',
  'status',
  'fornecedor_Nome',
  'almoxarifado_Nome',
  'dataCompra',
  'dataEntrada',
  'numeroNotaFiscal',
  'ordemCompra',
  'compraMaterialId',
  'valorTotal',
  'quantidadeComprada',
  'quantidadeRecebida',
  'quantidadePendente',
];

/** Row bookkeeping of upstream lists, never worth showing. */
const ALWAYS_SKIPPED = new Set(['rowNumber', 'totalRows']);

/** Words that field names spell without their accents. */
const ACCENTED: ReadonlyMap<string, string> = new Map(
  Object.entries({
    observacao: 'observação',
    observacoes: 'observações',
    descricao: 'descrição',
    previsao: 'previsão',
    emissao: 'emissão',
    numero: 'número',
    situacao: 'situação',
    codigo: 'código',
    preco: 'preço',
    usuario: 'usuário',
    solicitacao: 'solicitação',
    aprovacao: 'aprovação',
    cotacao: 'cotação',
    condicao: 'condição',
    razao: 'razão',
    endereco: 'endereço',
    servico: 'serviço',
    unitario: 'unitário',
    responsavel: 'responsável',
    saida: 'saída',
    inicio: 'início',
    termino: 'término',
    orcamento: 'orçamento',
    medio: 'médio',
    ultima: 'última',
    ultimo: 'último',
    maximo: 'máximo',
    minimo: 'mínimo',
    periodo: 'período',
    especie: 'espécie',
    alteracao: 'alteração',
    criacao: 'criação',
    inclusao: 'inclusão',
    exclusao: 'exclusão',
  }),
);

const NAME_SUFFIX = /_nome$/i;

/** "quantidadeSaldoReceber" → "Quantidade saldo receber"; "fornecedor_Nome" → "Fornecedor". */
export function humanizeKey(key: string): string {
  const words = key
    .replace(NAME_SUFFIX, '')
    .replace(/([\p{Ll}\d])(\p{Lu})/gu, '$1 $2')
    .replace(/(\p{Lu})(\p{Lu}\p{Ll})/gu, '$1 $2')
    .split(/[\s_\-.]+/)
    .filter((word) => word !== '')
    .map((word) => word.toLowerCase())
    .map((word) => (word === 'id' ? '(id)' : (ACCENTED.get(word) ?? word)));
  const text = words.join(' ');
  return text === '' ? key : `${text.charAt(0).toUpperCase()}${text.slice(1)}`;
}

export function labelFor(key: string): string {
  return KNOWN_LABELS.get(key) ?? humanizeKey(key);
}

const MONEY_KEY = /valor|custo|pre[cç]o/i;
const QUANTITY_KEY = /quant|qtd|saldo|estoque|total|count|percent|peso|volume|metro/i;

/** A scalar as pt-BR text for its key; null when the value is not worth a line (null, empty, object). */
export function formatFieldValue(key: string, value: unknown, timeZone: string): string | null {
  if (typeof value === 'boolean') return value ? 'Sim' : 'Não';
  if (typeof value === 'number') {
    if (!Number.isFinite(value)) return null;
    if (MONEY_KEY.test(key)) return formatMoney(value);
    // Other integers are ids, codes and years: digits as they are, no grouping.
    if (!QUANTITY_KEY.test(key) && Number.isInteger(value)) return String(value);
    return formatNumber(value);
  }
  if (typeof value === 'string') {
    const text = value.trim();
    if (text === '') return null;
    if (looksLikeIsoDate(text)) return formatLooseDate(text, timeZone);
    return safeText(text, 500);
  }
  return null;
}

export interface RecordLine {
  key: string;
  label: string;
  /** The value as shown, with `idSuffix` at its end. */
  value: string;
  /** ` (4)`: the id a `*_Nome` field's twin holds, shown beside the name; empty for any other field. */
  idSuffix: string;
}

/**
 * The ids of the `*_Nome` fields, by name key (`fornecedor_Nome` → the integer in `fornecedor`, `fornecedorId`,
 * `fornecedor_Id` or `fornecedorID`), and every such twin key, which is shown beside its name and never on its own
 * line. The id stays in sight because the filters take numbers only (`fornecedor:4`, `status:1`): "Fornecedor:
 * Hidráulica São Jorge (4)". Own properties only: a `constructor_Nome` must not find Object's `constructor`.
 */
function twinsOfNames(record: Record<string, unknown>): { ids: Map<string, number>; twins: Set<string> } {
  const ids = new Map<string, number>();
  const twins = new Set<string>();
  for (const [key, value] of Object.entries(record)) {
    if (!NAME_SUFFIX.test(key) || typeof value !== 'string' || value.trim() === '') continue;
    const base = key.replace(NAME_SUFFIX, '');
    for (const twin of [base, `${base}Id`, `${base}_Id`, `${base}ID`]) {
      twins.add(twin);
      const id = Object.hasOwn(record, twin) ? record[twin] : undefined;
      if (!ids.has(key) && typeof id === 'number' && Number.isSafeInteger(id)) ids.set(key, id);
    }
  }
  return { ids, twins };
}

/** Every scalar field of an undocumented record as label and value, most useful first. */
export function recordLines(
  record: Record<string, unknown>,
  timeZone: string,
  omit: readonly string[] = [],
): RecordLine[] {
  const { ids, twins } = twinsOfNames(record);
  const lines: RecordLine[] = [];
  for (const [key, value] of Object.entries(record)) {
    if (ALWAYS_SKIPPED.has(key) || twins.has(key) || omit.includes(key)) continue;
    const formatted = formatFieldValue(key, value, timeZone);
    if (formatted === null) continue;
    const id = ids.get(key);
    const idSuffix = id === undefined ? '' : ` (${id})`;
    lines.push({
      key,
      label: escapeMrkdwn(truncate(labelFor(key), 60)),
      value: `${formatted}${idSuffix}`,
      idSuffix,
    });
  }
  const rank = (key: string) => {
    const index = PRIORITY.indexOf(key);
    return index === -1 ? PRIORITY.length : index;
  };
  return lines
    .map((line, index) => ({ line, index }))
    .sort((a, b) => rank(a.line.key) - rank(b.line.key) || a.index - b.index)
    .map(({ line }) => line);
}

/** A line's value cut to `max` characters; a name's id stays whole after the cut: `Hidráulica São…(4)`. */
export function shortValue(line: RecordLine, max: number): string {
  if (line.value.length <= max) return line.value;
  const name = line.value.slice(0, line.value.length - line.idSuffix.length);
  // The values are escaped already: cut without splitting an escape (`&am…`).
  return `${truncateMrkdwn(name, Math.max(1, max - line.idSuffix.length))}${line.idSuffix}`;
}

/** The first of `keys` that holds an integer id (receipts name their id in several ways). */
export function recordId(
  record: Record<string, unknown>,
  keys: readonly string[],
): { key: string; id: number } | null {
  for (const key of keys) {
    const value = record[key];
    if (typeof value === 'number' && Number.isInteger(value)) return { key, id: value };
  }
  return null;
}

/**
 * One section per record: the title, then up to 10 fields in two columns; a record with more fields is
 * written as one paragraph, cut with "…" when it does not fit.
 */
export function recordSection(
  title: string,
  lines: readonly RecordLine[],
  accessory?: Button | null,
): SectionBlock {
  if (lines.length === 0) return section(title, accessory);
  if (lines.length <= Limits.sectionFields) {
    return fieldsSection(
      lines.map((line) => `*${line.label}*\n${line.value}`),
      title,
      accessory,
    );
  }
  const paragraph = lines.map((line) => `*${line.label}:* ${line.value}`).join(' · ');
  return section(`${title}\n${paragraph}`, accessory);
}
