/**
 * Facts of the sandbox's demo data that client-side tests may rely on. The data is generated from fixed seeds
 * (only the dates move with the clock), and test/sandbox/facts.test.ts checks every value here against the
 * running server, so a change to the generator that breaks one of them fails there first. They describe the
 * data as built at start: an advance (server.ts) adds requests, moves statuses and receives purchases.
 */
export const DEMO_FACTS = {
  company1: {
    empresa: 1,
    login: 'demo',
    password: 'demo',
    /** The demo login's user (usuario) and e-mail. */
    demoUser: { usuario: 29, email: 'usuario.demonstracao@exemplo.com.br' },
    /** Another user, to match a Slack user by e-mail. */
    user: { usuario: 11, nome: 'Maria Souza', email: 'maria.souza@exemplo.com.br' },
    /** Active stockrooms, as listed by GET /v1/almoxarifados. */
    activeStockrooms: [
      { almoxarifado: 1, nome: 'Almoxarifado Central – Sede Paulista' },
      { almoxarifado: 2, nome: 'Almoxarifado Torre Norte' },
      { almoxarifado: 3, nome: 'Depósito Manutenção Predial – Vila Olímpia' },
    ],
    /** Inactive (status 0): never listed, but older requests and purchases mention it. */
    inactiveStockroom: 4,
    /** UnidadeId 103 is served by stockroom 3 only; 102 by stockrooms 1 and 2. */
    unitServedOnlyBy3: 103,
    requestIds: { first: 1201, last: 1324, count: 124 },
    /** Open requests (status 1 or 2) of the last week with at least one item below its minimum stock. */
    requestsWithItemsBelowMinimum: [1312, 1316, 1319, 1321, 1324],
    /** Has an item of a material not registered in its stockroom: /itens hides it. */
    requestWithHiddenItem: 1267,
    /** A purchase (not grouped) with linked requests (CompraMaterialId filter, /compras-materiais/{id}/solicitacoes). */
    purchaseWithRequests: { compraMaterialId: 321, requestIds: [1268, 1272, 1277] },
    /** Grouped purchases (status 5, hidden from the purchase list) and the purchase each was grouped into. */
    groupedPurchases: [
      { compraMaterialId: 302, groupedInto: 303 },
      { compraMaterialId: 305, groupedInto: 306 },
      { compraMaterialId: 322, groupedInto: 324 },
    ],
    /** Purchases with a pending receivable balance (GET /v1/entradas-materiais/compras), per stockroom. */
    pendingPurchases: { 1: [316, 321, 323, 326, 328, 329, 330], 2: [319, 320, 325], 3: [304, 324, 327] },
    cancelledPurchase: 310,
    material: { codigo: 'MAT-00101', nome: 'Lâmpada LED tubular 18W' },
    /** EPI and inactive materials: never listed by GET /v1/materiais. */
    unlistedMaterialCodes: [
      'MAT-00163',
      'MAT-00164',
      'MAT-00165',
      'MAT-00166',
      'MAT-00167',
      'MAT-00168',
      'MAT-00169',
    ],
    unknownRequestId: 999,
  },
  company2: {
    empresa: 2,
    login: 'demo2',
    password: 'demo2',
    demoUser: { usuario: 77, email: 'demonstracao.dois@exemplo.com.br' },
    activeStockrooms: [
      { almoxarifado: 21, nome: 'Almoxarifado Jardim das Acácias' },
      { almoxarifado: 22, nome: 'Depósito do Clube Campestre' },
    ],
    requestIds: { first: 8801, last: 8822, count: 22 },
    purchaseWithRequests: { compraMaterialId: 9103, requestIds: [8811, 8812] },
    groupedPurchases: [{ compraMaterialId: 9101, groupedInto: 9102 }],
  },
  /** Always reports an active session unless ExpireCurrentSession=true (company 1). */
  activeSessionLogin: { login: 'sessao', password: 'sessao' },
} as const;
