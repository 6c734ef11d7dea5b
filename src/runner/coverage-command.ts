import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { EXIT } from '../cli-errors.ts';
import { parseFlags } from '../cli-flags.ts';
import { packageRoot } from '../paths.ts';
import { loadRequirements, type Requirement } from '../report/results.ts';

const HELP = `usage: dss-conformance coverage [--json] [-h]

Lists every requirement of the catalogue (specs/requirements.json) with its level, the spec file
whose checks are titled with its ID, the number of such checks, the cases of its coverage phase,
and the reference faults that prove them; then the benign variants every check must pass under.
Requirements without a check, or proven by one fault only, are listed at the end. The area (the
spec file's name) and the level are what 'run --only' and 'run --exclude' select by, besides IDs.

  --json       the list as JSON
  -h, --help   this text`;

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
  return loadRequirements().map((requirement) => {
    const titled = new RegExp(`check\\(\\s*[\`'"]${requirement.id}\\b`, 'g');
    return {
      requirement,
      checks: (sources.match(titled) ?? []).length,
      cases: cases[requirement.id] ?? [],
      faults: faultCatalogue().filter((f) => f.breaks.includes(requirement.id)).map((f) => f.name),
    };
  });
}

export async function coverageCommand(argv: string[]): Promise<number> {
  const { values } = parseFlags('coverage', argv, { json: { type: 'boolean' }, help: { type: 'boolean', short: 'h' } } as const);
  if (values.help) {
    process.stdout.write(HELP + '\n');
    return EXIT.ok;
  }
  const rows = await coverage();
  if (values.json) {
    const { variantCatalogue } = await import('../reference/faults.ts');
    const variants = variantCatalogue().map((v) => v.name);
    process.stdout.write(JSON.stringify(rows.map((r) => ({ id: r.requirement.id, level: r.requirement.level, spec: r.requirement.spec, checks: r.checks, coverageCases: r.cases, faults: r.faults, benignVariants: variants })), null, 2) + '\n');
    return EXIT.ok;
  }
  const lines = rows.map((r) => `${r.requirement.id.padEnd(9)} ${r.requirement.level.padEnd(8)} ${String(r.checks).padStart(2)} check(s)  ${r.requirement.spec.padEnd(22)}${r.cases.length ? ` ${r.cases.length} coverage cases` : ''} faults: ${r.faults.join(', ') || '-'}`);
  const { variantCatalogue } = await import('../reference/faults.ts');
  const single = rows.filter((r) => r.faults.length === 1);
  const uncovered = rows.filter((r) => r.checks === 0);
  const unproven = rows.filter((r) => r.checks > 0 && r.faults.length === 0);
  const levels = ['MUST', 'INFERRED', 'PROFILE'].map((l) => `${rows.filter((r) => r.requirement.level === l).length} ${l}`).join(', ');
  lines.push(
    '',
    `${rows.length} requirements (${levels}); ${rows.length - uncovered.length} with a check; ${rows.length - uncovered.length - unproven.length} with a check proven by a fault`,
    `without a check: ${uncovered.map((r) => r.requirement.id).join(', ') || 'none'}`,
    `checked but no fault proves it: ${unproven.map((r) => r.requirement.id).join(', ') || 'none'}`,
    `proven by one fault only: ${single.map((r) => r.requirement.id).join(', ') || 'none'}`,
    `benign variants every check must pass under: ${variantCatalogue().map((v) => v.name).join(', ')}`,
  );
  process.stdout.write(lines.join('\n') + '\n');
  return EXIT.ok;
}
