/**
 * The fixed part of the demo data: names, codes and prices of each demo company. The generator in data.ts
 * turns this into records and adds the moving parts (requests, purchases, receipts) with a seeded PRNG.
 */

/** EUnidadeConsumo values used by the sandbox (the document does not list them). */
export const UNIT = { un: 1, m: 2, l: 3, kg: 4, cx: 5, pct: 6, barra: 7, rolo: 8 } as const;

/** [nome, type index, category index (both 1-based into the company's lists), marca, modelo, custo, unidade, flag] */
export type CatalogMaterial = [
  string,
  number,
  number,
  string | null,
  string | null,
  number | null,
  number,
  ('epi' | 'inativo')?,
];

export interface CatalogUser {
  nome: string;
  tipo: 1 | 2 | 3 | 4;
  login?: string;
  inativo?: boolean;
  /** Index of a supplier (1-based) this user works for. */
  fornecedor?: number;
}

export interface CatalogStockroom {
  nome: string;
  /** Unit (1-based index) where it stands. */
  unit: number;
  /** Units (1-based indexes) it serves. */
  serves: number[];
  status: number;
  /** Share of the company's materials registered in it. */
  share: number;
  /** Weight when choosing the stockroom of a new request. */
  weight: number;
}

export interface CompanyCatalog {
  empresa: number;
  seed: number;
  /** First id of each kind; companies never overlap. */
  ids: {
    unidade: number;
    usuario: number;
    almoxarifado: number;
    material: number;
    tipo: number;
    categoria: number;
    fornecedor: number;
    solicitacao: number;
    item: number;
    andamento: number;
    compra: number;
    compraItem: number;
    entrada: number;
  };
  codePrefix: string;
  /** Number in the first material's code; default `ids.material - 900`. */
  codeStart?: number;
  /** Domain of the users' e-mails; default exemplo.com.br. */
  emailDomain?: string;
  units: { nome: string; grupo: number; subgrupo: number; estado: number; cidade: number }[];
  stockrooms: CatalogStockroom[];
  types: string[];
  categories: string[];
  materials: CatalogMaterial[];
  users: CatalogUser[];
  suppliers: string[];
  requests: number;
  purchases: number;
  /** Grouped purchases (status 5) to create. */
  grouped: number;
}

const SAO_PAULO = { estado: 35, cidade: 3_550_308 };
const NITEROI = { estado: 33, cidade: 3_303_302 };

