import { resolve } from 'node:path';
import { TransportError, type ApiClient } from '../client/http-client.ts';
import { UnreachableError, UsageError } from '../cli-errors.ts';
import { KIND_LABELS, RESOURCE_KINDS, type ResourceKind, type ResourceKindSpec } from '../profile/cleanup-spec.ts';
import { atPointer, loadProfile, referenceProfilePath, type Profile } from '../profile/profile.ts';
import type { CreatedResource } from '../report/created-log.ts';
import { Redactor } from '../report/redact.ts';
import { ago } from '../source-db/cleanup.ts';
import { cleanupClient, deleteOne, NoAnswer } from './delete-resources.ts';
import { spoken } from './duration.ts';
import { parseHttpUrl } from './target-url.ts';

// `dss-conformance cleanup --base-url URL`: deletes what dead runs left on a target (a run killed
// with SIGKILL, or whose deletes failed). Each kind the profile can list is listed; only resources
// named with the kit's run prefix, dssc-<run id>-..., are ever touched, and only those of runs
// whose newest resource is older than --older-than. One line per resource deleted or run kept.

/** The kit's names: dssc-, the run id (8 hex digits), a dash. Anything else is not the kit's. */
export const RUN_PREFIX = /^dssc-([0-9a-f]{8})-/;

/** How long the deletes of one cleanup may take: a target that answers slowly, or lists thousands, cannot keep it going for ever. */
export const CLEANUP_BOUND_MS = 10 * 60_000;

export interface TargetCleanOptions {
  olderThanMs: number;
  /** Default CLEANUP_BOUND_MS; what is left when it runs out is said, and a later cleanup removes it. */
  boundMs?: number | undefined;
  dryRun: boolean;
  out(line: string): void;
  warn(line: string): void;
}

interface Listed extends CreatedResource {
  runId: string;
  createdAt?: Date | undefined;
}

/** The resources of one kind, as its list request answers them. */
async function listKind(client: ApiClient, kind: ResourceKind, list: NonNullable<ResourceKindSpec['list']>): Promise<Listed[]> {
  let res;
  try {
    res = await client.get(list.path);
  } catch (error) {
    if (error instanceof TransportError) throw new UnreachableError(`listing ${KIND_LABELS[kind]}s: ${error.message.split('\n')[0]}`);
    throw error;
  }
  if (res.status < 200 || res.status >= 300) throw new Error(`listing ${KIND_LABELS[kind]}s (GET ${list.path}) answered ${res.status}`);
  const items = atPointer(res.json, list.items);
  if (!Array.isArray(items)) throw new Error(`listing ${KIND_LABELS[kind]}s (GET ${list.path}): the answer has no list at ${list.items}`);
  const out: Listed[] = [];
  for (const item of items) {
    const name = atPointer(item, list.name ?? '/name');
    const id = atPointer(item, list.id ?? '/id');
    const runId = typeof name === 'string' ? RUN_PREFIX.exec(name)?.[1] : undefined;
    if (runId === undefined || (typeof id !== 'string' && typeof id !== 'number')) continue;
    const raw = list.createdAt === undefined ? undefined : atPointer(item, list.createdAt);
    const createdAt = typeof raw === 'string' && !Number.isNaN(Date.parse(raw)) ? new Date(raw) : undefined;
    out.push({ kind, id: String(id), name: name as string, runId, createdAt });
  }
  return out;
}

function chooseProfile(flag: string | undefined): Profile {
  return loadProfile(flag === undefined || flag === 'reference' ? referenceProfilePath : resolve(flag)).profile;
}

