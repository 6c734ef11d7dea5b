import type { ApiResponse } from '../client/http-client.ts';
import { atPointer } from '../profile/profile.ts';
import { api, profile } from './context.ts';

// What a check can know of a sync's error-handling settings. "All fields are optional in the
// response" (Spec › SyncErrorHandling, BulkSyncErrorHandling): a field an answer leaves out is not
// reported, which is not the same as changed. So a check takes what the PUT answered, and for each
// field it left out, what a read shows (the spec's GET for a bulk sync, the profile's
// errorHandling.read for a model sync); a field neither shows is unknown, and a rule that needs it
// is not observable at that step, never failed.

export const FIELDS = ['auto_retry_record_errors', 'notify_on_record_errors', 'subscribers', 'warning_notifications'] as const;
export const BULK_FIELDS = ['ingestion_failure_threshold', 'subscribers'] as const;
export type Field = (typeof FIELDS)[number] | (typeof BULK_FIELDS)[number];
/** Settings as known: a field that is absent is unknown. */
export type Settings = Partial<Record<Field, unknown>>;

/** Whether an answered value has the spec's type; one that does not is the answer-shape check's finding. */
export function wellTyped(field: Field, v: unknown): boolean {
  if (field === 'subscribers') return v === null || (Array.isArray(v) && v.every((s) => typeof s === 'string'));
  if (field === 'ingestion_failure_threshold') return v === null || Number.isInteger(v);
  return typeof v === 'boolean';
}

/** A way to read a sync's error handling back. */
export interface Reader {
  /** Shown in messages: `GET /api/syncs/{id}/error-handling`. */
  what: string;
  path(id: string): string;
  /** Where the settings are in the answer (RFC 6901). */
  pointer: string;
  /** false: a read value of the wrong type is another check's finding (the spec's GET has its own shape check). */
  judgesTypes: boolean;
}

const enc = encodeURIComponent;

/** The model-sync read the profile names (errorHandling.read), if any. */
export function modelSyncReader(): Reader | undefined {
  const read = profile().errorHandling?.read;
  if (!read) return undefined;
  return { what: `GET ${read.path}`, path: (id) => read.path.replace('{id}', enc(id)), pointer: read.pointer ?? '/data', judgesTypes: true };
}

/** The spec's GET /api/bulk/syncs/{id}/error-handling; its types are EHB-001's rule. */
export const BULK_READER: Reader = {
  what: 'GET /api/bulk/syncs/{id}/error-handling',
  path: (id) => `/api/bulk/syncs/${enc(id)}/error-handling`,
  pointer: '/data',
  judgesTypes: false,
};

/**
 * The settings object a read answered; else `problem` says what is wrong, or neither is set: the
 * read answered 200 without settings, which the spec allows ("data is optional") and reports nothing.
 */
export async function readSettings(reader: Reader, syncId: string): Promise<{ res: ApiResponse; data?: Settings; problem?: string }> {
  const res = await api().get(reader.path(syncId));
  if (res.status !== 200) return { res, problem: `${reader.what} answered ${res.status}, not 200` };
  if (res.json === undefined) return { res, problem: `${reader.what} answered 200 without a JSON body` };
  const data = atPointer(res.json, reader.pointer);
  if (data === undefined) return { res };
  if (!data || typeof data !== 'object' || Array.isArray(data)) return { res, problem: `${reader.what} has no settings object at ${reader.pointer || '/'}` };
  return { res, data: data as Settings };
}

/** What is known of the settings after a PUT: its answer, completed by a read where it left a field out. */
export interface Observation {
  values: Settings;
  /** The read that completed the answer, if one was needed and made. */
  read?: ApiResponse;
  /** The fields whose value is the read's. */
  fromRead: Field[];
}

/**
 * The PUT's answer, and for the fields it left out (or answered with a type that is not the
 * spec's: the answer-shape check's finding), what the read shows, if it has the spec's type (else
 * it is the read's own check's finding). Without a read, or when the read fails (its own check's
 * finding), those fields stay as answered: absent, unknown.
 */
export async function observe(fields: readonly Field[], reader: Reader | undefined, syncId: string, answered: Settings): Promise<Observation> {
  const missing = fields.filter((f) => !(f in answered) || !wellTyped(f, answered[f]));
  if (missing.length === 0 || !reader) return { values: answered, fromRead: [] };
  const read = await readSettings(reader, syncId);
  if (!read.data) return { values: answered, fromRead: [] };
  const values: Settings = { ...answered };
  const fromRead = missing.filter((f) => f in read.data! && wellTyped(f, read.data![f]));
  for (const f of fromRead) values[f] = read.data[f];
  return { values, read: read.res, fromRead };
}

/** How much of a check's rule the run could judge: the check is skipped, with the reason, when nothing. */
export class Tally {
  judged = 0;
  /** Steps judged without a comparison: the rule held because its subject was empty (see vacuous). */
  vacuous = 0;
  unobserved: string | undefined;
  /** A field (or step) the rule compared. */
  judge(): void {
    this.judged++;
  }
  /**
   * A step at which the rule holds with nothing to compare: e.g. a PUT that answered no setting at
   * all ("data is optional") leaves its read nothing to disagree with. It counts as judged: a
   * target whose PUTs never answer settings satisfies "the read answers what the PUT answered",
   * and is not left INCOMPLETE for it (held-out variant put-answers-no-data).
   */
  holdsVacuously(): void {
    this.judged++;
    this.vacuous++;
  }
  /** A field the rule needed that no answer or read reported. */
  miss(why: string): void {
    this.unobserved ??= why;
  }
  /** Why nothing could be judged, if so. */
  nothingJudged(): string | undefined {
    if (this.judged > 0) return undefined;
    return this.unobserved ?? 'no step reported a field the rule compares';
  }
}

/** Why a field is unknown, for the skip's reason. */
export function unreported(field: Field, reader: Reader | undefined): string {
  return reader
    ? `neither the PUT's answer nor ${reader.what} reports ${field} (all fields are optional in the response)`
    : `the PUT's answer does not report ${field} (all fields are optional in the response), and there is no read to confirm it (the profile gives no errorHandling.read)`;
}
