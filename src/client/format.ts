import type { Redactor } from '../report/redact.ts';
import type { Exchange } from './http-client.ts';

const MAX_BODY_CHARS = 2000;

function clip(text: string): string {
  return text.length > MAX_BODY_CHARS ? `${text.slice(0, MAX_BODY_CHARS)}… (${text.length} chars)` : text;
}

/** An exchange as a failure message shows it, secrets redacted. */
export function formatExchange(exchange: Exchange, redactor: Redactor): string {
  const { request: req, response: res } = exchange;
  const lines = [`> ${req.method} ${req.url}`];
  for (const [k, v] of Object.entries(req.headers)) lines.push(`> ${k}: ${v}`);
  // Redacted before it is clipped: a secret cut in two by the clip is no longer recognisable.
  if (req.body !== undefined) lines.push(`> ${clip(redactor.text(req.body))}`);
  if (res) {
    lines.push(`< ${res.status} (${exchange.durationMs} ms)`);
    for (const k of ['content-type', 'x-service-version', 'retry-after']) if (res.headers[k]) lines.push(`< ${k}: ${res.headers[k]}`);
    if (res.body) lines.push(`< ${clip(redactor.text(res.body))}`);
  } else {
    lines.push(`< no answer: ${exchange.error ?? 'unknown'}`);
  }
  return redactor.text(lines.join('\n'));
}
