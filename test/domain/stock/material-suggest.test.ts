import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { type AnswerReader, NoSavedDataError, type ReadOptions } from '../../../src/domain/cached-reader.js';
import type { DomainDeps } from '../../../src/domain/deps.js';
import { CatalogService } from '../../../src/domain/stock/catalog-service.js';
import { LIST_FAILED_MARK_MS, MaterialSearchService } from '../../../src/domain/stock/material-search.js';
import type { WorkspaceContext } from '../../../src/domain/workspace.js';
import { EmbeddedKeyValue } from '../../../src/store/embedded-kv.js';
import { Keys } from '../../../src/store/keys.js';
import { MaterialListReads } from '../../../src/store/material-list-reads.js';
import type { Material } from '../../../src/upstream/schemas.js';

function material(id: number, nome: string, codigo: string | null = null): Material {
  return {
    material: id,
    empresa: 1,
    codigo,
    nome,
    status: 1,
    unidadeConsumo: 'UN',
    ratearMaoObraProporcionalAQuantidade: false,
    isAtivo: true,
    isEpi: false,
  } as Material;
}

/** A reader over a cache held in memory: records what was asked and how; `failing`: upstream answers an error. */
interface Upstream {
  failing: boolean;
  /** The answer waits for it (the read stays in flight meanwhile). */
  hold?: Promise<void>;
}

function memoryReader(list: Material[], cachedAtStart: boolean, upstream: Upstream) {
  const reads: ReadOptions[] = [];
  let cached = cachedAtStart;
  let fetches = 0;
  const reader: AnswerReader = {
    async read(_ws, endpoint, _params, fetch, options = {}) {
      reads.push(options);
      if (endpoint !== 'materials') throw new Error(`unexpected ${endpoint}`);
      if (options.savedOnly && !cached) throw new NoSavedDataError('materials');
      if (!cached) {
        fetches += 1;
        await upstream.hold;
        if (upstream.failing) throw new Error('upstream 500');
        await fetch({} as never);
        cached = true;
      }
      return { data: list as never, freshness: { fetchedAt: 0, fromCache: true, degraded: null } };
    },
  };
  return { reader, reads, fetches: () => fetches };
}

let clock = 1_000_000;
const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0)) await cleanup();
});

async function service(list: Material[], cachedAtStart: boolean, upstream: Upstream = { failing: false }) {
  const memory = memoryReader(list, cachedAtStart, upstream);
  const dir = await mkdtemp(join(tmpdir(), 'material-suggest-'));
  const kv = await EmbeddedKeyValue.open({
    file: join(dir, 'store.json'),
    flushDelayMs: 5,
    now: () => clock,
  });
  cleanups.push(async () => {
    await kv.close();
    await rm(dir, { recursive: true, force: true });
  });
  const deps = {
    reader: memory.reader,
    client: { listMaterials: async () => list },
    stock: { recordNames: async () => undefined },
    logger: { warn: () => undefined },
  } as unknown as DomainDeps;
  const reads = new MaterialListReads(kv, new Keys('test:'));
  return { materials: new MaterialSearchService(deps, new CatalogService(deps), reads), ...memory };
}

const ws = { workspaceId: 'T1', link: { empresaId: 1 } } as WorkspaceContext;

describe('MaterialSearchService.suggest (the picker type-ahead)', () => {
  it('gives at most the limit, matched like /estoque: every word of the name, accents and case ignored', async () => {
    const list = [
      ...Array.from({ length: 150 }, (_, i) => material(i + 1, `Lâmpada LED ${i}W`)),
      material(999, 'Cabo flexível 2,5 mm', 'CAB-1'),
    ];
    const { materials, reads } = await service(list, true);
    const found = await materials.suggest(ws, 'lampada led', 100);
    expect(found).toHaveLength(100);
    expect(found.every((m) => m.nome?.startsWith('Lâmpada'))).toBe(true);
    expect((await materials.suggest(ws, 'cab-1', 100)).map((m) => m.material)).toEqual([999]);
    expect((await materials.suggest(ws, 'FLEXIVEL cabo', 100)).map((m) => m.material)).toEqual([999]);
    // Every keystroke read the cache only.
    expect(reads.every((r) => r.savedOnly === true)).toBe(true);
  });

  it('with nothing saved suggests nothing and never reads upstream', async () => {
    const { materials, fetches, reads } = await service([material(1, 'Torneira de jardim')], false);
    expect(await materials.suggest(ws, 'torn', 100)).toEqual([]);
    expect(await materials.suggest(ws, 'torneira', 100)).toEqual([]);
    expect(fetches()).toBe(0);
    expect(reads.every((r) => r.savedOnly === true)).toBe(true);
  });
});

describe('MaterialSearchService.warmList (the picker opening)', () => {
  it('reads the list once when nothing is saved; then it is saved and keystrokes find it', async () => {
    const { materials, fetches } = await service([material(1, 'Torneira de jardim')], false);
    const warm = await materials.warmList(ws);
    expect(warm.state).toBe('reading');
    if (warm.state === 'reading') await warm.done;
    expect((await materials.warmList(ws)).state).toBe('saved');
    expect(await materials.suggest(ws, 'torneira', 100)).toHaveLength(1);
    expect(fetches()).toBe(1);
  });

  it('after a failed read none until the mark expires, then it reads again', async () => {
    // (Openings while a read is in flight share it: the cache's lease, tested with the HTTP harness.)
    let answer: () => void = () => undefined;
    const upstream: Upstream = { failing: true, hold: new Promise<void>((resolve) => (answer = resolve)) };
    const { materials, fetches } = await service([material(1, 'Torneira de jardim')], false, upstream);
    const first = await materials.warmList(ws);
    expect(first.state).toBe('reading');
    answer();
    if (first.state === 'reading') await expect(first.done).rejects.toThrow('upstream 500');
    expect((await materials.warmList(ws)).state).toBe('failed');
    expect((await materials.warmList(ws)).state).toBe('failed');
    expect(fetches()).toBe(1);

    upstream.failing = false;
    clock += LIST_FAILED_MARK_MS - 1;
    expect((await materials.warmList(ws)).state).toBe('failed');
    clock += 2;
    const again = await materials.warmList(ws);
    expect(again.state).toBe('reading');
    if (again.state === 'reading') await again.done;
    expect(await materials.suggest(ws, 'torneira', 100)).toHaveLength(1);
    expect(fetches()).toBe(2);
  });
});
