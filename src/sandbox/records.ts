/**
 * Shapes of the records the sandbox serves. Documented records use the exact property names, types and
 * nullables of upstream-api.md; purchases and receipts are undocumented beyond their id and totalRows, so
 * their other fields are the sandbox's own plausible guess.
 */

export interface UserRecord {
  usuario: number;
  nome: string | null;
  email: string | null;
  inativo: boolean;
  superUsuario: boolean | null;
  login: string | null;
  usuarioDesignado: boolean | null;
  filtrosDefault: boolean | null;
  filtrosAlteracaoDefault: boolean | null;
  filtrosTodosTiposAnomalias: boolean | null;
  tipo: number | null;
  cargo: number | null;
  setor: number | null;
  assinaturaPath: string | null;
  celular: string | null;
  dataCadastro: string | null;
  acessoTodasAreas: boolean;
  tipoNome: string | null;
  image: string | null;
  emailValido: boolean;
}

export interface StockroomRecord {
  almoxarifado: number;
  nome: string | null;
  site: number | null;
  grupoArea: number | null;
  area: number | null;
  subgrupoArea: number | null;
  status: number;
}

export interface MaterialRecord {
  material: number;
  empresa: number;
  site: number | null;
  tipoMaterial: number | null;
  codigo: string | null;
  nome: string | null;
  status: number;
  custo: number | null;
  custoMaoObra: number | null;
  fabricante: string | null;
  modelo: string | null;
  marca: string | null;
  categoriaMaterial: number | null;
  /** EUnidadeConsumo; its values are not documented, the sandbox uses small integers. */
  unidadeConsumo: number;
  ratearMaoObraProporcionalAQuantidade: boolean;
  classe: number | null;
  nomeFormatted: string | null;
  isAtivo: boolean;
  isEpi: boolean;
}

export interface MaterialTypeRecord {
  tipoMaterialId: number;
  nome: string | null;
}

export interface MaterialCategoryRecord {
  categoriaMaterialId: number;
  nome: string | null;
}

export interface RequestRecord {
  solicitacaoMaterialId: number;
  almoxarifado: number;
  site: number;
  solicitante: number;
  almoxarifado_Nome: string | null;
  solicitante_Nome: string | null;
  listaStatusAndamentoSolicitacao: string | null;
  statusAndamentoSolicitacao: number | null;
  statusAndamentoSolicitacao_Nome: string | null;
  ocorrencias: string | null;
  concluidoComRessalvas: boolean;
  rowNumber: number;
  totalRows: number;
}

export interface RequestItemRecord {
  solicitacaoMaterialItemId: number;
  solicitacaoMaterialId: number;
  material: number;
  material_Nome: string | null;
  quantidade: number;
  estoqueAtual: number;
  estoqueMinimo: number | null;
  estoqueMaximo: number | null;
  statusCompra: number | null;
  statusCompraMaterial_Nome: string | null;
  quantidadeEntregue: number | null;
  statusAndamentoSolicitacao: number | null;
  statusAndamentoSolicitacao_Nome: string | null;
  ocorrencias: string | null;
  valorUnitario: number | null;
  valorTotal: number | null;
  prazoDevolucao: string | null;
  compraMaterialItem: number | null;
  rowNumber: number;
  destinacaoTipo: number | null;
  destinacaoId: number | null;
  ocorrenciasRelacionadasCount: number;
}

export interface HistoryRecord {
  andamentoSolicitacao: number;
  solicitacaoMaterial: number;
  responsavelSaidaMaterial: number | null;
  responsavelRetirada: number | null;
  status: number;
  data: string;
  site_Nome: string | null;
  almoxarifado_Nome: string | null;
  solicitante: number | null;
  solicitante_Nome: string | null;
  responsavelSaidaMaterial_Nome: string | null;
  responsavelRetirada_Nome: string | null;
  statusAndamentoSolicitacao_Nome: string | null;
  rowNumber: number;
  totalRows: number;
}

/** Purchase order (ComprasMateriaisList): only compraMaterialId and totalRows are documented. */
export interface PurchaseRecord {
  compraMaterialId: number;
  almoxarifado: number;
  almoxarifado_Nome: string | null;
  fornecedor: number | null;
  fornecedor_Nome: string | null;
  status: number;
  status_Nome: string | null;
  dataCompra: string;
  valorTotal: number;
  quantidadeComprada: number;
  quantidadeRecebida: number;
  observacao: string | null;
  /** Set on grouped purchases (status 5): the purchase they were grouped into. */
  compraAgrupadora: number | null;
  rowNumber: number;
  totalRows: number;
}

/** Goods receipt (EntradasMateriaisList): no field is documented. */
export interface ReceiptRecord {
  entradaMaterialId: number;
  compraMaterialId: number;
  ordemCompra: number;
  almoxarifado: number;
  almoxarifado_Nome: string | null;
  dataEntrada: string;
  dataCompra: string;
  fornecedor_Nome: string | null;
  numeroNotaFiscal: string | null;
  valorTotal: number;
  observacao: string | null;
  rowNumber: number;
  totalRows: number;
}

export interface ProblemDetails {
  type: string | null;
  title: string | null;
  status: number | null;
  detail: string | null;
  instance: string | null;
  [extra: string]: unknown;
}

export interface ErrorCommandResult {
  type: string | null;
  hash: string | null;
}

/** Row fields added when a list is served (position and total of the whole result). */
export type Unnumbered<T> = Omit<T, 'rowNumber' | 'totalRows'>;
