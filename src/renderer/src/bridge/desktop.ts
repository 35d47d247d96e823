import type { DesktopBridge } from '../../../shared/ipc';
import type { DashboardBridge } from './types';

/** The preload's `window.breakwater`, as the dashboard sees it (IPC is always live). */
export function desktopBridge(api: DesktopBridge): DashboardBridge {
  return {
    ...api,
    host: 'desktop',
    onLinkChange(listener) {
      listener('live');
      return () => {};
    },
  };
}
