#!/usr/bin/env node
// `breakwater serve|status …`: the headless CLI, built by electron-vite into out/main/cli.js.
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const cli = new URL('../out/main/cli.js', import.meta.url);

if (!existsSync(fileURLToPath(cli))) {
  process.stderr.write(
    'breakwater: out/main/cli.js is missing; run `npm run build` in the Breakwater folder first.\n',
  );
  process.exit(1);
}

await import(cli.href);
