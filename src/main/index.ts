// Electron entry: everything Electron-specific lives in ./shell; the engine knows nothing of it.
import { dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { runDesktopApp } from './shell/app';

runDesktopApp({ mainDir: dirname(fileURLToPath(import.meta.url)) });
