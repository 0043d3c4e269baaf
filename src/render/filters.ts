import type { LocalDate } from '../domain/dates.js';
import type { PurchaseFiltersView, ReceiptFiltersView, RequestFiltersView } from '../domain/views.js';
import { escapeMrkdwn, formatLocalDate, joinAnd, truncate, visibleText } from './format.js';

/** Filters in words: "almoxarifado 2, status 1 e 2, de 01/10/2026 a 31/10/2026, texto “torre”". */

function period(from: LocalDate | undefined, to: LocalDate | undefined): string | null {
  if (from && to) return `de ${formatLocalDate(from)} a ${formatLocalDate(to)}`;
  if (from) return `desde ${formatLocalDate(from)}`;
  if (to) return `até ${formatLocalDate(to)}`;
  return null;
}

function statuses(status: number[] | undefined): string | null {
  if (!status || status.length === 0) return null;
  if (status.includes(0)) return 'todos os status';
  return `status ${joinAnd(status.map(String))}`;
}

function freeText(text: string | undefined): string | null {
  const trimmed = visibleText(text);
  return trimmed ? `texto “${escapeMrkdwn(truncate(trimmed, 100))}”` : null;
}

function words(parts: (string | null)[]): string {
  return parts.filter((part): part is string => part !== null).join(', ');
}

export function describeRequestFilters(
  filters: RequestFiltersView,
  options: { includePeriod: boolean },
): string {
  return words([
    filters.stockroomId === undefined ? null : `almoxarifado ${filters.stockroomId}`,
    statuses(filters.status),
    filters.purchaseId === undefined ? null : `compra ${filters.purchaseId}`,
    options.includePeriod ? period(filters.from, filters.to) : null,
    freeText(filters.text),
  ]);
}

export function describePurchaseFilters(filters: PurchaseFiltersView): string {
  return words([
    filters.stockroomId === undefined ? null : `almoxarifado ${filters.stockroomId}`,
    statuses(filters.status),
    filters.supplierId === undefined ? null : `fornecedor ${filters.supplierId}`,
    period(filters.from, filters.to),
    freeText(filters.text),
  ]);
}

export function describeReceiptFilters(filters: ReceiptFiltersView): string {
  const dates = period(filters.from, filters.to);
  return words([
    filters.stockroomId === undefined ? null : `almoxarifado ${filters.stockroomId}`,
    filters.purchaseId === undefined ? null : `ordem de compra ${filters.purchaseId}`,
    dates === null ? null : `data da compra ${dates}`,
  ]);
}
