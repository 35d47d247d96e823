// `breakwater connect claude-code --statusline`: Claude Code's status line runs
// `breakwater statusline`; a status line of the user's is never lost.
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { connectAgent, undoAgent } from '../../src/main/engine/agents';

const TARGET = { origin: 'http://127.0.0.1:4000', apiKey: 'bw-key-123', models: ['coder'] };
const WITH_FLAG = { ...TARGET, statusLine: true };
const OURS = { type: 'command', command: 'breakwater statusline' };
const THEIRS = { type: 'command', command: '~/.claude/my-line.sh', padding: 0 };

let home: string;
let settings: string;
beforeEach(() => {
  home = mkdtempSync(join(tmpdir(), 'bw-statusline-'));
  settings = join(home, '.claude', 'settings.json');
});
afterEach(() => rmSync(home, { recursive: true, force: true }));

// biome-ignore lint/suspicious/noExplicitAny: the tests read a settings file of any shape.
const read = (): Record<string, any> => JSON.parse(readFileSync(settings, 'utf8'));
const write = (value: unknown) => {
  mkdirSync(join(home, '.claude'), { recursive: true });
  writeFileSync(settings, `${JSON.stringify(value, null, 2)}\n`);
};
/** The user changes something else in the file, so undo takes out only connect's keys. */
const editSince = () => write({ ...read(), theme: 'light' });

describe('breakwater connect claude-code --statusline', () => {
  it('sets the status line next to the gateway settings; undo removes it', () => {
    write({ theme: 'dark' });
    connectAgent('claude-code', home, WITH_FLAG);
    expect(read().statusLine).toEqual(OURS);
    expect(read().env.ANTHROPIC_BASE_URL).toBe(TARGET.origin);
    undoAgent('claude-code', home);
    expect(read()).toEqual({ theme: 'dark' });
  });

  it('undo of a file edited since connect still takes the status line out', () => {
    write({ theme: 'dark' });
    connectAgent('claude-code', home, WITH_FLAG);
    editSince();
    undoAgent('claude-code', home);
    expect(read()).toEqual({ theme: 'light' });
  });

  it('without the flag nothing is set, and the user’s status line survives connect', () => {
    connectAgent('claude-code', home, TARGET);
    expect(read().statusLine).toBeUndefined();
    write({ statusLine: THEIRS });
    connectAgent('claude-code', home, TARGET);
    expect(read().statusLine).toEqual(THEIRS);
  });

  it('the user’s earlier status line comes back after connect with the flag and undo', () => {
    for (const edited of [false, true]) {
      write({ statusLine: THEIRS });
      connectAgent('claude-code', home, TARGET);
      expect(read().statusLine).toEqual(THEIRS);
      connectAgent('claude-code', home, WITH_FLAG);
      expect(read().statusLine).toEqual(OURS);
      if (edited) editSince();
      undoAgent('claude-code', home);
      expect(read()).toEqual(
        edited ? { statusLine: THEIRS, theme: 'light' } : { statusLine: THEIRS },
      );
    }
  });

  it('a status line the user set after connecting without the flag stays on undo', () => {
    write({ theme: 'dark' });
    connectAgent('claude-code', home, TARGET);
    write({ ...read(), statusLine: THEIRS });
    undoAgent('claude-code', home);
    expect(read()).toEqual({ theme: 'dark', statusLine: THEIRS });
  });
});
