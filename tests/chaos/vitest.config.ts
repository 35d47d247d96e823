import { defineConfig } from 'vitest/config';
import base from '../../vitest.config';

// `npm run test:chaos`: every chaos scenario runs long. The variable is set here rather than on
// the npm script's command line, which Windows shells would not understand.
export default defineConfig({
  test: { ...base.test, include: ['tests/chaos/**/*.test.ts'], env: { CHAOS_LONG: '1' } },
});
