/**
 * The slash commands the playground offers, with the description and usage hint Slack shows in its command
 * picker: manifest.yml's (test/local/playground.test.ts checks that they agree), plus local mode's own words.
 */
export interface PlaygroundCommand {
  command: string;
  description: string;
  usageHint: string;
}

/** The commands as manifest.yml declares them, for a real Slack. */
export const MANIFEST_COMMANDS: readonly PlaygroundCommand[] = [
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

/**
 * What only local mode has, at the end of a command's hint: the playground runs beside the sandbox, so
 * `/estoque sandbox avancar` works there (until 2026-11-27 the picker did not show it).
 */
const LOCAL_MODE_HINTS: Readonly<Record<string, string>> = { '/estoque': 'sandbox avancar [N]' };

/** The playground's picker: the manifest's commands, with local mode's words inside the hint's brackets. */
export const PLAYGROUND_COMMANDS: readonly PlaygroundCommand[] = MANIFEST_COMMANDS.map((command) => {
  const extra = LOCAL_MODE_HINTS[command.command];
  if (extra === undefined) return command;
  const hint = command.usageHint;
  const usageHint = hint.endsWith(']') ? `${hint.slice(0, -1)} | ${extra}]` : `${hint} ${extra}`;
  return { ...command, usageHint };
});

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
