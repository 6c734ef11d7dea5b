import type { TemplateValue } from '../profile/template.ts';
import type { RunSettings } from '../runner/settings.ts';
import { runPrefix } from './database.ts';
import { parseSourceDbUrl, targetView } from './url.ts';

/** The profile's {{sourceDb.*}} and {{tablePrefix}} values: the database as the target reaches it, and the schema of the kit's tables. Empty without one. */
export function sourceDbValues(settings: Pick<RunSettings, 'sourceDb' | 'runId'>): Record<string, TemplateValue> {
  if (!settings.sourceDb) return {};
  const db = targetView(parseSourceDbUrl(settings.sourceDb.url), settings.sourceDb.publicHost, settings.sourceDb.schema);
  return {
    'sourceDb.hostname': db.hostname,
    'sourceDb.port': db.port,
    'sourceDb.database': db.database,
    'sourceDb.username': db.username,
    'sourceDb.password': db.password,
    'sourceDb.ssl': db.ssl,
    'sourceDb.schema': db.schema,
    tablePrefix: runPrefix(settings.runId),
  };
}
