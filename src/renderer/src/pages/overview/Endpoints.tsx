import { useState } from 'react';
import { AgentConnect } from '../../components/AgentConnect';
import { Card, CopyButton } from '../../components/ui';

const SETUPS = ['Claude Code', 'Codex CLI', 'Gemini CLI', 'OpenAI SDK', 'Anthropic SDK'] as const;
type Setup = (typeof SETUPS)[number];

function setupText(setup: Setup, base: string): string {
  switch (setup) {
    case 'Claude Code':
      return `export ANTHROPIC_BASE_URL=${base}\nexport ANTHROPIC_AUTH_TOKEN=breakwater   # any value; a gateway key if you configured them\nclaude`;
    case 'Codex CLI':
      return `# ~/.codex/config.toml\nmodel_provider = "breakwater"\n\n[model_providers.breakwater]\nname = "Breakwater"\nbase_url = "${base}/v1"\nwire_api = "responses"`;
    case 'Gemini CLI':
      return `export GOOGLE_GEMINI_BASE_URL=${base}\nexport GEMINI_API_KEY=breakwater   # any value; a gateway key if you configured them\ngemini --model coder   # a combo name`;
    case 'OpenAI SDK':
      return `from openai import OpenAI\nclient = OpenAI(base_url="${base}/v1", api_key="breakwater")`;
    case 'Anthropic SDK':
      return `import Anthropic from '@anthropic-ai/sdk';\nconst client = new Anthropic({ baseURL: '${base}', apiKey: 'breakwater' });`;
  }
}

export function Endpoints({ base }: { base: string }) {
  const [setup, setSetup] = useState<Setup>('Claude Code');
  const text = setupText(setup, base);
  return (
    <Card title="Point your agents here">
      <dl className="endpoints">
        <dt>Anthropic format</dt>
        <dd>
          <code>{base}</code> <CopyButton text={base} />
        </dd>
        <dt>OpenAI format</dt>
        <dd>
          <code>{`${base}/v1`}</code> <CopyButton text={`${base}/v1`} />
        </dd>
        <dt>Gemini API</dt>
        <dd>
          <code>{base}</code> (the client adds <code>/v1beta</code>) <CopyButton text={base} />
        </dd>
      </dl>
      <div className="tabs" role="tablist" aria-label="Setup for">
        {SETUPS.map((s) => (
          <button
            key={s}
            type="button"
            role="tab"
            aria-selected={s === setup}
            className={`tab ${s === setup ? 'tab-on' : ''}`}
            onClick={() => setSetup(s)}
          >
            {s}
          </button>
        ))}
      </div>
      <div className="snippet" role="tabpanel" aria-label={setup}>
        <pre>{text}</pre>
        <CopyButton text={text} />
      </div>
      <AgentConnect />
    </Card>
  );
}
