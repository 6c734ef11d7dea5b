import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { packageRoot } from '../paths.ts';
import type { Profile } from '../profile/profile.ts';
import { catalogueDigest, implementationName } from '../report/certificate.ts';
import type { Baseline } from '../report/baseline.ts';
import type { DeclaredCapabilities, NewEvent } from '../report/events.ts';
import type { Flags } from './config-resolve.ts';
import { RUN_FLAGS } from './run-flags.ts';
import type { RunSettings } from './settings.ts';

// What the run-start event records: enough that a report rendered later from the stream alone
// names the target, the kit, the settings and the profile's declarations, and applies the baseline.

let version: string | undefined;
export function kitVersion(): string {
  version ??= (JSON.parse(readFileSync(join(packageRoot, 'package.json'), 'utf8')) as { version: string }).version;
  return version;
}

/** The profile's declarations, without any configuration value (those hold credentials). */
export function declaredCapabilities(profile: Profile): DeclaredCapabilities {
  const eh = profile.errorHandling;
  const statuses = profile.adapter?.declarative?.statuses;
  return {
    name: profile.name,
    kinds: Object.fromEntries(Object.entries(profile.kinds ?? {}).map(([kind, k]) => [kind, k?.type ?? '?'])),
    versions: profile.versions ? { ...(profile.versions.default ? { default: profile.versions.default } : {}), ...(profile.versions.supported ? { supported: profile.versions.supported } : {}) } : undefined,
    schemaCache: profile.schemaCache ? { ...(profile.schemaCache.observable !== undefined ? { observable: profile.schemaCache.observable } : {}), ...(profile.schemaCache.timeoutMs !== undefined ? { timeoutMs: profile.schemaCache.timeoutMs } : {}) } : undefined,
    errorHandling: eh ? { read: eh.read !== undefined, bulkWrite: eh.bulkWrite !== undefined, ...(eh.putNull ? { putNull: eh.putNull } : {}) } : undefined,
    ...(profile.webhooks?.productName ? { productName: profile.webhooks.productName } : {}),
    ...(statuses ? { runEnds: { completed: [...statuses.completed], failed: [...statuses.failed] } } : {}),
    unsupported: { ...(profile.unsupported ?? {}) },
  };
}

/** The resolved settings by flag name; secret flags are left out entirely (not even redacted). */
function publicSettings(flags: Flags): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const f of RUN_FLAGS) if (!f.secret && flags[f.name] !== undefined) out[f.name] = flags[f.name];
  return out;
}

/** --implementation wins over the profile's implementation; neither leaves the reports naming only the URL. */
function implementation(flags: Flags, profile: Profile): { implementation?: string } {
  const name = implementationName(flags.implementation as string | undefined) ?? implementationName(profile.implementation);
  return name ? { implementation: name } : {};
}

export function runStartEvent(o: { settings: RunSettings; flags: Flags; faults: string[]; versions: string[]; selected: string[]; baseline: (Baseline & { file: string }) | undefined; shard?: { index: number; count: number } | undefined }): NewEvent {
  const s = o.settings;
  return {
    type: 'run-start',
    tool: 'dss-conformance',
    kitVersion: kitVersion(),
    node: process.versions.node,
    ...implementation(o.flags, s.profile),
    catalogue: catalogueDigest(),
    target: s.baseUrl,
    embedded: s.embedded,
    faults: o.faults,
    profile: s.profileSource,
    capabilities: declaredCapabilities(s.profile),
    seed: s.seed,
    runId: s.runId,
    replay: s.replay,
    apiVersions: o.versions,
    ...(o.selected.length > 0 ? { selected: o.selected } : {}),
    settings: publicSettings(o.flags),
    ...(o.baseline ? { baseline: o.baseline } : {}),
    ...(o.shard ? { shard: o.shard } : {}),
  };
}
