import { createHash, timingSafeEqual } from 'node:crypto';

/** Decides whether an Authorization header value is an accepted credential. */
export type Authenticator = (authorization: string | undefined) => boolean;

/**
 * The reference's credentials (Spec › Authentication 1–2):
 * - `Authorization: Bearer <apiKey>`: the user API key as a bearer token.
 * - `Authorization: Basic base64(<orgKey>:)`: the organization key as the Basic user name and an
 *   empty password. The spec does not show the Basic composition; this is the usual way an API key
 *   travels in Basic (as Stripe and others do), so it is the reference's choice (README.md › Authentication).
 * Scheme names are case-insensitive (RFC 9110 §11.1). Anything else, including an absent header,
 * is rejected.
 */
export function credentialChecker(apiKey: string, orgKey: string): Authenticator {
  return (authorization) => {
    const match = /^(\S+) +(\S+) *$/.exec(authorization ?? '');
    if (!match) return false;
    const scheme = match[1]!.toLowerCase();
    const value = match[2]!;
    if (scheme === 'bearer') return sameSecret(value, apiKey);
    if (scheme === 'basic') return sameSecret(Buffer.from(value, 'base64').toString('utf8'), `${orgKey}:`);
    return false;
  };
}

/**
 * Constant-time comparison. Hashing first gives timingSafeEqual the equal-length buffers it needs
 * without revealing the secret's length through an early length check.
 */
export function sameSecret(given: string, expected: string): boolean {
  const a = createHash('sha256').update(given).digest();
  const b = createHash('sha256').update(expected).digest();
  return timingSafeEqual(a, b);
}
