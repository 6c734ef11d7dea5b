// The benign matrix runs several variants of the reference at once (run --variant A --variant B):
// a whole run per variant was about a third of npm test's CPU. Two variants may share a run only
// when neither can hide the other: variants that edit the same thing (the same answer, header or
// step of a delivery) could overwrite each other's change, or decide which of them a check sees.
// What each variant edits is declared here, by hand, from its apply(): a variant that shares
// nothing it edits with another leaves the other's change as it would be alone. A variant not
// declared here (a new one) runs alone until it is.

/** What each benign variant edits: variants that name the same thing never share a run. */
export const EDITS: Readonly<Record<string, readonly string[]>> = {
  'created-201': ['creation status'],
  'extra-fields': ['answer fields', 'error body'],
  'pretty-json-charset': ['serialized answer'],
  'opaque-ids': ['created resources'],
  'reordered-subscribers': ['error-handling answers'],
  'subscribers-normalised': ['error-handling answers'],
  'delivery-no-content-encoding': ['delivery Content-Encoding'],
  'delivery-lowercase-bearer': ['delivery Authorization'],
  'delivery-utc-offset': ['delivery timestamp'],
  'delivery-user-agent-space': ['delivery User-Agent'],
  'sync-name-limit-255': ['model sync validation'],
  'delivery-user-agent-name-case': ['delivery User-Agent'],
  'delivery-user-agent-comment': ['delivery User-Agent'],
  'error-message-only': ['error body', 'serialized answer'],
  'minimal-connection-answer': ['answer fields', 'connection answer'],
  'bulk-create-202': ['creation status'],
  'no-version-echo': ['version header'],
  'schema-cache-slow': ['schema cache'],
  'subscribers-null-when-empty': ['error-handling answers'],
  'delivery-json-charset': ['delivery Content-Type'],
  'delivery-header-spellings': ['delivery timestamp', 'delivery Content-Type', 'delivery Accept-Encoding'],
  'delivery-accept-encoding-list': ['delivery Accept-Encoding'],
  'delivery-timestamp-seconds': ['delivery timestamp'],
  'delivery-timestamp-comma': ['delivery timestamp'],
  'delivery-extra-headers': ['delivery extra headers'],
  'delivery-records-reversed': ['delivery payload'],
  'delivery-half-batches': ['delivery batches'],
  'delivery-extra-body-fields': ['delivery payload'],
  'delivery-json-ascii-escapes': ['delivery body encoding'],
  'delivery-short-hash': ['delivery hash'],
  'delivery-gzip-two-members': ['delivery body encoding'],
  'delivery-clock-ahead': ['delivery timestamp'],
  'delivery-retries-failures': ['run ends', 'capture log'],
  'runs-pass-through-states': ['run status'],
  'runs-busy-after-end': ['run starts'],
  'runs-completed-with-errors': ['run status', 'run ends'],
  'schema-stage-ends-before-repeat': ['schema cache'],
  'bulk-schemas-repeat-refused': ['bulk sync validation', 'creation requests'],
  'creation-request-size-limit': ['request limits', 'creation requests'],
  'connection-201-without-version': ['creation status'],
  'json-under-any-content-type': ['request parsing', 'creation requests'],
  'url-limit-414': ['request limits'],
  'unknown-type-accepted': ['connection validation', 'connection answer', 'creation requests'],
  'subscribers-limit-100': ['error-handling answers'],
  'put-answers-sent-fields-only': ['error-handling answers'],
  'put-answers-omitempty': ['error-handling answers'],
  'reads-no-data-at-defaults': ['error-handling answers', 'error-handling defaults'],
  'answers-unusual-addresses': ['error-handling answers', 'connection answer', 'created resources'],
  'error-bodies-empty': ['error body'],
  'put-answers-no-data': ['error-handling answers'],
  'reads-omitempty': ['error-handling answers'],
  'ids-reserved-chars': ['created resources'],
  'answers-gzip-chunked': ['serialized answer'],
  'no-schemas-other-wording': ['schema cache', 'error body'],
  'delivery-keys-reordered': ['delivery payload'],
  'delivery-metadata-absent': ['delivery payload'],
  'delivery-metadata-empty-object': ['delivery payload'],
  'delivery-timestamp-nanos-hour-offset': ['delivery timestamp'],
  'webhook-secret-jwt': ['webhook secret', 'delivery Authorization'],
  'auth-401-unlisted': ['auth answers'],
  'put-unknown-fields-refused': ['error-handling answers', 'error-handling validation'],
  'delivery-gzip-header-fields': ['delivery body encoding'],
  'delivery-stamped-at-queueing': ['delivery timestamp'],
  'errors-problem-json': ['error body'],
  'bulk-create-location-only': ['creation status', 'answer fields'],
  'connection-id-in-location': ['creation status', 'connection answer', 'answer fields'],
  'reads-never-data': ['error-handling answers'],
  'delivery-empty-batch-first': ['delivery batches', 'delivery payload', 'capture log'],
  'hb2-json-answer-forms': ['serialized answer'],
  'hb2-extra-response-headers': ['answer headers', 'creation status'],
  'hb2-ids-numeric-and-long': ['created resources'],
  'hb2-auth-url-opaque': ['connection answer'],
  'hb2-slow-first-answers': ['answer timing'],
  'hb2-error-handling-set-defaults': ['error-handling defaults'],
  'hb2-rate-limited': ['request limits'],
  'hb2-run-synchronous': ['run start answer'],
  'hb2-run-read-omitempty': ['run read'],
  'hb2-runs-queued-long': ['run status'],
  'hb2-model-sync-answer-id-only': ['model sync answer'],
  'hb2-capture-log-forms': ['capture log'],
  'hb2-delivery-x-gzip': ['delivery Content-Encoding'],
  'hb2-delivery-number-forms': ['delivery body encoding'],
  'hb2-delivery-hash-base64': ['delivery hash'],
  'hb2-batch-size-cap-100': ['delivery batches'],
};

