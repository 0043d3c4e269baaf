import type { Account } from './auth-issuer.js';
import { COMPANY_1, COMPANY_2, type CompanyCatalog } from './catalog.js';
import {
  FIRST_GENERATED_EMPRESA,
  generatedCatalog,
  generatedLogin,
  generatedLoginUser,
  MAX_GENERATED_COMPANIES,
} from './catalog-generated.js';
import { generateFlow } from './data-flow.js';
import { fold } from './http-util.js';
import type { CompanyData, SandboxData, StockLevel, StockroomRow, Unit, UserRow } from './model.js';
import { formatLocal } from './query.js';
import { Random } from './random.js';
import type { MaterialRecord } from './records.js';

/**
 * The demo data of the sandbox: two demo companies with disjoint ids, and optionally many generated ones. Everything comes from a seeded PRNG; dates
 * are offsets from the clock at start-up, so the ids and contents are stable while the dates stay recent.
 */

const USER_TYPE_NAME: Record<number, string | null> = {
  1: null,
  2: 'Administrador',
  3: 'Operacional',
  4: 'Chamado',
};

export const DEMO_LOGINS = [
  { login: 'demo', password: 'demo', note: 'empresa 1, vários almoxarifados' },
  { login: 'demo2', password: 'demo2', note: 'empresa 2, dados distintos (testes de isolamento)' },
  {
    login: 'sessao',
    password: 'sessao',
    note: 'empresa 1, sempre com sessão ativa (use ExpireCurrentSession=true)',
  },
] as const;

const DAY = 86_400_000;

export interface DataOptions {
  /** Generated companies besides the demo ones: empresa 3 .. 2 + N, logins `empresa3` ... (default 0). */
  extraCompanies?: number;
}

/**
 * The demo companies, built now, and the generated ones, built on first use (a login needs only the account,
 * which is known without building anything). Every company's dates are offsets from `now`, the start-up time,
 * whenever it is built, so a company's data does not depend on when it was first read.
 */
export function buildDemoData(now: number, options: DataOptions = {}): SandboxData {
  const generated = options.extraCompanies ?? 0;
  if (!Number.isInteger(generated) || generated < 0 || generated > MAX_GENERATED_COMPANIES) {
    throw new RangeError(`generated companies must be an integer from 0 to ${MAX_GENERATED_COMPANIES}`);
  }
  const companies = new Map<number, CompanyData>();
  for (const catalog of [COMPANY_1, COMPANY_2]) companies.set(catalog.empresa, buildCompany(catalog, now));
  const accounts: Account[] = [];
  for (const { login, password } of DEMO_LOGINS) {
    for (const company of companies.values()) {
      const user = company.users.find((u) => u.record.login === login);
      if (user) {
        accounts.push({
          login,
          password,
          usuario: user.record.usuario,
          empresa: company.empresa,
          empresas: [company.empresa],
          alwaysActiveSession: login === 'sessao',
        });
      }
    }
  }
  const empresaIds = [...companies.keys()];
  for (let empresa = FIRST_GENERATED_EMPRESA; empresa < FIRST_GENERATED_EMPRESA + generated; empresa++) {
    const login = generatedLogin(empresa);
    accounts.push({
      login,
      password: login,
      usuario: generatedLoginUser(empresa),
      empresa,
      empresas: [empresa],
    });
    empresaIds.push(empresa);
  }
  const served = new Set(empresaIds);
  return {
    companies,
    accounts,
    empresaIds,
    company(empresa) {
      const built = companies.get(empresa);
      if (built || !served.has(empresa)) return built;
      const company = buildCompany(generatedCatalog(empresa), now);
      companies.set(empresa, company);
      return company;
    },
  };
}

function emailOf(nome: string, domain: string): string {
  const words = fold(nome)
    .replace(/[^a-z ]/g, '')
    .split(' ')
    .filter(Boolean);
  return `${words[0]}.${words[words.length - 1]}@${domain}`;
}