export const COMPANY_1: CompanyCatalog = {
  empresa: 1,
  seed: 20_240_611,
  ids: {
    unidade: 101,
    usuario: 11,
    almoxarifado: 1,
    material: 1001,
    tipo: 1,
    categoria: 1,
    fornecedor: 601,
    solicitacao: 1201,
    item: 100_001,
    andamento: 500_001,
    compra: 301,
    compraItem: 30_001,
    entrada: 501,
  },
  codePrefix: 'MAT-',
  units: [
    { nome: 'Sede Paulista', grupo: 1, subgrupo: 11, ...SAO_PAULO },
    { nome: 'Torre Norte', grupo: 1, subgrupo: 12, ...SAO_PAULO },
    { nome: 'Vila Olímpia', grupo: 2, subgrupo: 21, ...SAO_PAULO },
    { nome: 'Faria Lima Office', grupo: 2, subgrupo: 22, ...SAO_PAULO },
  ],
  stockrooms: [
    {
      nome: 'Almoxarifado Central – Sede Paulista',
      unit: 1,
      serves: [1, 2, 4],
      status: 1,
      share: 0.92,
      weight: 5,
    },
    { nome: 'Almoxarifado Torre Norte', unit: 2, serves: [2], status: 1, share: 0.5, weight: 3 },
    {
      nome: 'Depósito Manutenção Predial – Vila Olímpia',
      unit: 3,
      serves: [3],
      status: 1,
      share: 0.55,
      weight: 2,
    },
    { nome: 'Almoxarifado Faria Lima (desativado)', unit: 4, serves: [4], status: 0, share: 0.3, weight: 0 },
  ],
  types: [
    'Elétrico',
    'Hidráulico',
    'Iluminação',
    'Construção civil',
    'Pintura e acabamento',
    'Ferragens',
    'Limpeza e químicos',
    'Climatização',
    'Ferramentas',
    'EPI',
  ],
  categories: [
    'Material de consumo',
    'Peça de reposição',
    'Ferramenta manual',
    'Ferramenta elétrica',
    'Equipamento de proteção individual',
    'Instalações elétricas',
    'Instalações hidráulicas',
    'Acabamento',
    'Produtos químicos',
    'Sinalização e segurança',
  ],
  materials: [
    ['Lâmpada LED tubular 18W', 3, 2, 'Philips', 'T8 18W 6500K', 24.9, UNIT.un],
    ['Lâmpada LED bulbo 9W E27', 3, 2, 'Osram', 'Classic A60', 12.5, UNIT.un],
    ['Reator eletrônico 2x32W', 3, 2, 'Intral', null, 58, UNIT.un],
    ['Disjuntor bipolar 32A', 1, 6, 'Schneider', 'Easy9 C32', 89.9, UNIT.un],
    ['Disjuntor monopolar 16A', 1, 6, 'Schneider', 'Easy9 C16', 24.5, UNIT.un],
    ['Disjuntor DR 40A 30mA', 1, 6, 'Steck', null, 189, UNIT.un],
    ['Fita isolante 19mm', 1, 1, '3M', 'Imperial 20m', 8.9, UNIT.rolo],
    ['Cabo flexível 2,5mm² azul', 1, 6, 'Sil', '750V', 3.2, UNIT.m],
    ['Cabo flexível 4mm² preto', 1, 6, 'Sil', '750V', 5.1, UNIT.m],
    ['Tomada 2P+T 10A branca', 1, 6, 'Tramontina', 'Liz', 14.9, UNIT.un],
    ['Interruptor simples 10A', 1, 6, 'Tramontina', 'Liz', 11.5, UNIT.un],
    ['Plugue macho 2P+T 20A', 1, 6, null, null, 9.8, UNIT.un],
    ['Canaleta PVC 20x10mm', 1, 6, 'Pial', null, 7.4, UNIT.barra],
    ['Conector de emenda Wago 3 vias', 1, 1, 'Wago', '221-413', 2.9, UNIT.un],
    ['Sensor de presença de teto', 3, 6, 'Intelbras', 'ESP 360', 69.9, UNIT.un],
    ['Luminária de emergência 30 LEDs', 3, 10, 'Segurimax', null, 39.9, UNIT.un],
    ['Relé fotoelétrico 220V', 1, 2, null, null, 32, UNIT.un],
    ['Válvula de descarga Hydra', 2, 7, 'Deca', 'Hydra Max 1 1/2"', 189.9, UNIT.un],
    ['Reparo para válvula Hydra', 2, 2, 'Deca', null, 45, UNIT.un],
    ['Torneira de pressão cromada 1/2"', 2, 7, 'Docol', null, 79, UNIT.un],
    ['Sifão sanfonado universal', 2, 7, 'Astra', null, 14.5, UNIT.un],
    ['Engate flexível 40cm', 2, 7, 'Blukit', null, 16.9, UNIT.un],
    ['Registro de gaveta 3/4"', 2, 7, 'Docol', null, 68, UNIT.un],
    ['Tubo PVC soldável 25mm', 2, 7, 'Tigre', 'Barra 6m', 32.5, UNIT.barra],
    ['Joelho PVC 90° 25mm', 2, 7, 'Tigre', null, 1.9, UNIT.un],
    ['Fita veda-rosca 18mm x 25m', 2, 1, 'Tigre', null, 6.5, UNIT.rolo],
    ['Boia para caixa d\'água 3/4"', 2, 2, 'Astra', null, 38, UNIT.un],
    ['Anel de vedação para bacia sanitária', 2, 2, null, null, 12, UNIT.un],
    ['Adesivo para PVC 175g', 2, 1, 'Tigre', null, 21.9, UNIT.un],
    ['Tinta acrílica fosca branco neve 18L', 5, 8, 'Suvinil', 'Toque de Seda', 389, UNIT.un],
    ['Massa corrida PVA 25kg', 5, 8, 'Coral', null, 89.9, UNIT.un],
    ['Rolo de lã 23cm', 5, 3, 'Atlas', null, 29.9, UNIT.un],
    ['Pincel 2" cerdas gris', 5, 3, 'Tigre', null, 12.9, UNIT.un],
    ["Lixa d'água grão 220", 5, 1, '3M', null, 2.5, UNIT.un],
    ['Cimento CP II 50kg', 4, 1, 'Votoran', null, 38.9, UNIT.un],
    ['Argamassa AC-II 20kg', 4, 1, 'Quartzolit', null, 27.5, UNIT.un],
    ['Rejunte flexível cinza-platina 1kg', 4, 8, 'Quartzolit', null, 18.9, UNIT.kg],
    ['Silicone acético incolor 280g', 4, 1, 'Tekbond', null, 24.9, UNIT.un],
    ['Espuma expansiva de poliuretano 500ml', 4, 1, 'Tekbond', null, 36, UNIT.un],
    ['Parafuso sextavado 1/4" x 2"', 6, 1, 'Ciser', null, 0.85, UNIT.un],
    ['Bucha de náilon S8', 6, 1, 'Fischer', null, 0.2, UNIT.un],
    ['Fechadura de embutir para porta interna', 6, 2, 'Papaiz', 'MZ 400', 119, UNIT.un],
    ['Dobradiça 3" cromada', 6, 2, 'Pado', null, 15.9, UNIT.un],
    ['Mola aérea para porta até 60kg', 6, 2, 'Dorma', 'TS 68', 249, UNIT.un],
    ['Cadeado de latão 40mm', 6, 10, 'Pado', null, 44.9, UNIT.un],
    ['Abraçadeira de náilon 200mm (pacote com 100)', 6, 1, 'Hellermann', null, 18, UNIT.pct],
    ['Óleo lubrificante multiuso 300ml', 7, 9, 'WD-40', null, 32.9, UNIT.un],
    ['Graxa de lítio 500g', 7, 9, 'Ipiranga', null, 27, UNIT.un],
    ['Desengraxante alcalino 5L', 7, 9, null, null, 64, UNIT.l],
    ['Álcool isopropílico 1L', 7, 9, 'Implastec', null, 39, UNIT.l],
    ['Detergente neutro 5L', 7, 1, 'Ypê', null, 22, UNIT.l],
    ['Saco de lixo 100L (pacote com 100)', 7, 1, null, null, 54.9, UNIT.pct],
    ['Filtro de ar para split 12.000 BTU', 8, 2, 'Midea', null, 45, UNIT.un],
    ['Gás refrigerante R-410A 11,3kg', 8, 9, 'Chemours', 'Freon 410A', 890, UNIT.un],
    ['Capacitor de partida 35µF', 8, 2, 'Epcos', null, 28, UNIT.un],
    ['Correia em V A-38', 8, 2, 'Gates', null, 34, UNIT.un],
    ['Chave de fenda 1/4" x 6"', 9, 3, 'Gedore', null, 16, UNIT.un],
    ['Alicate universal 8"', 9, 3, 'Tramontina', 'Pro', 46, UNIT.un],
    ['Trena 5m', 9, 3, 'Stanley', null, 29, UNIT.un],
    ['Furadeira de impacto 650W', 9, 4, 'Bosch', 'GSB 550 RE', 399, UNIT.un],
    ['Broca para concreto 8mm', 9, 1, 'Bosch', null, 9.9, UNIT.un],
    ['Escada de alumínio 7 degraus', 9, 3, 'Mor', null, null, UNIT.un],
    ['Luva de segurança nitrílica', 10, 5, 'Volk', 'CA 12345', 9.5, UNIT.un, 'epi'],
    ['Capacete de segurança aba frontal', 10, 5, 'MSA', 'V-Gard', 48, UNIT.un, 'epi'],
    ['Óculos de proteção incolor', 10, 5, '3M', 'Vision 3000', 14, UNIT.un, 'epi'],
    ['Protetor auricular tipo plugue', 10, 5, '3M', '1100', 2.4, UNIT.un, 'epi'],
    ['Lâmpada fluorescente tubular 40W', 3, 2, 'Philips', null, 9.9, UNIT.un, 'inativo'],
    ['Reator eletromagnético 1x40W', 3, 2, null, null, 35, UNIT.un, 'inativo'],
    ['Disjuntor NEMA 20A', 1, 6, 'Eletromar', null, 19.9, UNIT.un, 'inativo'],
  ],
  users: [
    { nome: 'Maria Souza', tipo: 2 },
    { nome: 'João Pereira', tipo: 3 },
    { nome: 'Ana Carolina Lima', tipo: 3 },
    { nome: 'Carlos Eduardo Santos', tipo: 3 },
    { nome: 'Fernanda Oliveira', tipo: 1 },
    { nome: 'José Antônio Ribeiro', tipo: 3 },
    { nome: 'Luíza Fernandes', tipo: 4 },
    { nome: 'Paulo Henrique Costa', tipo: 3 },
    { nome: 'Mariana Araújo', tipo: 2 },
    { nome: 'Rafael Gonçalves', tipo: 3 },
    { nome: 'Juliana Martins', tipo: 4 },
    { nome: 'Ricardo Almeida', tipo: 3 },
    { nome: 'Patrícia Rocha', tipo: 3 },
    { nome: 'Thiago Carvalho', tipo: 3, fornecedor: 4 },
    { nome: 'Camila Barbosa', tipo: 1 },
    { nome: 'André Luís Moreira', tipo: 3 },
    { nome: 'Beatriz Cardoso', tipo: 4 },
    { nome: 'Sérgio Nogueira', tipo: 3, inativo: true },
    { nome: 'Usuário Demonstração', tipo: 2, login: 'demo' },
    { nome: 'Usuário Sessão', tipo: 3, login: 'sessao' },
  ],
  suppliers: [
    'Elétrica Paulista Distribuidora Ltda.',
    'Hidrotec Materiais Hidráulicos',
    'Casa do Construtor Vila Olímpia',
    'Climatiza Peças e Serviços',
    'Ferragens Moema Ltda.',
  ],
  requests: 124,
  purchases: 30,
  grouped: 3,
};

