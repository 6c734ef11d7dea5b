import { UsageError } from '../cli-errors.ts';
import { redactUserinfo } from './replay.ts';

/**
 * An http(s) URL from a flag, or a one-line error that says how to write it. `localhost:8080`
 * parses as a URL whose scheme is "localhost:", so a missing scheme is caught before URL parsing.
 * Returns the URL and its userinfo parts (secrets to redact).
 */
export function parseHttpUrl(label: string, raw: string): { url: URL; secrets: string[] } {
  const shown = redactUserinfo(raw.trim());
  if (!/^[a-z][a-z0-9+.-]*:\/\//i.test(raw.trim())) {
    const bare = shown.replace(/^\/+/, '');
    throw new UsageError(`${label} needs a scheme: http://${bare} or https://${bare}, got ${JSON.stringify(shown)}`);
  }
  let url: URL;
  try {
    url = new URL(raw.trim());
  } catch {
    throw new UsageError(`${label} is not a valid URL: ${JSON.stringify(shown)}`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new UsageError(`${label} must be an http:// or https:// URL, got ${url.protocol}//`);
  const secrets: string[] = [];
  for (const part of [url.username, url.password]) if (part) secrets.push(part, decoded(part));
  return { url, secrets };
}

/** A stray '%' in a password is part of it, not an escape: it is kept as typed. */
function decoded(part: string): string {
  try {
    return decodeURIComponent(part);
  } catch {
    return part;
  }
}

/**
 * A clearer line for the transport errors a wrong scheme or port gives at the first request:
 * https against a plain-HTTP port fails the TLS handshake with "wrong version number"; an
 * untrusted certificate names the fix. undefined when the error needs no explanation.
 */
export function explainTransport(baseUrl: string, error: string): string | undefined {
  const url = new URL(baseUrl);
  if (url.protocol === 'https:' && /WRONG_VERSION_NUMBER|wrong version number|packet length too long|EPROTO/i.test(error)) {
    return `TLS handshake with ${url.host} failed: the port answers plain HTTP, not TLS; use ${baseUrl.replace(/^https:/i, 'http:')} (or the port that serves TLS)`;
  }
  if (url.protocol === 'https:' && /SELF_SIGNED|UNABLE_TO_VERIFY|UNABLE_TO_GET_ISSUER|CERT_HAS_EXPIRED|CERT_NOT_YET_VALID|ERR_TLS_CERT_ALTNAME_INVALID/i.test(error)) {
    const code = /([A-Z_]{8,})/.exec(error)?.[1] ?? 'certificate error';
    return `the TLS certificate of ${url.host} is not trusted (${code}); give its CA with NODE_EXTRA_CA_CERTS=ca.pem`;
  }
  if (url.protocol === 'http:' && /connection reset|not HTTP/i.test(error)) {
    return `${error}; if ${url.host} serves TLS, use ${baseUrl.replace(/^http:/i, 'https:')}`;
  }
  return undefined;
}
