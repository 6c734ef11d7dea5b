import type { Delivery } from './types.ts';

/** Headers whose values are credentials: passed through `redact` before they are shown. */
const SECRET_HEADERS = new Set(['authorization', 'proxy-authorization', 'cookie', 'x-api-key']);

const JSON_EXCERPT = 500;

function size(n: number): string {
  return n < 1024 ? `${n} B` : n < 1024 * 1024 ? `${(n / 1024).toFixed(1)} KiB` : `${(n / 1024 / 1024).toFixed(1)} MiB`;
}

/**
 * A multi-line account of one delivery for failure messages: method, path, answer, headers
 * (credential headers such as Authorization passed through `redact`), sizes, violations and the
 * first 500 characters of the JSON. Raw headers and raw body bytes are never included.
 */
export function describeDelivery(d: Delivery, redact: (s: string) => string): string {
  const lines: string[] = [];
  const where = d.channel === null ? 'no channel' : `channel ${d.channel}`;
  const method = d.method === '' ? '(malformed request)' : d.method;
  const version = d.httpVersion === '' ? '' : ` HTTP/${d.httpVersion}`;
  const answered = d.response.status === 0 ? 'not answered' : `answered ${d.response.status}`;
  lines.push(`delivery #${d.seq} ${method} ${d.path || '(no path)'}${version} (${where}, ${d.receivedAt}, ${answered})`);
  const names = Object.keys(d.headers);
  if (names.length > 0) {
    lines.push('headers:');
    for (const name of names) {
      const value = d.headers[name] ?? '';
      lines.push(`  ${name}: ${SECRET_HEADERS.has(name) ? redact(value) : value}`);
    }
  }
  const body = [`body: ${size(d.bodyBytes)} received, ${size(d.body.length)} kept`, d.gzip ? 'gzip' : 'not gzip'];
  if (d.inflated !== undefined) body.push(`${size(d.inflated.length)} inflated`);
  if (d.dropped) body.push('not kept (the receiver\'s storage cap was reached)');
  if (d.aborted) body.push(d.violations.some((v) => v.startsWith('body stalled')) ? 'cut by the receiver: stalled' : 'aborted by the client');
  lines.push(body.join(', '));
  lines.push(`violations: ${d.violations.length === 0 ? 'none' : d.violations.join('; ')}`);
  if (d.error !== undefined) lines.push(`error: ${d.error}`);
  if ('json' in d) {
    let text: string;
    try {
      text = JSON.stringify(d.json) ?? String(d.json);
    } catch {
      text = String(d.json);
    }
    lines.push(`json: ${text.length > JSON_EXCERPT ? `${text.slice(0, JSON_EXCERPT)}… (${text.length} chars)` : text}`);
  } else {
    lines.push('json: (none)');
  }
  return lines.join('\n');
}
