/// <reference types="vite/client" />

import type { DesktopBridge } from '../../shared/ipc';

declare global {
  interface Window {
    /** Set by the desktop preload; absent when the page is opened in a plain browser. */
    readonly breakwater?: DesktopBridge;
  }
}