/** The resources that could not be deleted (the others were): the command's exit 1 when not 0. */
export async function cleanTarget(values: { baseUrl: { value: string; label: string }; apiKey?: { value: string; label: string } | undefined; profile?: string | undefined }, o: TargetCleanOptions): Promise<{ failed: number }> {
  const { url, secrets } = parseHttpUrl(values.baseUrl.label, values.baseUrl.value);
  if (!values.apiKey) throw new UsageError('cleanup --base-url needs --api-key (or DSS_API_KEY)');
  const profile = chooseProfile(values.profile);
  const redactor = new Redactor([values.apiKey.value, ...secrets]);
  const say = (line: string) => o.out(redactor.text(line));
  const client = cleanupClient({ baseUrl: url.href.replace(/\/$/, ''), apiKey: values.apiKey.value, basic: profile.auth?.basic, version: profile.versions?.default, timeoutMs: 10_000, maxRps: 20, redactor });
  const kinds = RESOURCE_KINDS.filter((k) => profile.cleanup?.[k]?.list);
  if (kinds.length === 0) throw new UsageError(`cleanup --base-url: the profile ${profile.name} declares no list request (cleanup.<kind>.list), so nothing can be found to delete`);
  for (const kind of RESOURCE_KINDS) if (!kinds.includes(kind)) say(`not looked for: ${KIND_LABELS[kind]}s (the profile declares no cleanup.${kind}.list)`);

  const found: Listed[] = [];
  let failed = 0;
  for (const kind of kinds) {
    try {
      found.push(...(await listKind(client, kind, profile.cleanup![kind]!.list!)));
    } catch (error) {
      if (error instanceof UnreachableError) throw error;
      o.warn(redactor.text((error as Error).message));
      failed++;
    }
  }
  const now = Date.now();
  const until = now + (o.boundMs ?? CLEANUP_BOUND_MS);
  let notTried = 0;
  const byRun = Map.groupBy(found, (r) => r.runId);
  let deleted = 0;
  let runsCleaned = 0;
  for (const [runId, resources] of byRun) {
    const times = resources.map((r) => r.createdAt?.getTime());
    const known = times.filter((t): t is number => t !== undefined);
    const newest = known.length > 0 ? Math.max(...known) : undefined;
    if (o.olderThanMs > 0 && (newest === undefined || known.length < times.length)) {
      say(`kept run ${runId}: ${resources.length} resource(s) without a creation time (the profile's cleanup.<kind>.list.createdAt; --older-than 0 deletes them)`);
      continue;
    }
    if (newest !== undefined && now - newest < o.olderThanMs) {
      say(`kept run ${runId}: ${resources.length} resource(s), the newest made ${ago(now - newest)} ago (younger than --older-than ${spoken(o.olderThanMs)}: it may still be running)`);
      continue;
    }
    runsCleaned++;
    // Dependents first: a sync before the model and connections it names.
    for (const kind of RESOURCE_KINDS) {
      for (const r of resources.filter((x) => x.kind === kind)) {
        const line = `${KIND_LABELS[kind]} ${r.id} (${r.name}, run ${runId})`;
        if (!o.dryRun && Date.now() >= until) {
          notTried++;
          continue;
        }
        if (o.dryRun) {
          say(`would delete ${line}`);
          deleted++;
          continue;
        }
        let problem: string | undefined;
        try {
          problem = await deleteOne(client, profile.cleanup![kind]!, r);
        } catch (error) {
          // No answer at all: the rest would each cost a timeout; what is left stays for a later cleanup.
          if (error instanceof NoAnswer) throw new UnreachableError(redactor.text(`deleting ${line}: ${error.message} (deleted ${deleted} before it stopped answering)`));
          throw error;
        }
        if (problem === undefined) {
          say(`deleted ${line}`);
          deleted++;
        } else {
          o.warn(redactor.text(`could not delete ${line}: ${problem}`));
          failed++;
        }
      }
    }
  }
  if (notTried > 0) o.warn(`left ${notTried} resource(s) undeleted: the time for deleting (${spoken(o.boundMs ?? CLEANUP_BOUND_MS)}) ran out; run cleanup again to remove them`);
  say(`target ${url.origin}: ${o.dryRun ? 'would delete' : 'deleted'} ${deleted} resource(s) of ${runsCleaned} run(s); kept ${byRun.size - runsCleaned} run(s)`);
  return { failed: failed + notTried };
}
