import { UnreachableError } from '../cli-errors.ts';
import { ApiClient, TransportError, closeSharedAgent } from '../client/http-client.ts';
import type { Redactor } from '../report/redact.ts';
import type { RunSettings } from './settings.ts';

/**
 * One request before any check: a target that is down, or answers something other than HTTP with a
 * JSON body, stops the run with exit 3 and one line, instead of sixty failures saying the same.
 */
export async function preflight(settings: RunSettings, redactor: Redactor): Promise<{ credentialRefused: boolean }> {
  const client = new ApiClient({ baseUrl: settings.baseUrl, apiKey: settings.apiKey, timeoutMs: settings.timeoutMs, redactor });
  const path = `/api/bulk/syncs/dssc-${settings.runId}-preflight/error-handling`;
  try {
    const res = await client.get(path);
    if (res.json === undefined) {
      const type = res.headers['content-type'] ?? 'no content type';
      throw new UnreachableError(redactor.text(`target ${settings.baseUrl} answered GET ${path} with ${res.status} (${type}) and a body that is not JSON; is --base-url the service's base address?`));
    }
    return { credentialRefused: res.status === 401 || res.status === 403 };
  } catch (error) {
    if (error instanceof TransportError) throw new UnreachableError(redactor.text(`target ${settings.baseUrl} unreachable: ${error.exchange.error}`));
    throw error;
  } finally {
    await closeSharedAgent();
  }
}
