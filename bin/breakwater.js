#!/usr/bin/env node
// `breakwater serve|status …`: the headless CLI, built by electron-vite into out/main/cli.js.
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

// The status line answers within 200 ms: its own small entry, without the engine.
const entry = process.argv[2] === 'statusline' ? 'statusline' : 'cli';
const cli = new URL(`../out/main/${entry}.js`, import.meta.url);

if (!existsSync(fileURLToPath(cli))) {
  // Claude Code shows what the status line prints; a failing command would only hide it.
  if (entry === 'statusline') {
    process.stdout.write('breakwater · not built (npm run build)\n');
    process.exit(0);
  }
  process.stderr.write(
    `breakwater: out/main/${entry}.js is missing; run \`npm run build\` in the Breakwater folder first.\n`,
  );
  process.exit(1);
}

await import(cli.href);
