import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { EXIT, readJsonFile, UsageError } from '../cli-errors.ts';
import { parseFlags } from '../cli-flags.ts';
import { packageRoot } from '../paths.ts';
import { loadRequirements, RECEIVER_SPEC, type Requirement } from '../report/results.ts';

const HELP = `usage: dss-conformance coverage [--json] [-h]
       dss-conformance coverage --input-space [REPORTS-DIR] [--profile FILE] [--json]

Lists every requirement of the catalogue (specs/requirements.json) with its level, the spec file
whose checks are titled with its ID, the number of such checks, the cases of its coverage phase,
and the reference faults that prove them; then the benign variants every check must pass under.
Requirements without a check, or proven by one fault only, are listed at the end. The receiver
requirements (RCV, spec receivers.spec.ts, judged by 'dss-conformance receiver') are proven by the
reference receiver's faults. The area (the
spec file's name) and the level are what 'run --only' and 'run --exclude' select by, besides IDs.

With --input-space: how much of the input space (schemas/input-space.json) the run whose reports
are in REPORTS-DIR (default reports/) walked: per operation, each dimension's values and each
listed pair of values, sent or not, read from the run's requests.json (classified per dimension)
and walked.json (what the checks recorded); a figure per operation and in total, every gap named.
A connection's kind is read from its type with the profile's kinds (the built-in reference
profile when the run used it, else --profile), or from its configuration's fields.
Exit 0; 2 when REPORTS-DIR holds no run (no requests.json).

  --input-space    the input-space coverage of a run
  --profile FILE   the profile the run used ('reference' for the built-in one)
  --json           the list as JSON
  -h, --help       this text`;

export interface Coverage {
  requirement: Requirement;
  checks: number;
  /** Named cases of the check's coverage phase (enumerated from the schema), if it has one. */
  cases: string[];
  faults: string[];
}

/** Counts, per requirement, the tests in specs/ whose title starts with its ID (a static read of the spec files). */
export async function coverage(): Promise<Coverage[]> {
  const dir = readdirSync(join(packageRoot, 'specs')).some((f) => f.endsWith('.spec.ts')) ? join(packageRoot, 'specs') : join(packageRoot, 'dist', 'specs');
  const sources = readdirSync(dir).filter((f) => /\.spec\.[jt]s$/.test(f)).map((f) => readFileSync(join(dir, f), 'utf8')).join('\n');
  const { faultCatalogue } = await import('../reference/faults.ts');
  const { coverageCaseNames } = await import('../generators/coverage.ts');
  const cases = coverageCaseNames();
  // Receiver requirements are proven by the reference receiver's faults.
  const receiverFaults = await receiverFaultCatalogue();
  return loadRequirements('all').map((requirement) => {
    const titled = new RegExp(`check\\(\\s*[\`'"]${requirement.id}\\b`, 'g');
    return {
      requirement,
      checks: (sources.match(titled) ?? []).length,
      cases: cases[requirement.id] ?? [],
      faults: (requirement.spec === RECEIVER_SPEC ? receiverFaults : faultCatalogue()).filter((f) => f.breaks.includes(requirement.id)).map((f) => f.name),
    };
  });
}

/** The reference receiver's faults; none in a build without it. */
async function receiverFaultCatalogue(): Promise<Array<{ name: string; breaks: string[] }>> {
  const { referenceReceiverModule } = await import('../receiver-conformance/reference.ts');
  try {
    return (await referenceReceiverModule()).receiverFaultCatalogue();
  } catch {
    return [];
  }
}