/**
 * At most this many variants a run: a group that fails is run again variant by variant, so a
 * larger group saves runs when all pass and costs more when one does not.
 */
export const GROUP_SIZE = 6;

/**
 * The groups, from the catalogue and EDITS alone (no run decides them). As few groups as the size
 * and the most shared edit allow, filled evenly: the variants whose edits are shared most are
 * placed first (in catalogue order among equals), each into the smallest group that has room and
 * edits nothing it edits (a new group when none has). An undeclared variant is a group of its own.
 */
export function benignGroups(names: readonly string[], edits: Readonly<Record<string, readonly string[]>> = EDITS, size = GROUP_SIZE): string[][] {
  const declared = names.filter((name) => edits[name]);
  const sharing = new Map<string, number>();
  for (const name of declared) for (const e of edits[name]!) sharing.set(e, (sharing.get(e) ?? 0) + 1);
  const count = Math.max(Math.ceil(declared.length / size), ...sharing.values());
  const groups = Array.from({ length: count }, () => ({ names: [] as string[], edits: new Set<string>() }));
  const shared = (name: string) => Math.max(...edits[name]!.map((e) => sharing.get(e)!));
  const placing = declared.map((name, at) => ({ name, at })).sort((a, b) => shared(b.name) - shared(a.name) || a.at - b.at);
  for (const { name } of placing) {
    const own = edits[name]!;
    const fits = groups.filter((g) => g.names.length < size && own.every((e) => !g.edits.has(e)));
    let group = fits.reduce<(typeof groups)[number] | undefined>((best, g) => (!best || g.names.length < best.names.length ? g : best), undefined);
    if (!group) groups.push((group = { names: [], edits: new Set() }));
    group.names.push(name);
    for (const e of own) group.edits.add(e);
  }
  const order = (list: string[]) => list.sort((a, b) => names.indexOf(a) - names.indexOf(b));
  return [...groups.filter((g) => g.names.length > 0).map((g) => order(g.names)), ...names.filter((name) => !edits[name]).map((name) => [name])];
}
