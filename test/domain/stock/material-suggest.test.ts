import { describe, expect, it } from 'vitest';
import { type AnswerReader, NoSavedDataError, type ReadOptions } from '../../../src/domain/cached-reader.js';
import type { DomainDeps } from '../../../src/domain/deps.js';
import { CatalogService } from '../../../src/domain/stock/catalog-service.js';
import { MaterialSearchService } from '../../../src/domain/stock/material-search.js';
import type { WorkspaceContext } from '../../../src/domain/workspace.js';
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

/** A reader over a cache held in memory: records what was asked and how. */
function memoryReader(list: Material[], cachedAtStart: boolean) {
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
        await fetch({} as never);
        cached = true;
      }
      return { data: list as never, freshness: { fetchedAt: 0, fromCache: true, degraded: null } };
    },
  };
  return { reader, reads, fetches: () => fetches };
}

function service(list: Material[], cachedAtStart: boolean) {
  const memory = memoryReader(list, cachedAtStart);
  const deps = {
    reader: memory.reader,
    client: { listMaterials: async () => list },
    stock: { recordNames: async () => undefined },
    logger: { warn: () => undefined },
  } as unknown as DomainDeps;
  return { materials: new MaterialSearchService(deps, new CatalogService(deps)), ...memory };
}

const ws = { workspaceId: 'T1', link: { empresaId: 1 } } as WorkspaceContext;

describe('MaterialSearchService.suggest (the picker type-ahead)', () => {
  it('gives at most the limit, matched like /estoque: every word of the name, accents and case ignored', async () => {
    const list = [
      ...Array.from({ length: 150 }, (_, i) => material(i + 1, `Lâmpada LED ${i}W`)),
      material(999, 'Cabo flexível 2,5 mm', 'CAB-1'),
    ];
    const { materials, reads } = service(list, true);
    const found = await materials.suggest(ws, 'lampada led', 100);
    expect(found).toHaveLength(100);
    expect(found.every((m) => m.nome?.startsWith('Lâmpada'))).toBe(true);
    expect((await materials.suggest(ws, 'cab-1', 100)).map((m) => m.material)).toEqual([999]);
    expect((await materials.suggest(ws, 'FLEXIVEL cabo', 100)).map((m) => m.material)).toEqual([999]);
    // Every keystroke read the cache only.
    expect(reads.every((r) => r.savedOnly === true)).toBe(true);
  });

  it('reads the list once when nothing is cached, then only the cache', async () => {
    const { materials, fetches } = service([material(1, 'Torneira de jardim')], false);
    expect(await materials.suggest(ws, 'torn', 100)).toHaveLength(1);
    expect(await materials.suggest(ws, 'torneira', 100)).toHaveLength(1);
    expect(fetches()).toBe(1);
  });
});