function buildCompany(catalog: CompanyCatalog, now: number): CompanyData {
  const rng = new Random(catalog.seed);
  const { ids } = catalog;
  const units: Unit[] = catalog.units.map((u, i) => ({ id: ids.unidade + i, ...u }));
  const unitId = (index: number) => ids.unidade + index - 1;

  const types = catalog.types.map((nome, i) => ({ tipoMaterialId: ids.tipo + i, nome }));
  const categories = catalog.categories.map((nome, i) => ({ categoriaMaterialId: ids.categoria + i, nome }));
  const suppliers = catalog.suppliers.map((nome, i) => ({ id: ids.fornecedor + i, nome }));

  const materials: MaterialRecord[] = catalog.materials.map(
    ([nome, tipo, categoria, marca, modelo, custo, unidade, flag], i) => {
      const codigo = `${catalog.codePrefix}${String((catalog.codeStart ?? ids.material - 900) + i).padStart(5, '0')}`;
      return {
        material: ids.material + i,
        empresa: catalog.empresa,
        site: rng.chance(0.15) ? rng.pick(units).id : null,
        tipoMaterial: ids.tipo + tipo - 1,
        codigo,
        nome,
        status: flag === 'inativo' ? 0 : 1,
        custo,
        custoMaoObra: rng.chance(0.6) ? null : Math.round(rng.between(5, 60)),
        fabricante: marca === null || rng.chance(0.3) ? null : marca,
        modelo,
        marca,
        categoriaMaterial: rng.chance(0.05) ? null : ids.categoria + categoria - 1,
        unidadeConsumo: unidade,
        ratearMaoObraProporcionalAQuantidade: rng.chance(0.2),
        classe: rng.chance(0.5) ? null : rng.int(1, 3),
        nomeFormatted: `${codigo} - ${nome}`,
        isAtivo: flag !== 'inativo',
        isEpi: flag === 'epi',
      };
    },
  );

  const stock = new Map<string, StockLevel>();
  const stockrooms: StockroomRow[] = catalog.stockrooms.map((s, i) => {
    const almoxarifado = ids.almoxarifado + i;
    const registered = new Set<number>();
    for (const m of materials) {
      if (rng.chance(s.share)) registered.add(m.material);
    }
    for (const material of registered) {
      const minimo = rng.int(2, 20);
      const maximo = minimo * rng.int(3, 6);
      const atual = rng.chance(0.22) ? rng.int(0, minimo - 1) : rng.int(minimo, maximo);
      stock.set(`${almoxarifado}:${material}`, { atual, minimo, maximo });
    }
    return {
      record: {
        almoxarifado,
        nome: s.nome,
        site: unitId(s.unit),
        grupoArea: rng.chance(0.5) ? null : rng.int(1, 9),
        area: rng.chance(0.5) ? null : rng.int(10, 99),
        subgrupoArea: null,
        status: s.status,
      },
      serves: s.serves.map(unitId),
      materials: registered,
    };
  });

  const users: UserRow[] = catalog.users.map((u, i) => {
    const email = emailOf(u.nome, catalog.emailDomain ?? 'exemplo.com.br');
    const usuario = ids.usuario + i;
    return {
      record: {
        usuario,
        nome: u.nome,
        email,
        inativo: u.inativo ?? false,
        superUsuario: u.tipo === 2 ? true : rng.chance(0.3) ? null : false,
        login: u.login ?? email,
        usuarioDesignado: rng.chance(0.3) ? null : rng.chance(0.5),
        filtrosDefault: rng.chance(0.5) ? null : true,
        filtrosAlteracaoDefault: null,
        filtrosTodosTiposAnomalias: rng.chance(0.5) ? null : false,
        tipo: u.tipo,
        cargo: rng.chance(0.4) ? null : rng.int(1, 8),
        setor: rng.chance(0.4) ? null : rng.int(1, 5),
        assinaturaPath: rng.chance(0.8) ? null : `assinaturas/${usuario}.png`,
        celular: rng.chance(0.3) ? null : `(11) 9${rng.int(7000, 9999)}-${rng.int(1000, 9999)}`,
        dataCadastro: formatLocal(now - rng.int(120, 1800) * DAY),
        acessoTodasAreas: u.tipo === 2,
        tipoNome: USER_TYPE_NAME[u.tipo] ?? null,
        image: rng.chance(0.7) ? null : `https://cdn.exemplo.com.br/usuarios/${usuario}.jpg`,
        emailValido: !rng.chance(0.1),
      },
      units: rng.sample(units, rng.int(1, Math.min(2, units.length))).map((unit) => unit.id),
      fornecedor: u.fornecedor === undefined ? null : ids.fornecedor + u.fornecedor - 1,
    };
  });

  const company: CompanyData = {
    empresa: catalog.empresa,
    units,
    users,
    stockrooms,
    materials,
    types,
    categories,
    suppliers,
    stock,
    requests: [],
    purchases: [],
    receipts: [],
  };
  generateFlow(company, catalog, rng, now);
  return company;
}