export const COMPANY_2: CompanyCatalog = {
  empresa: 2,
  seed: 77_003,
  ids: {
    unidade: 201,
    usuario: 71,
    almoxarifado: 21,
    material: 5001,
    tipo: 31,
    categoria: 41,
    fornecedor: 651,
    solicitacao: 8801,
    item: 800_001,
    andamento: 900_001,
    compra: 9101,
    compraItem: 91_001,
    entrada: 9501,
  },
  codePrefix: 'JRD-',
  units: [
    { nome: 'Condomínio Jardim das Acácias', grupo: 5, subgrupo: 51, ...NITEROI },
    { nome: 'Clube Campestre Icaraí', grupo: 5, subgrupo: 52, ...NITEROI },
  ],
  stockrooms: [
    { nome: 'Almoxarifado Jardim das Acácias', unit: 1, serves: [1], status: 1, share: 0.9, weight: 3 },
    { nome: 'Depósito do Clube Campestre', unit: 2, serves: [2], status: 1, share: 0.7, weight: 2 },
  ],
  types: ['Jardinagem', 'Piscina', 'Limpeza', 'Pintura', 'Iluminação'],
  categories: ['Insumo', 'Ferramenta', 'Produto químico', 'Reposição'],
  materials: [
    ['Mangueira de jardim 20m', 1, 2, 'Tramontina', null, 89.9, UNIT.un],
    ['Adubo NPK 10-10-10 25kg', 1, 1, 'Vitaplan', null, 129, UNIT.un],
    ['Sementes de grama esmeralda 1kg', 1, 1, null, null, 54, UNIT.kg],
    ['Tesoura de poda profissional', 1, 2, 'Tramontina', null, 79.5, UNIT.un],
    ['Carrinho de mão 60L', 1, 2, 'Metasul', null, 249, UNIT.un],
    ['Cloro granulado estabilizado 10kg', 2, 3, 'Genco', null, 319, UNIT.un],
    ['Clarificante para piscina 1L', 2, 3, 'HidroAll', null, 27.9, UNIT.l],
    ['Refil de filtro para piscina', 2, 4, 'Sodramar', null, 88, UNIT.un],
    ['Vassoura de piaçava', 3, 2, 'Bettanin', null, 19.9, UNIT.un],
    ['Água sanitária 5L', 3, 3, 'Qboa', null, 17.5, UNIT.l],
    ['Tinta esmalte sintético verde 3,6L', 4, 4, 'Coral', null, 112, UNIT.un],
    ['Aguarrás 900ml', 4, 3, null, null, 24, UNIT.un],
    ['Refletor LED 50W', 5, 4, 'Avant', null, 69.9, UNIT.un],
    ['Lâmpada LED PAR20 7W', 5, 4, 'Ourolux', null, 21, UNIT.un],
    ['Inseticida aerossol 300ml', 3, 3, 'SBP', null, 18.9, UNIT.un],
    ['Luva de jardinagem', 1, 2, 'Volk', null, 12, UNIT.un, 'epi'],
    ['Enxada 2,5 lb', 1, 2, 'Tramontina', null, 49, UNIT.un, 'inativo'],
  ],
  users: [
    { nome: 'Roberto Tavares', tipo: 2 },
    { nome: 'Aline Figueiredo', tipo: 3 },
    { nome: 'Marcos Vinícius Teixeira', tipo: 3 },
    { nome: 'Sandra Mello', tipo: 4 },
    { nome: 'Eduardo Pires', tipo: 3 },
    { nome: 'Letícia Campos', tipo: 1 },
    { nome: 'Demonstração Dois', tipo: 2, login: 'demo2' },
  ],
  suppliers: ['Agro Jardim Suprimentos', 'Piscinas & Cia Niterói'],
  requests: 22,
  purchases: 7,
  grouped: 1,
};
