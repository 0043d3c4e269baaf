/**
 * The slash commands the playground offers, with the description and usage hint Slack shows in its command
 * picker. They mirror manifest.yml (test/local/playground.test.ts checks that they agree).
 */
export interface PlaygroundCommand {
  command: string;
  description: string;
  usageHint: string;
}

export const PLAYGROUND_COMMANDS: readonly PlaygroundCommand[] = [
  {
    command: '/estoque',
    description: 'Materiais, almoxarifados, vínculo, resumo diário e alertas',
    usageHint:
      '[ajuda | almoxarifados | tipos | categorias | status | vincular | desvincular | resumo assinar|listar|cancelar|agora | alertas assinar|listar|cancelar | <material> almox:ID]',
  },
  {
    command: '/solicitacao',
    description: 'Solicitações de material',
    usageHint:
      '[<número> [historico|acompanhar|parar] | minhas [acompanhar|parar] | acompanhando | almox:ID status:1,2 de:dd/mm/aaaa ate:dd/mm/aaaa texto]',
  },
  {
    command: '/compras',
    description: 'Compras de material e entradas',
    usageHint: '[pendentes [almox:ID] | <número> | entradas [oc:ID] | almox:ID status:N fornecedor:ID]',
  },
];

/** The app's shortcuts, as manifest.yml declares them (test/local/playground.test.ts checks that they agree). */
export interface PlaygroundShortcut {
  type: 'global' | 'message';
  callbackId: string;
  name: string;
}

export const PLAYGROUND_SHORTCUTS: readonly PlaygroundShortcut[] = [
  { type: 'global', callbackId: 'buscar_material', name: 'Buscar material' },
  { type: 'message', callbackId: 'abrir_solicitacao', name: 'Abrir solicitação' },
];
