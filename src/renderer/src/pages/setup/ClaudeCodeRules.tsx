// The wizard's offer of Claude Code's rule set (issue 31): shown in full before anything is
// written, added only on a click, next to the rules already there (a rule of the same name is
// replaced, so offering twice does not stack copies).

import { useEffect, useState } from 'react';
import type { RuleConfig } from '../../../../shared/contract';
import { useDashboard } from '../../state/store';

function describe(rule: RuleConfig): string {
  const when = Object.entries(rule.when ?? {})
    .map(([k, v]) => `${k} ${JSON.stringify(v)}`)
    .join(', ');
  return `${rule.name}: ${when || 'every request'} → ${rule.use}`;
}

export function ClaudeCodeRules() {
  const bridge = useDashboard((s) => s.bridge);
  const notify = useDashboard((s) => s.notify);
  const [offer, setOffer] = useState<RuleConfig[] | null>(null);
  const [added, setAdded] = useState(false);

  useEffect(() => {
    if (!bridge) return;
    let live = true;
    void bridge.claudeCodeRules().then((r) => {
      if (live && r.ok) setOffer(r.data.rules);
    });
    return () => {
      live = false;
    };
  }, [bridge]);

  if (!offer || offer.length === 0) return null;

  async function add(rules: RuleConfig[]): Promise<void> {
    if (!bridge) return;
    const current = await bridge.listRules();
    if (!current.ok) return notify('bad', `rules: ${current.error}`);
    const names = new Set(rules.map((r) => r.name));
    const saved = await bridge.saveRules([
      ...rules,
      ...current.data.rules.filter((r) => !names.has(r.name)),
    ]);
    if (!saved.ok) return notify('bad', `rules: ${saved.error}`);
    setAdded(true);
    notify('ok', `Added ${rules.length} rule(s) for Claude Code`);
  }

  return (
    <div className="form" data-testid="setup-claude-code-rules">
      <p className="muted">
        Rules for Claude Code: its background requests and long turns go to these targets whatever
        model it asks for (editable on the Rules page).
      </p>
      <ul>
        {offer.map((r) => (
          <li key={r.name}>
            <code>{describe(r)}</code>
          </li>
        ))}
      </ul>
      <button type="button" className="btn" disabled={added} onClick={() => void add(offer)}>
        {added ? 'Rules added' : 'Add these rules'}
      </button>
    </div>
  );
}
