// The class of an Authorization header, for requests.json and `coverage --input-space`: which key
// under which scheme, or which near miss. Never the secret itself: only the class is written.

export interface Keys {
  apiKey: string;
  orgKey?: string | undefined;
  /** Where the organization key goes in the Basic pair (the profile's auth.basic); either when not given. */
  basic?: 'key-as-username' | 'key-as-password' | undefined;
}

/** A near miss of `key` by `sent`, if it is one. */
function nearMiss(sent: string, key: string): string | undefined {
  if (key === '') return undefined;
  if (sent.length === key.length + 1 && sent.startsWith(key)) return 'key with one character more';
  if (sent === key.slice(0, -1)) return 'key with one character less';
  if (sent !== key && sent.toLowerCase() === key.toLowerCase()) return 'key in other case';
  if (sent.length === key.length && [...sent].filter((c, i) => c !== key[i]).length === 1) return 'key with one character changed';
  if (sent.startsWith(`${key} `)) return 'key followed by another token';
  return undefined;
}

function decodeBasic(value: string): [string, string] | undefined {
  if (!/^[A-Za-z0-9+/]+=*$/.test(value)) return undefined;
  const text = Buffer.from(value, 'base64').toString('utf8');
  if (Buffer.from(text, 'utf8').toString('base64').replace(/=+$/, '') !== value.replace(/=+$/, '')) return undefined;
  const colon = text.indexOf(':');
  return colon < 0 ? undefined : [text.slice(0, colon), text.slice(colon + 1)];
}

/**
 * "bearer user key", "basic organization key", "user key under basic", "organization key under
 * bearer", "<absent>", "empty bearer", "unknown scheme", a near miss of a key ("key with one
 * character more", "... less", "key in other case", "key followed by another token"), or "wrong key".
 */
export function credentialClass(header: string | undefined, keys: Keys): string {
  if (header === undefined) return '<absent>';
  const match = /^(\S*)(?: (.*))?$/s.exec(header.trim());
  const scheme = (match?.[1] ?? '').toLowerCase();
  const rest = match?.[2] ?? '';
  if (scheme === 'bearer') {
    if (rest === '') return 'empty bearer';
    if (rest === keys.apiKey) return 'bearer user key';
    if (keys.orgKey && rest === keys.orgKey) return 'organization key under bearer';
    return nearMiss(rest, keys.apiKey) ?? 'wrong key';
  }
  if (scheme === 'basic') {
    if (rest === '') return 'empty basic';
    if (rest === keys.apiKey || rest === keys.orgKey) return 'key under basic without base64';
    const pair = decodeBasic(rest);
    // Not base64, or no colon: not the user-id:password pair of RFC 7617.
    if (!pair) return 'basic not a pair';
    const [user, password] = pair;
    const org = keys.orgKey;
    if (org) {
      const username = user === org && password === '';
      const pass = user === '' && password === org;
      if ((username && keys.basic !== 'key-as-password') || (pass && keys.basic !== 'key-as-username')) return 'basic organization key';
      if (username || pass) return 'organization key in the other place';
    }
    if (user === keys.apiKey || password === keys.apiKey) return 'user key under basic';
    const sent = user !== '' ? user : password;
    if (sent === '') return 'empty basic';
    return (org ? nearMiss(sent, org) : undefined) ?? 'wrong key';
  }
  return 'unknown scheme';
}
