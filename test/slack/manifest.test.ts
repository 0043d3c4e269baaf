import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { BOT_SCOPES } from '../../src/slack/app.js';
import { SUBCOMMAND_WORDS } from '../../src/slack/parse/did-you-mean.js';

/** manifest.yml against what the code does: the scopes OAuth asks for, the events listened to, the hints. */

let manifest: string;

beforeAll(async () => {
  manifest = await readFile(join(import.meta.dirname, '..', '..', 'manifest.yml'), 'utf8');
});

/** The items of a YAML list under `key:` (comments between them skipped). */
function listUnder(key: string): string[] {
  const lines = manifest.split('\n');
  const start = lines.findIndex((line) => line.trim() === `${key}:`);
  expect(start, key).toBeGreaterThanOrEqual(0);
  const items: string[] = [];
  for (const line of lines.slice(start + 1)) {
    const trimmed = line.trim();
    if (trimmed.startsWith('#')) continue;
    const item = /^- (\S+)$/.exec(trimmed);
    if (!item) break;
    items.push(item[1] ?? '');
  }
  return items;
}

describe('manifest.yml', () => {
  it('its first comment counts the placeholder URLs to replace as they are', () => {
    const words = ['', 'once', 'twice', 'three', 'four', 'five', 'six', 'seven', 'eight', 'nine'];
    const uses =
      manifest
        .split('\n')
        .filter((line) => !line.trim().startsWith('#'))
        .join('\n')
        .split('https://estoque-bot.example.com').length - 1;
    const said = /https:\/\/estoque-bot\.example\.com \((\w+)\b/.exec(manifest)?.[1];
    expect(said).toBe(words[uses]);
  });

  it('asks for exactly the bot scopes an OAuth install requests', () => {
    expect(listUnder('bot').sort()).toEqual([...BOT_SCOPES].sort());
  });

  it('subscribes to mentions and DMs with the scope each needs, and lets people type in the Messages tab', () => {
    const events = listUnder('bot_events');
    expect(events).toEqual([
      'app_uninstalled',
      'tokens_revoked',
      'team_access_revoked',
      'app_mention',
      'message.im',
      'app_home_opened',
    ]);
    expect(BOT_SCOPES).toContain('app_mentions:read');
    expect(BOT_SCOPES).toContain('im:history');
    expect(manifest).toMatch(/^\s+messages_tab_enabled: true$/m);
    expect(manifest).toMatch(/^\s+messages_tab_read_only_enabled: false$/m);
  });

  it('the /estoque usage hint names every subcommand, within the length Slack takes', () => {
    const hint = /- command: \/estoque\n(?:.*\n)*?\s+usage_hint: "(.*)"/.exec(manifest)?.[1] ?? '';
    expect(hint.length).toBeGreaterThan(0);
    expect(hint.length).toBeLessThanOrEqual(1000);
    // `help` is the English spelling of `ajuda`, which the hint shows.
    for (const word of SUBCOMMAND_WORDS.estoque.filter((w) => w !== 'help'))
      expect(hint).toMatch(new RegExp(`\\b${word}\\b`));
    for (const action of ['assinar', 'listar', 'cancelar', 'agora']) expect(hint).toContain(action);
    expect(hint).toContain('<material>');
  });

  it('turns the Home tab on and declares both shortcuts with the callback ids the bot listens to', () => {
    expect(manifest).toMatch(/^\s+home_tab_enabled: true$/m);
    expect(manifest).toMatch(/- name: Buscar material\n\s+type: global\n\s+callback_id: buscar_material\n/);
    expect(manifest).toMatch(
      /- name: Abrir solicitação\n\s+type: message\n\s+callback_id: abrir_solicitacao\n/,
    );
    for (const description of manifest.match(/^\s+description: .*$/gm) ?? []) {
      expect(description.trim().length).toBeLessThanOrEqual('description: '.length + 80);
    }
    // Shortcuts, modals and views.publish need no scope beyond commands.
    expect(BOT_SCOPES).toHaveLength(6);
  });

  it("gives the material picker's options (block_suggestion) an Options Load URL, the events address", () => {
    // Slack asks an external_select for its options only at the interactivity's Options Load URL; without one
    // the picker of `Buscar material` never shows a suggestion.
    const interactivity = /^ {2}interactivity:\n((?: {4}.*\n| *#.*\n)+)/m.exec(manifest)?.[1] ?? '';
    expect(interactivity).toMatch(/^ {4}request_url: (https:\/\/\S+\/slack\/events)$/m);
    const events = /^ {4}request_url: (\S+)$/m.exec(interactivity)?.[1];
    expect(interactivity).toContain(`    message_menu_options_url: ${events}\n`);
  });
});
