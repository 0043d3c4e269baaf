import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.js';
import { FAKE_SEED } from '../../src/fake-slack/index.js';
import { makeLogger } from '../../src/lib/logger.js';
import { type LocalMode, startLocalMode } from '../../src/local/local-mode.js';
import {
  openPlaygroundEvents,
  type PlaygroundEvents,
  playgroundCommand,
  textOfPlaygroundMessage,
} from './sse.js';

/**
 * Local mode driven through its playground's own routes, as the page does, without a browser: what the person at
 * the page gets, and what a reload of the page shows.
 */
describe('the playground over local mode', () => {
  let dataDir: string;
  let local: LocalMode;
  const opened: PlaygroundEvents[] = [];
  const open = async () => {
    const events = await openPlaygroundEvents(local.url);
    opened.push(events);
    return events;
  };

  beforeAll(async () => {
    dataDir = await mkdtemp(join(tmpdir(), 'estoque-playground-'));
    local = await startLocalMode(loadConfig({ DATA_DIR: dataDir }), makeLogger({ level: 'silent' }), {
      port: 0,
      sandboxPort: 0,
      dataDir,
      print: () => undefined,
    });
  }, 60_000);

  afterAll(async () => {
    for (const events of opened) events.close();
    await local?.close();
    await rm(dataDir, { recursive: true, force: true });
  });

  it('/solicitacao minhas finds the requests of the person at the page, by her Slack e-mail', async () => {
    const page = await open();
    expect(page.hello.user.id).toBe(FAKE_SEED.users.admin);
    expect(await playgroundCommand(local.url, '/solicitacao', 'minhas')).toEqual({ ok: true });
    const answer = await page.message((m) => m.ephemeral);
    const text = textOfPlaygroundMessage(answer);
    expect(text).toMatch(/^Suas solicitações/);
    // The sandbox user with the playground admin's e-mail, and a page of her requests with data.
    expect(text).toContain('Solicitante no sistema: Fernanda Oliveira');
    expect(text).toMatch(/\d+ solicitaç(ão|ões)/);
    expect(text).not.toContain('Nenhuma solicitação');
    expect([...text.matchAll(/Solicitante: Fernanda Oliveira/g)].length).toBeGreaterThan(1);
  });

  it('the page’s command hint and `/estoque ajuda` name `/estoque sandbox avancar`', async () => {
    const page = await open();
    // Until 2026-11-27 the hint was the manifest's alone, and the help did not name it either.
    const estoque = page.hello.commands.find((c) => c.command === '/estoque');
    expect(estoque?.usageHint).toContain('sandbox avancar [N]');
    expect(await playgroundCommand(local.url, '/estoque', 'ajuda')).toEqual({ ok: true });
    const help = await page.message((m) => m.ephemeral && m.text.startsWith('Ajuda'));
    expect(textOfPlaygroundMessage(help)).toContain('/estoque sandbox avancar');
  });

  it('/estoque sandbox avancar moves the linked company’s requests along and says what changed', async () => {
    const page = await open();
    expect(await playgroundCommand(local.url, '/estoque', 'sandbox avancar 2')).toEqual({ ok: true });
    const answer = await page.message((m) => m.ephemeral && m.text.includes('sandbox'));
    const text = textOfPlaygroundMessage(answer);
    expect(text).toContain('O sandbox fez 2 mudanças');
    expect(text).toMatch(/Solicitação \*\d+\*|Nova solicitação \*\d+\*|Compra \*\d+\*/);
  });

  it('a reload of the page shows the channel again, without the ephemeral answers', async () => {
    const page = await open();
    await playgroundCommand(local.url, '/estoque', 'almoxarifados');
    const ephemeral = await page.message((m) => m.ephemeral && m.text.includes('lmoxarifados'));
    // The digest subscription's confirmation is posted in the channel, for everyone.
    await playgroundCommand(local.url, '/estoque', 'resumo assinar 07:30');
    const posted = await page.message((m) => !m.ephemeral && m.text.includes('07:30'));

    const reloaded = await open();
    const keys = reloaded.hello.messages.map((m) => `${m.channel}:${m.ts}`);
    expect(keys).toContain(`${posted.channel}:${posted.ts}`);
    expect(keys).not.toContain(`${ephemeral.channel}:${ephemeral.ts}`);
    expect(reloaded.hello.messages.every((m) => !m.ephemeral)).toBe(true);
  });
});
