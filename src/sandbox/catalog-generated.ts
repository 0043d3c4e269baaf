import { type CatalogStockroom, type CatalogUser, COMPANY_1, type CompanyCatalog } from './catalog.js';
import { Random } from './random.js';

/**
 * Generated companies, for running many workspaces against one sandbox: empresa 3, 4, ... each with the login
 * `empresaN` / `empresaN` and a small dataset drawn from its own seed (same empresa, same data). Their ids
 * live in blocks above the demo companies', one block per company, so no two companies share an id of a kind.
 */

export const FIRST_GENERATED_EMPRESA = 3;
/** Keeps every id of every block inside int32. */
export const MAX_GENERATED_COMPANIES = 10_000;
const ID_BASE = 10_000_000;
/** Ids of one kind a generated company may use (initial data and everything advances add). */
export const ID_BLOCK = 100_000;

export function generatedLogin(empresa: number): string {
  return `empresa${empresa}`;
}

/** First id of every kind in a generated company's block. */
export function generatedIdStart(empresa: number): number {
  return ID_BASE + (empresa - FIRST_GENERATED_EMPRESA) * ID_BLOCK + 1;
}

/** The login user is the first of the catalog's users, so its id is known without generating anything. */
export function generatedLoginUser(empresa: number): number {
  return generatedIdStart(empresa);
}

const CITIES = [
  { estado: 35, cidade: 3_550_308 },
  { estado: 33, cidade: 3_304_557 },
  { estado: 31, cidade: 3_106_200 },
  { estado: 41, cidade: 4_106_902 },
  { estado: 43, cidade: 4_314_902 },
  { estado: 29, cidade: 2_927_408 },
  { estado: 26, cidade: 2_611_606 },
  { estado: 35, cidade: 3_509_502 },
  { estado: 42, cidade: 4_205_407 },
  { estado: 52, cidade: 5_208_707 },
];

const BUILDINGS = [
  'Edifício Aurora',
  'Condomínio Parque das Flores',
  'Centro Empresarial Atlântico',
  'Residencial Bela Vista',
  'Torre Comercial Ipiranga',
  'Shopping Vale Verde',
  'Hospital Santa Clara',
  'Colégio Monteiro Lobato',
  'Edifício Horizonte',
  'Conjunto Residencial Primavera',
  'Faculdade São Bento',
  'Clínica Boa Saúde',
  'Hotel Mar Azul',
  'Galpão Logístico Anhanguera',
  'Edifício Jequitibá',
  'Condomínio Recanto dos Pássaros',
];

const FIRST_NAMES = [
  'Adriana',
  'Bruno',
  'Cláudia',
  'Daniel',
  'Elaine',
  'Fábio',
  'Gabriela',
  'Gustavo',
  'Helena',
  'Igor',
  'Jéssica',
  'Leonardo',
  'Márcia',
  'Nelson',
  'Otávio',
  'Priscila',
  'Renata',
  'Sílvio',
  'Tatiane',
  'Vinícius',
];

const LAST_NAMES = [
  'Andrade',
  'Batista',
  'Conceição',
  'Duarte',
  'Esteves',
  'Freitas',
  'Guimarães',
  'Holanda',
  'Lacerda',
  'Macedo',
  'Nascimento',
  'Queiroz',
  'Ramos',
  'Siqueira',
  'Vasconcelos',
];

const SUPPLIERS = [
  'Elétrica Central Distribuidora Ltda.',
  'Hidráulica São Jorge Ltda',
  'Materiais de Construção Progresso',
  'Tintas & Cores Comércio',
  'Ferragens Brasil Ltda.',
  'Refrigeração Polar Peças',
  'Limpeza Total Suprimentos',
  'Iluminação Estrela Ltda.',
];

/** Operational users first: every company needs stock keepers (tipo 3) for its history. */
const USER_TYPES: CatalogUser['tipo'][] = [3, 3, 3, 2, 1, 4, 3];
const MATERIALS = 24;

export function generatedCatalog(empresa: number): CompanyCatalog {
  const rng = new Random(Math.imul(empresa, 0x9e37_79b1) ^ 0x5eed_c0de);
  const start = generatedIdStart(empresa);
  const city = rng.pick(CITIES);
  const units = rng.sample(BUILDINGS, rng.int(1, 3)).map((nome, i) => ({
    nome,
    grupo: 1,
    subgrupo: 11 + i,
    ...city,
  }));
  const stockrooms: CatalogStockroom[] = units.map((unit, i) => ({
    nome: i === 0 ? `Almoxarifado Central – ${unit.nome}` : `Almoxarifado ${unit.nome}`,
    unit: i + 1,
    serves: i === 0 ? units.map((_, k) => k + 1) : [i + 1],
    status: 1,
    share: Math.round(rng.between(0.7, 0.95) * 100) / 100,
    weight: i === 0 ? 3 : 2,
  }));
  if (rng.chance(0.25)) {
    stockrooms.push({
      nome: 'Depósito antigo (desativado)',
      unit: 1,
      serves: [1],
      status: 0,
      share: 0.3,
      weight: 0,
    });
  }
  const picked = rng
    .sample(
      COMPANY_1.materials.map((_, i) => i),
      MATERIALS,
    )
    .sort((a, b) => a - b);
  const names = new Set<string>();
  while (names.size < USER_TYPES.length) names.add(`${rng.pick(FIRST_NAMES)} ${rng.pick(LAST_NAMES)}`);
  const users: CatalogUser[] = [
    { nome: `Usuário Empresa ${empresa}`, tipo: 2, login: generatedLogin(empresa) },
    ...[...names].map((nome, i) => ({ nome, tipo: USER_TYPES[i] ?? 3 })),
  ];
  if (rng.chance(0.3)) users.push({ nome: 'Colaborador Desligado', tipo: 3, inativo: true });

  return {
    empresa,
    seed: rng.int(1, 2_147_483_646),
    ids: {
      unidade: start,
      usuario: start,
      almoxarifado: start,
      material: start,
      tipo: start,
      categoria: start,
      fornecedor: start,
      solicitacao: start,
      item: start,
      andamento: start,
      compra: start,
      compraItem: start,
      entrada: start,
    },
    codePrefix: `E${empresa}-`,
    codeStart: 101,
    emailDomain: `empresa${empresa}.exemplo.com.br`,
    units,
    stockrooms,
    types: COMPANY_1.types,
    categories: COMPANY_1.categories,
    materials: picked.map((i) => COMPANY_1.materials[i]).filter((m) => m !== undefined),
    users,
    suppliers: rng.sample(SUPPLIERS, 3),
    requests: rng.int(18, 30),
    purchases: 6,
    grouped: 1,
  };
}
