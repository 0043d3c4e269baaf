import type { CompanyData } from '../../src/sandbox/model.js';

/**
 * What must hold in a company's data however it was generated or moved along: the things the endpoints, the
 * facts and the bot rely on. Returns the problems found (empty when consistent).
 */
export function companyProblems(company: CompanyData, now: number): string[] {
  const problems: string[] = [];
  const purchases = new Map(company.purchases.map((p) => [p.record.compraMaterialId, p]));
  const stockrooms = new Map(company.stockrooms.map((s) => [s.record.almoxarifado, s]));
  const users = new Set(company.users.map((u) => u.record.usuario));
  const unique = (label: string, ids: number[]) => {
    if (new Set(ids).size !== ids.length) problems.push(`${label} ids repeat`);
  };
  unique(
    'request',
    company.requests.map((r) => r.record.solicitacaoMaterialId),
  );
  unique(
    'item',
    company.requests.flatMap((r) => r.items.map((i) => i.solicitacaoMaterialItemId)),
  );
  unique(
    'history',
    company.requests.flatMap((r) => r.history.map((h) => h.andamentoSolicitacao)),
  );
  unique(
    'purchase',
    company.purchases.map((p) => p.record.compraMaterialId),
  );
  unique(
    'receipt',
    company.receipts.map((r) => r.record.entradaMaterialId),
  );
  unique(
    'purchase item',
    company.requests.flatMap((r) =>
      r.items.flatMap((i) => (i.compraMaterialItem === null ? [] : [i.compraMaterialItem])),
    ),
  );

  for (const request of company.requests) {
    const { record } = request;
    const id = record.solicitacaoMaterialId;
    const status = record.statusAndamentoSolicitacao;
    if (!stockrooms.has(record.almoxarifado)) problems.push(`${id}: unknown stockroom`);
    if (!users.has(record.solicitante)) problems.push(`${id}: requester not a user of the company`);
    if (request.items.length === 0) problems.push(`${id}: no items`);
    if (request.history[0]?.status !== 1) problems.push(`${id}: history does not start at 1`);
    if (request.history.at(-1)?.status !== status) problems.push(`${id}: history does not end at ${status}`);
    if (Date.parse(request.history[0]?.data ?? '') !== request.createdAt) {
      problems.push(`${id}: createdAt is not its first history entry`);
    }
    const times = request.history.map((h) => Date.parse(h.data));
    if (times.some((t, k) => k > 0 && t < (times[k - 1] ?? 0))) problems.push(`${id}: history out of order`);
    if (Math.max(...times) > now) problems.push(`${id}: history in the future`);
    const names = [...new Set(request.items.map((i) => i.statusAndamentoSolicitacao_Nome).filter(Boolean))];
    if ((names.length > 0 ? names.join(', ') : null) !== record.listaStatusAndamentoSolicitacao) {
      problems.push(`${id}: listaStatusAndamentoSolicitacao does not summarize its items`);
    }
    const served = request.items.every((i) => (i.quantidadeEntregue ?? 0) >= i.quantidade);
    if (status === 4 && !served) problems.push(`${id}: Atendida with items not delivered`);
    if (status === 3 && served) problems.push(`${id}: Atendida parcialmente with every item delivered`);
    if ((status === 1 || status === 6) && request.items.some((i) => i.quantidadeEntregue !== null)) {
      problems.push(`${id}: delivered quantities on status ${status}`);
    }
    for (const purchaseId of request.purchaseIds) {
      if (!purchases.get(purchaseId)?.requestIds.includes(id))
        problems.push(`${id}: purchase ${purchaseId} unlinked`);
    }
  }
  for (const purchase of company.purchases) {
    const { record } = purchase;
    const id = record.compraMaterialId;
    if (record.quantidadeRecebida > record.quantidadeComprada)
      problems.push(`purchase ${id}: received too much`);
    if (record.status === 4 && record.quantidadeRecebida !== record.quantidadeComprada) {
      problems.push(`purchase ${id}: Recebida with a balance`);
    }
    if (
      record.status === 3 &&
      !(record.quantidadeRecebida > 0 && record.quantidadeRecebida < record.quantidadeComprada)
    ) {
      problems.push(`purchase ${id}: Recebida parcialmente without a partial balance`);
    }
    if ((record.status === 1 || record.status === 2) && record.quantidadeRecebida !== 0) {
      problems.push(`purchase ${id}: received goods while status ${record.status}`);
    }
    if (record.status === 5 && purchases.get(record.compraAgrupadora ?? 0)?.record.status === 5) {
      problems.push(`purchase ${id}: grouped into a grouped purchase`);
    }
    for (const requestId of purchase.requestIds) {
      const linked = company.requests.find((r) => r.record.solicitacaoMaterialId === requestId);
      if (!linked?.purchaseIds.includes(id)) problems.push(`purchase ${id}: request ${requestId} unlinked`);
    }
    const receipts = company.receipts.filter((r) => r.record.compraMaterialId === id);
    if ((record.quantidadeRecebida === 0) !== (receipts.length === 0)) {
      problems.push(`purchase ${id}: receipts do not match the quantity received`);
    }
    for (const receipt of receipts) {
      if (receipt.purchaseAt !== purchase.at)
        problems.push(`receipt ${receipt.record.entradaMaterialId}: purchase date`);
    }
  }
  for (const receipt of company.receipts) {
    if (receipt.at < receipt.purchaseAt)
      problems.push(`receipt ${receipt.record.entradaMaterialId}: before its purchase`);
    if (receipt.at > now) problems.push(`receipt ${receipt.record.entradaMaterialId}: in the future`);
  }
  return problems;
}
