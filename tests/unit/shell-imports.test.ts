import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';

const ROOT = resolve(__dirname, '../..');
const ENTRY = 'src/main/engine/index.ts';

/** The hosts: the Electron shell, its entry and the CLI. */
function hostFiles(): string[] {
  const shell = readdirSync(join(ROOT, 'src/main/shell'))
    .filter((f) => f.endsWith('.ts'))
    .map((f) => `src/main/shell/${f}`);
  return [...shell, 'src/main/cli.ts', 'src/main/index.ts'];
}

describe('hosts', () => {
  it('reach the engine only through its entry module', () => {
    const problems: string[] = [];
    for (const file of hostFiles()) {
      const text = readFileSync(join(ROOT, file), 'utf8');
      for (const m of text.matchAll(/(?:\bfrom\s*|\bimport\s*\(\s*)'(\.{1,2}\/[^']*)'/g)) {
        const target = relative(ROOT, resolve(ROOT, dirname(file), m[1]!));
        if (target.startsWith('src/main/engine') && `${target}.ts` !== ENTRY && target !== ENTRY) {
          problems.push(`${file} imports ${target}`);
        }
      }
    }
    expect(problems).toEqual([]);
  });
});
