import { defineConfig } from 'vitest/config';

// `npm run test:agents`: real agents from the npm registry, slow (installs on first run), so
// apart from `npm test`. One at a time: each agent is a heavy process.
export default defineConfig({
  test: {
    include: ['tests/agents/**/*.agent.ts'],
    testTimeout: 400_000,
    hookTimeout: 60_000,
    maxWorkers: 1,
    fileParallelism: false,
  },
});
