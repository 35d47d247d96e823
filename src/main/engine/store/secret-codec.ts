/**
 * How literal provider keys are kept at rest. The desktop host passes one backed by the OS
 * keychain (Electron safeStorage); headless, keys are stored as given, protected by the data
 * dir's owner-only permissions. Stored values carry a prefix, so plain values written before a
 * codec existed still read, and are encrypted on their next save.
 */
export interface SecretCodec {
  /** Names the scheme in logs, e.g. `safeStorage`. */
  readonly name: string;
  encrypt(plain: string): Buffer;
  decrypt(sealed: Buffer): string;
}

const PREFIX = 'enc:v1:';

export function sealSecret(value: string | null, codec: SecretCodec | undefined): string | null {
  if (value === null || !codec) return value;
  return PREFIX + codec.encrypt(value).toString('base64');
}

/**
 * The plain secret, or null when a sealed value cannot be opened here (another machine's
 * keychain, a codec that is gone): the connection then shows as having no key, rather than
 * sending a sealed blob upstream.
 */
export function openSecret(
  stored: string | null,
  codec: SecretCodec | undefined,
  onError: (err: unknown) => void,
): string | null {
  if (stored === null || !stored.startsWith(PREFIX)) return stored;
  if (!codec) {
    onError(new Error('a stored key is encrypted, but no key store is available to open it'));
    return null;
  }
  try {
    return codec.decrypt(Buffer.from(stored.slice(PREFIX.length), 'base64'));
  } catch (err) {
    onError(err);
    return null;
  }
}
