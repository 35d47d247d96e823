// The admin token in the browser. It arrives in the URL fragment (`/ui/#token=…`, which browsers
// never send to a server, so no access log or proxy sees it), is kept in sessionStorage (gone
// when the tab closes) and the fragment is stripped from the address bar and history at once.

const KEY = 'breakwater.adminToken';

/** Takes a token from `#token=…` (then removes it from the URL) or from sessionStorage. */
export function takeToken(): string | null {
  const hash = window.location.hash;
  const match = /^#token=([^&]+)/.exec(hash);
  if (match?.[1]) {
    let token: string;
    try {
      token = decodeURIComponent(match[1]);
    } catch {
      token = match[1];
    }
    saveToken(token);
    window.history.replaceState(null, '', window.location.pathname + window.location.search);
    return token;
  }
  return readToken();
}

export function readToken(): string | null {
  try {
    return window.sessionStorage.getItem(KEY);
  } catch {
    return null;
  }
}

export function saveToken(token: string): void {
  try {
    window.sessionStorage.setItem(KEY, token.trim());
  } catch {
    // Storage disabled: the token lives only as long as this page.
  }
}

export function clearToken(): void {
  try {
    window.sessionStorage.removeItem(KEY);
  } catch {
    // nothing stored
  }
}
