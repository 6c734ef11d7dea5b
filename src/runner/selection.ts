import { UsageError } from '../cli-errors.ts';
import { suggest } from '../cli-flags.ts';
import type { Requirement } from '../report/results.ts';

// --only and --exclude name requirements four ways: an ID (EHS-002), a glob over IDs (WH-0*,
// AUTH-00?), an area, i.e. a spec file's name (auth, webhooks), or a level (MUST, INFERRED, PROFILE).

export const areaOf = (r: Requirement) => r.spec.replace(/\.spec\.[cm]?[jt]s$/, '');

const LEVELS = ['MUST', 'SHOULD', 'INFERRED', 'PROFILE'];

/** The requirement IDs one selector names; a selector that names none is a usage error. */
function matching(flag: string, selector: string, requirements: Requirement[]): string[] {
  const upper = selector.toUpperCase();
  if (/[*?]/.test(selector)) {
    const glob = new RegExp(`^${upper.replace(/[.+^${}()|[\]\\]/g, '\\$&').replace(/\*/g, '.*').replace(/\?/g, '.')}$`);
    const ids = requirements.filter((r) => glob.test(r.id)).map((r) => r.id);
    if (ids.length === 0) throw new UsageError(`${flag}: ${selector} matches no requirement ID (see 'dss-conformance coverage')`);
    return ids;
  }
  if (LEVELS.includes(upper)) return requirements.filter((r) => r.level === upper).map((r) => r.id);
  const byId = requirements.find((r) => r.id === upper);
  if (byId) return [byId.id];
  const inArea = requirements.filter((r) => areaOf(r) === selector.toLowerCase()).map((r) => r.id);
  if (inArea.length > 0) return inArea;
  const areas = [...new Set(requirements.map(areaOf))];
  const near = suggest(selector, [...requirements.map((r) => r.id), ...areas, ...LEVELS]);
  const kind = /^[A-Za-z]+-\d+$/.test(selector) ? 'unknown requirement ID' : 'not a requirement ID, glob, area or level:';
  throw new UsageError(`${flag}: ${kind} ${selector} (${near ? `did you mean ${near}? ` : ''}areas: ${areas.join(', ')}; levels: ${LEVELS.join(', ')}; IDs: see 'dss-conformance coverage')`);
}

/**
 * The IDs a run judges, in catalogue order: those --only names (all when it names nothing), less
 * those --exclude names. undefined means every requirement (nothing was narrowed).
 */
export function selectRequirements(requirements: Requirement[], only: string[], exclude: string[], labels: { only: string; exclude: string } = { only: '--only', exclude: '--exclude' }): string[] | undefined {
  if (only.length === 0 && exclude.length === 0) return undefined;
  const chosen = new Set(only.length > 0 ? only.flatMap((s) => matching(labels.only, s, requirements)) : requirements.map((r) => r.id));
  for (const s of exclude) for (const id of matching(labels.exclude, s, requirements)) chosen.delete(id);
  const ids = requirements.filter((r) => chosen.has(r.id)).map((r) => r.id);
  if (ids.length === 0) throw new UsageError(`${only.length ? `${labels.only} ${only.join(',')} ` : ''}${labels.exclude} ${exclude.join(',')} leaves no requirement to run`);
  return ids;
}
