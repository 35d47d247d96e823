// Benchmark upstream: the in-repo fake LLM upstream in fast mode, in its own process.
// Prints `upstream listening on PORT`; the parent changes the default step over IPC
// (`{ step }` → `{ ok: true }`) between scenarios.
import { type FakeStep, startFakeUpstream } from '../tests/support/fake-upstream';

const fake = await startFakeUpstream({ fast: true });
process.on('message', (msg: { step?: FakeStep; stats?: boolean }) => {
  if (msg.step) fake.setDefault(msg.step);
  process.send?.({ ok: true, requests: fake.requestCount, aborts: fake.abortCount });
});
process.on('disconnect', () => {
  void fake.close().then(() => process.exit(0));
});
process.stdout.write(`upstream listening on ${fake.port}\n`);
