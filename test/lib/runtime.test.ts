import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { isSupportedNode, SUPPORTED_NODE } from '../../src/lib/runtime.js';

describe('the Node.js versions the bot runs on', () => {
  it('22.12+ and 24+, as package.json engines say; 20 (the machine default) and 23 are not', () => {
    expect(isSupportedNode('24.21.0')).toBe(true);
    expect(isSupportedNode('25.0.0')).toBe(true);
    expect(isSupportedNode('22.12.0')).toBe(true);
    expect(isSupportedNode('22.11.9')).toBe(false);
    expect(isSupportedNode('23.5.0')).toBe(false);
    expect(isSupportedNode('20.20.2')).toBe(false);
    const pkg = JSON.parse(readFileSync('package.json', 'utf8')) as { engines: { node: string } };
    expect(pkg.engines.node).toBe(SUPPORTED_NODE);
  });
});
