import { AgentConnect } from '../../components/AgentConnect';
import { CopyButton } from '../../components/ui';
import { ClaudeCodeRules } from './ClaudeCodeRules';

/** Step 3: how to point an agent at the gateway, with the combo as its model. */
export function AgentStep({ baseUrl, combo }: { baseUrl: string; combo: string }) {
  const lines = [
    `ANTHROPIC_BASE_URL=${baseUrl} ANTHROPIC_MODEL=${combo} claude`,
    `OPENAI_BASE_URL=${baseUrl}/v1 codex -m ${combo}`,
    'breakwater connect claude-code   # or codex, opencode, qwen-code, gemini-cli',
  ];
  return (
    <div className="form" data-testid="setup-agent">
      <p className="muted">Run your agent with one of these (or let Breakwater edit its config):</p>
      {lines.map((l) => (
        <p key={l}>
          <code>{l}</code> <CopyButton text={l} />
        </p>
      ))}
      <ClaudeCodeRules />
      <AgentConnect />
    </div>
  );
}
