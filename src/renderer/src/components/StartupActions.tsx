import type { BridgeResult } from '../../../shared/contract';
import type { DesktopAction, StartupError } from '../../../shared/ipc';
import { ActionButton } from './ui';

/**
 * Desktop only: what the user can do when the gateway did not start. A taken port can be left
 * for the next free one; the data folder, config file and log open in the OS's own apps.
 */
export function StartupActions({ error }: { error: StartupError }) {
  const desktop = window.breakwater;
  if (!desktop) return null;
  // The action answers the startup error after it: still failing is a failure to show.
  const run = (action: DesktopAction) => async (): Promise<BridgeResult<unknown>> => {
    const r = await desktop.desktopAction(action);
    return r.ok && r.data && action === 'retry-other-port'
      ? { ok: false, error: r.data.message }
      : r;
  };
  return (
    <div className="status-actions" data-testid="startup-actions">
      {error.code === 'EADDRINUSE' && (
        <ActionButton run={run('retry-other-port')} done="Serving on another port" tone="primary">
          Retry on another port
        </ActionButton>
      )}
      <ActionButton run={run('edit-config')} done="Opened the config file">
        Edit config
      </ActionButton>
      <ActionButton run={run('open-data-folder')} done="Opened the data folder">
        Open data folder
      </ActionButton>
      <ActionButton run={run('open-logs')} done="Opened the log">
        Open logs
      </ActionButton>
    </div>
  );
}
