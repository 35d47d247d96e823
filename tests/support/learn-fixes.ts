// Teaches a gateway one learnt request fix per model, through real requests: the fake upstream
// refuses `parallel_tool_calls` once per model (OpenAI's words), the gateway drops it and learns
// that. For the tests that show and clear learnt fixes (desktop IPC, the browser dashboard).
import type { FakeUpstream } from './fake-upstream';

const REFUSAL = {
  status: 400,
  body: {
    error: {
      message: "Unsupported parameter: 'parallel_tool_calls' is not supported with this model.",
      type: 'invalid_request_error',
      param: 'parallel_tool_calls',
      code: 'unsupported_parameter',
    },
  },
};

/** Sends one request per model (each served after its repair); throws unless each got a 200. */
export async function learnFixes(
  gatewayUrl: string,
  upstream: FakeUpstream,
  models: readonly string[],
): Promise<void> {
  upstream.script(...models.flatMap(() => [REFUSAL, {}]));
  for (const model of models) {
    const res = await fetch(`${gatewayUrl}/v1/chat/completions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        model,
        parallel_tool_calls: false,
        messages: [{ role: 'user', content: 'hi' }],
      }),
    });
    if (res.status !== 200) throw new Error(`${model}: HTTP ${res.status} ${await res.text()}`);
  }
}