export async function coverageCommand(argv: string[]): Promise<number> {
  const { values, positionals } = parseFlags('coverage', argv, { json: { type: 'boolean' }, 'input-space': { type: 'boolean' }, profile: { type: 'string' }, help: { type: 'boolean', short: 'h' } } as const, { positionals: true });
  if (values.help) {
    process.stdout.write(HELP + '\n');
    return EXIT.ok;
  }
  if (values['input-space']) {
    if (positionals.length > 1) throw new UsageError(`coverage --input-space takes one reports folder, got ${positionals.length} (see 'dss-conformance coverage --help')`);
    return inputSpaceCommand(positionals[0] ?? 'reports', values.profile, values.json ?? false);
  }
  if (positionals.length > 0 || values.profile !== undefined) throw new UsageError(`coverage: a reports folder and --profile go with --input-space (see 'dss-conformance coverage --help')`);
  const rows = await coverage();
  if (values.json) {
    const { variantCatalogue } = await import('../reference/faults.ts');
    const variants = variantCatalogue().map((v) => v.name);
    const { referenceReceiverModule } = await import('../receiver-conformance/reference.ts');
    const receiverVariants = await referenceReceiverModule().then((m) => m.receiverBenignCatalogue().map((v) => v.name), () => []);
    process.stdout.write(JSON.stringify(rows.map((r) => ({ id: r.requirement.id, level: r.requirement.level, spec: r.requirement.spec, checks: r.checks, coverageCases: r.cases, faults: r.faults, benignVariants: r.requirement.spec === RECEIVER_SPEC ? receiverVariants : variants })), null, 2) + '\n');
    return EXIT.ok;
  }
  const lines = rows.map((r) => `${r.requirement.id.padEnd(9)} ${r.requirement.level.padEnd(8)} ${String(r.checks).padStart(2)} check(s)  ${r.requirement.spec.padEnd(22)}${r.cases.length ? ` ${r.cases.length} coverage cases` : ''} faults: ${r.faults.join(', ') || '-'}`);
  const { variantCatalogue } = await import('../reference/faults.ts');
  const single = rows.filter((r) => r.faults.length === 1);
  const uncovered = rows.filter((r) => r.checks === 0);
  const unproven = rows.filter((r) => r.checks > 0 && r.faults.length === 0);
  const levels = ['MUST', 'INFERRED', 'PROFILE'].map((l) => `${rows.filter((r) => r.requirement.level === l && r.requirement.spec !== RECEIVER_SPEC).length} ${l}`).join(', ');
  const receivers = rows.filter((r) => r.requirement.spec === RECEIVER_SPEC);
  const receiverLevels = ['MUST', 'SHOULD'].map((l) => `${receivers.filter((r) => r.requirement.level === l).length} ${l}`).join(', ');
  lines.push(
    '',
    `${rows.length - receivers.length} requirements (${levels}) and ${receivers.length} receiver requirements (${receiverLevels}, judged by 'dss-conformance receiver', proven by the reference receiver's faults); ${rows.length - uncovered.length} with a check; ${rows.length - uncovered.length - unproven.length} with a check proven by a fault`,
    `without a check: ${uncovered.map((r) => r.requirement.id).join(', ') || 'none'}`,
    `checked but no fault proves it: ${unproven.map((r) => r.requirement.id).join(', ') || 'none'}`,
    `proven by one fault only: ${single.map((r) => r.requirement.id).join(', ') || 'none'}`,
    `benign variants every check must pass under: ${variantCatalogue().map((v) => v.name).join(', ')}`,
  );
  process.stdout.write(lines.join('\n') + '\n');
  return EXIT.ok;
}

async function inputSpaceCommand(dir: string, profileFlag: string | undefined, json: boolean): Promise<number> {
  const { classifyRequests } = await import('../report/input-space-classify.ts');
  const { inputSpaceCoverage, renderInputSpaceCoverage } = await import('../report/input-space-coverage.ts');
  const { WALKED_FILE } = await import('../report/request-log.ts');
  const reports = resolve(dir);
  const requestsFile = join(reports, 'requests.json');
  if (!existsSync(requestsFile)) throw new UsageError(`coverage --input-space: ${dir} holds no run (no requests.json; run 'dss-conformance run --reports ${dir}' first)`);
  const requests = readJsonFile(requestsFile, `coverage --input-space: ${dir}/requests.json`);
  if (!Array.isArray(requests)) throw new UsageError(`coverage --input-space: ${dir}/requests.json is not a list of requests`);
  const walkedFile = join(reports, WALKED_FILE);
  const walked = existsSync(walkedFile) ? readJsonFile(walkedFile, `coverage --input-space: ${dir}/${WALKED_FILE}`) : [];
  if (!Array.isArray(walked)) throw new UsageError(`coverage --input-space: ${dir}/${WALKED_FILE} is not a list of records`);
  const kindTypes = await profileKindTypes(reports, profileFlag);
  const observations = [...classifyRequests(requests as never, { kindTypes }), ...(walked as Array<{ operation: string; values: Record<string, string | number> }>).map((w) => ({ operation: w.operation, values: w.values }))];
  const result = inputSpaceCoverage(observations);
  process.stdout.write(json ? JSON.stringify(result, null, 2) + '\n' : renderInputSpaceCoverage(result));
  return EXIT.ok;
}

/** The profile's connection type identifiers by kind: --profile's, or the reference's when the run used it. */
async function profileKindTypes(reports: string, flag: string | undefined): Promise<Record<string, string> | undefined> {
  const { loadProfile, loadReferenceProfile } = await import('../profile/profile.ts');
  let name = flag;
  if (name === undefined) {
    const results = join(reports, 'results.json');
    const label = existsSync(results) ? (readJsonFile(results, 'results.json') as { profile?: unknown }).profile : undefined;
    if (typeof label === 'string' && label.startsWith('reference')) name = 'reference';
  }
  if (name === undefined) return undefined;
  const profile = name === 'reference' ? loadReferenceProfile() : loadProfile(name).profile;
  return Object.fromEntries(Object.entries(profile.kinds ?? {}).flatMap(([kind, k]) => (k?.type ? [[kind, k.type]] : [])));
}
