import { UnreachableError } from '../cli-errors.ts';
import { ApiClient, TransportError, closeSharedAgent, type ApiRequest } from '../client/http-client.ts';
import type { Redactor } from '../report/redact.ts';
import type { RunSettings } from './settings.ts';
import { fillPlaceholders } from '../profile/template.ts';
import { sourceDbValues } from '../source-db/placeholders.ts';
import { redactUserinfo } from './replay.ts';
import { explainTransport } from './target-url.ts';

export interface PreflightResult {
  /** A one-line note when the API key itself looks refused; the run still goes on (AUTH-001 judges it). */
  hint?: string;
}

interface Probe {
  request: ApiRequest;
  /**
   * The route exists on every target of the spec whatever resources exist: it names no id, so a
   * 404 or 405 to it cannot mean "unknown id", only "no such route here".
   */
  mustExist: boolean;
}

/** The answers a server gives to a route it does not have. */
const noRoute = (status: number) => status === 404 || status === 405;

/**
 * Decides reachability only: exit 3 when nothing answers HTTP, when no route of the API answers
 * with JSON at all, or when no route of the API is there (every request with the key is answered
 * 404 or 405, the routes that cannot mean "unknown id" included: a base URL with one /api too
 * many). Everything else (an HTML error page on one route, an empty 404, 403 for an unknown id,
 * 429, 500) is for the checks to judge, so it cannot turn into a skipped run.
 */
export async function preflight(settings: RunSettings, redactor: Redactor): Promise<PreflightResult> {
  const client = new ApiClient({ baseUrl: settings.baseUrl, apiKey: settings.apiKey, timeoutMs: settings.timeoutMs, redactor, maxRetryAfterMs: 5_000 });
  const id = `dssc-${settings.runId}-preflight`;
  // Reads and a PUT on ids that cannot exist, and creations without their required fields (named
  // like every resource of the run in case a lenient target keeps one): none changes a conforming target.
  const probes: Probe[] = [
    { request: { method: 'GET', path: `/api/bulk/syncs/${id}/error-handling` }, mustExist: false },
    { request: { method: 'POST', path: '/api/connections', body: { name: id } }, mustExist: true },
    { request: { method: 'PUT', path: `/api/syncs/${id}/error-handling`, body: {} }, mustExist: false },
    { request: { method: 'GET', path: `/api/bulk/syncs/${id}/error-handling`, auth: 'none' }, mustExist: false },
    { request: { method: 'POST', path: '/api/bulk/syncs', body: { name: id } }, mustExist: true },
  ];
  // A target whose error bodies are all empty still answers a creation with JSON, and one that is
  // there answers it with something else than "no route": the last probe creates one connection
  // (only when the profile shows how, and only when nothing before decided).
  const creation = creationProbe(settings, id);
  if (creation) probes.push({ request: creation, mustExist: true });
  const seen: string[] = [];
  let json = false;
  // Whether every answer to a request with the key said "no route", and one of them could mean nothing else.
  let keyedNoRoute = true;
  let mustExistAnswered = false;
  try {
    for (const [i, { request: probe, mustExist }] of probes.entries()) {
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
      const keyed = probe.auth !== 'none';
      if (keyed && !noRoute(res.status)) keyedNoRoute = false;
      if (keyed && mustExist) mustExistAnswered = true;
      if (res.json !== undefined) {
        json = true;
        // A JSON answer with the key that is not "no route": the API is there.
        if (keyed && !noRoute(res.status)) {
          const refused = i === 0 && (res.status === 401 || res.status === 403);
          return refused ? { hint: `the target answered ${res.status} to GET ${probe.path} with the API key; if it refuses the key, every check fails (AUTH-001 judges it)` } : {};
        }
        seen.push(`${probe.method} ${probe.path}${keyed ? '' : ' without the key'} -> ${res.status}`);
        continue;
      }
      seen.push(`${probe.method} ${probe.path} -> ${res.status} (${res.headers['content-type'] ?? 'no content type'}, ${res.text.length === 0 ? 'empty body' : 'not JSON'})`);
    }
    const hint = apiSuffixHint(settings.baseUrl) ?? "is --base-url the service's base address (paths /api/... are appended to it)?";
    if (!json) throw new UnreachableError(redactor.text(`target ${settings.baseUrl} answered no request with JSON (${seen.join('; ')}); ${hint}`));
    if (keyedNoRoute && mustExistAnswered) {
      throw new UnreachableError(redactor.text(`target ${settings.baseUrl} has no route of the API: every request with the key was answered "no route" (${seen.join('; ')}); ${hint}`));
    }
    return {};
  } finally {
    await closeSharedAgent();
  }
}

/** The fix for the commonest wrong base URL: the service's address with /api, which the kit appends itself. */
export function apiSuffixHint(baseUrl: string): string | undefined {
  let url: URL;
  try {
    url = new URL(baseUrl);
  } catch {
    return undefined;
  }
  if (!/\/api\/*$/i.test(url.pathname)) return undefined;
  url.pathname = url.pathname.replace(/\/api\/*$/i, '') || '/';
  const fixed = redactUserinfo(url.toString()).replace(/\/$/, '');
  return `the base URL should not end in /api: try ${fixed}`;
}

function creationProbe(settings: RunSettings, name: string): ApiRequest | undefined {
  const kinds = settings.profile.kinds ?? {};
  const kind = (['relationalDatabase', 'objectStore', 'crm', 'marketing'] as const).find((k) => kinds[k]?.configuration);
  const k = kind ? kinds[kind] : undefined;
  if (!k?.configuration) return undefined;
  const configuration = fillPlaceholders(k.configuration, { ...sourceDbValues(settings), webhookUrl: `https://dssc-${settings.runId}.invalid/hook` });
  return { method: 'POST', path: '/api/connections', body: { name, type: k.type, configuration } };
}
