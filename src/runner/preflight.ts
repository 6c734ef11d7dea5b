import { UnreachableError } from '../cli-errors.ts';
import { ApiClient, TransportError, closeSharedAgent, type ApiRequest } from '../client/http-client.ts';
import type { Redactor } from '../report/redact.ts';
import type { RunSettings } from './settings.ts';
import { fillPlaceholders } from '../profile/template.ts';
import { sourceDbValues } from '../source-db/placeholders.ts';
import { explainTransport } from './target-url.ts';

export interface PreflightResult {
  /** A one-line note when the API key itself looks refused; the run still goes on (AUTH-001 judges it). */
  hint?: string;
}

/**
 * Decides reachability only: exit 3 when nothing answers HTTP, or when no route of the API answers
 * with JSON at all. Everything else (an HTML error page on one route, an empty 404, 403 for an
 * unknown id, 429, 500) is for the checks to judge, so it cannot turn into a skipped run.
 */
export async function preflight(settings: RunSettings, redactor: Redactor): Promise<PreflightResult> {
  const client = new ApiClient({ baseUrl: settings.baseUrl, apiKey: settings.apiKey, timeoutMs: settings.timeoutMs, redactor, maxRetryAfterMs: 5_000 });
  const id = `dssc-${settings.runId}-preflight`;
  // Reads and a PUT on ids that cannot exist: none of them can change the target.
  const probes: ApiRequest[] = [
    { method: 'GET', path: `/api/bulk/syncs/${id}/error-handling` },
    { method: 'PUT', path: `/api/syncs/${id}/error-handling`, body: {} },
    { method: 'GET', path: `/api/bulk/syncs/${id}/error-handling`, auth: 'none' },
  ];
  // A target whose error bodies are all empty still answers a creation with JSON: the last probe
  // creates one connection named like every resource of the run (only when the profile shows how).
  const creation = creationProbe(settings, id);
  if (creation) probes.push(creation);
  const seen: string[] = [];
  try {
    for (const [i, probe] of probes.entries()) {
      let res;
      try {
        res = await client.send(probe);
      } catch (error) {
        if (!(error instanceof TransportError)) throw error;
        // Throttling is an answer: the target is there, and the checks will say what it costs.
        if (error.kind === 'throttled') return {};
        if (i === 0) {
          const why = error.exchange.error ?? error.message;
          throw new UnreachableError(redactor.text(`target ${settings.baseUrl} unreachable: ${explainTransport(settings.baseUrl, why) ?? why}`));
        }
        seen.push(`${probe.method} ${probe.path}: ${error.exchange.error ?? error.message}`);
        continue;
      }
      if (res.json !== undefined) {
        const refused = i === 0 && (res.status === 401 || res.status === 403);
        return refused ? { hint: `the target answered ${res.status} to GET ${probe.path} with the API key; if it refuses the key, every check fails (AUTH-001 judges it)` } : {};
      }
      seen.push(`${probe.method} ${probe.path} -> ${res.status} (${res.headers['content-type'] ?? 'no content type'}, ${res.text.length === 0 ? 'empty body' : 'not JSON'})`);
    }
    throw new UnreachableError(redactor.text(`target ${settings.baseUrl} answered no request with JSON (${seen.join('; ')}); is --base-url the service's base address?`));
  } finally {
    await closeSharedAgent();
  }
}

function creationProbe(settings: RunSettings, name: string): ApiRequest | undefined {
  const kinds = settings.profile.kinds ?? {};
  const kind = (['relationalDatabase', 'objectStore', 'crm', 'marketing'] as const).find((k) => kinds[k]?.configuration);
  const k = kind ? kinds[kind] : undefined;
  if (!k?.configuration) return undefined;
  const configuration = fillPlaceholders(k.configuration, { ...sourceDbValues(settings), webhookUrl: `https://dssc-${settings.runId}.invalid/hook` });
  return { method: 'POST', path: '/api/connections', body: { name, type: k.type, configuration } };
}
