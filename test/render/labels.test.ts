import { describe, expect, it } from 'vitest';
import { checkMessageLimits } from '../../src/render/index.js';
import {
  formatFieldValue,
  humanizeKey,
  labelFor,
  recordLines,
  recordSection,
  shortValue,
} from '../../src/render/labels.js';
import { purchase } from './fixtures.js';

const SP = 'America/Sao_Paulo';

describe('labels of undocumented fields', () => {
  it('uses readable labels for likely names', () => {
    expect(labelFor('fornecedor_Nome')).toBe('Fornecedor');
    expect(labelFor('dataCompra')).toBe('Data da compra');
    expect(labelFor('numeroNotaFiscal')).toBe('Nota fiscal');
    expect(labelFor('quantidadeRecebida')).toBe('Qtd. recebida');
  });

  it('humanises any other key: words, first letter upper, _Nome dropped, accents restored', () => {
    expect(humanizeKey('quantidadeSaldoReceber')).toBe('Quantidade saldo receber');
    expect(humanizeKey('centroCusto_Nome')).toBe('Centro custo');
    expect(humanizeKey('data_previsao_entrega')).toBe('Data previsão entrega');
    expect(humanizeKey('descricaoServico')).toBe('Descrição serviço');
    expect(humanizeKey('unidadeId')).toBe('Unidade (id)');
    expect(humanizeKey('URLAnexo')).toBe('Url anexo');
  });

  it('labels fields named like Object’s own members as any other field (no built-in found by the name)', () => {
    expect(labelFor('toString')).toBe('To string');
    expect(labelFor('constructor')).toBe('Constructor');
    expect(labelFor('valueOf')).toBe('Value of');
    expect(labelFor('hasOwnProperty')).toBe('Has own property');
    expect(labelFor('dataConstructor')).toBe('Data constructor');
    expect(humanizeKey('valor_toString')).toBe('Valor to string');
  });
});

describe('values of undocumented fields', () => {
  it('formats money, quantities, ids, dates and booleans', () => {
    expect(formatFieldValue('valorFrete', 1234.5, SP)).toBe('R$ 1.234,50');
    expect(formatFieldValue('custoMedio', 3, SP)).toBe('R$ 3,00');
    expect(formatFieldValue('precoUnitario', 0.5, SP)).toBe('R$ 0,50');
    expect(formatFieldValue('quantidadeComprada', 1500, SP)).toBe('1.500');
    expect(formatFieldValue('ordemCompra', 12345, SP)).toBe('12345');
    expect(formatFieldValue('pesoKg', 2.75, SP)).toBe('2,75');
    expect(formatFieldValue('dataEntrada', '2026-11-18T09:15:00', SP)).toBe('18/11/2026 09:15');
    expect(formatFieldValue('dataCompra', '2026-11-10T00:00:00', SP)).toBe('10/11/2026');
    expect(formatFieldValue('urgente', true, SP)).toBe('Sim');
    expect(formatFieldValue('cancelada', false, SP)).toBe('Não');
    expect(formatFieldValue('obs', '  ', SP)).toBeNull();
    expect(formatFieldValue('itens', [1, 2], SP)).toBeNull();
    expect(formatFieldValue('comprador', { id: 1 }, SP)).toBeNull();
    expect(formatFieldValue('x', null, SP)).toBeNull();
  });

  it('shows every scalar once: no row bookkeeping, no id twin of a name, no objects', () => {
    const lines = recordLines(purchase(), SP, ['compraMaterialId']);
    const labels = lines.map((line) => line.label);
    expect(labels).toEqual([
      'Status',
      'Fornecedor',
      'Almoxarifado',
      'Data da compra',
      'Valor total',
      'Qtd. comprada',
      'Qtd. recebida',
      'Observação',
      'Condição de pagamento',
      'Urgente',
    ]);
    const values = Object.fromEntries(lines.map((line) => [line.label, line.value]));
    expect(values.Fornecedor).toBe('Elétrica Paulista Ltda. (12)');
    expect(values.Status).toBe('Aprovada (2)');
    expect(values['Valor total']).toBe('R$ 1.234,50');
  });

  it('shows the id when its name is missing', () => {
    const labels = recordLines(purchase({ fornecedor_Nome: null }), SP).map((line) => line.label);
    expect(labels).toContain('Fornecedor');
    const values = Object.fromEntries(
      recordLines(purchase({ fornecedor_Nome: '' }), SP).map((l) => [l.key, l.value]),
    );
    expect(values.fornecedor).toBe('12');
  });

  it('shows beside a name the id its twin holds, the number the filters take (`fornecedor:12`, `status:2`)', () => {
    const values = (record: Record<string, unknown>) =>
      Object.fromEntries(recordLines(record, SP).map((line) => [line.key, line.value]));
    expect(values(purchase())).toMatchObject({
      status_Nome: 'Aprovada (2)',
      fornecedor_Nome: 'Elétrica Paulista Ltda. (12)',
      almoxarifado_Nome: 'Almoxarifado Central (2)',
    });
    for (const twin of ['fornecedorId', 'fornecedor_Id', 'fornecedorID']) {
      const shown = values({ fornecedor_Nome: 'Hidráulica São Jorge', [twin]: 4 });
      expect(shown).toEqual({ fornecedor_Nome: 'Hidráulica São Jorge (4)' });
    }
    // No id to show: the name alone; a twin that is not an integer is still not a line of its own.
    expect(values({ fornecedor_Nome: 'Hidráulica', fornecedor: null })).toEqual({
      fornecedor_Nome: 'Hidráulica',
    });
    expect(values({ fornecedor_Nome: 'Hidráulica', fornecedor: 'x' })).toEqual({
      fornecedor_Nome: 'Hidráulica',
    });
    // Only the record's own fields: `constructor_Nome` does not find Object's constructor.
    expect(values({ constructor_Nome: 'Alfa' })).toEqual({ constructor_Nome: 'Alfa' });
  });

  it('cuts a long name for a short line and keeps its id whole', () => {
    const [line] = recordLines(
      { fornecedor_Nome: `Hidráulica ${'São Jorge & Filhos '.repeat(6)}`, fornecedor: 4 },
      SP,
    );
    expect(line && shortValue(line, 40)).toBe('Hidráulica São Jorge &amp; Filhos S… (4)');
    expect(line && shortValue(line, 40).length).toBeLessThanOrEqual(40);
  });

  it('escapes upstream strings in values and keys', () => {
    const lines = recordLines({ 'obs<@U1>': 'aviso <!channel>' }, SP);
    expect(lines[0]?.label).not.toContain('<');
    expect(lines[0]?.value).toBe('aviso &lt;!channel&gt;');
  });

  it('fits a record of 80 fields in one section, cut with an ellipsis', () => {
    const record: Record<string, unknown> = {};
    for (let i = 0; i < 80; i += 1)
      record[`campoNaoDocumentado${i}`] = `valor bem comprido número ${i} `.repeat(3);
    const block = recordSection('*Compra 1*', recordLines(record, SP));
    expect(checkMessageLimits({ text: 't', blocks: [block] })).toEqual([]);
    expect(block.text?.text.endsWith('…')).toBe(true);
    const few = recordSection('*Compra 2*', recordLines(purchase(), SP, ['compraMaterialId']));
    expect(few.fields).toHaveLength(10);
  });
});
