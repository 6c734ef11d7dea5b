import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync, realpathSync } from 'node:fs';
import { delimiter, dirname, join } from 'node:path';
import { ROOT } from '../suite/run-cli.ts';

// A Node.js older than the kit supports, to show the bin's one-line refusal. Our machines and CI
// have Debian's Node 20 as the system node (/usr/bin/node); the tests run on the project's Node 24
// from node_modules/.bin, which comes first on PATH. Every `node` on PATH and in the usual system
// places is asked its version; the first older than package.json's engines minimum is used.

/** The minimum from package.json engines (">=22.19"), as [major, minor]. */
export const MINIMUM: [number, number] = (() => {
  const engines = (JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { engines: { node: string } }).engines.node;
  const m = /^>=(\d+)\.(\d+)$/.exec(engines);
  if (!m) throw new Error(`package.json engines.node is ${engines}, expected >=MAJOR.MINOR`);
  return [Number(m[1]), Number(m[2])];
})();

export interface OldNode {
  /** The node executable. */
  path: string;
  /** Its directory, to put first on PATH. */
  dir: string;
  /** As `node --version` prints it, without the v: "20.20.2". */
  version: string;
}

function versionOf(path: string): string | undefined {
  try {
    return /^v(\d+\.\d+\.\d+)/.exec(execFileSync(path, ['--version'], { encoding: 'utf8', timeout: 10_000 }).trim())?.[1];
  } catch {
    return undefined;
  }
}

function older(version: string): boolean {
  const [major, minor] = version.split('.').map(Number) as [number, number];
  return major < MINIMUM[0] || (major === MINIMUM[0] && minor < MINIMUM[1]);
}

let found: OldNode | null | undefined;

/** The first Node older than the engines minimum, or undefined if the machine has none. */
export function findOldNode(): OldNode | undefined {
  if (found !== undefined) return found ?? undefined;
  const dirs = [...(process.env.PATH ?? '').split(delimiter), '/usr/bin', '/bin', '/usr/local/bin'].filter(Boolean);
  const seen = new Set<string>();
  found = null;
  for (const dir of dirs) {
    const path = join(dir, 'node');
    if (!existsSync(path)) continue;
    const real = realpathSync(path);
    if (seen.has(real) || real === realpathSync(process.execPath)) continue;
    seen.add(real);
    const version = versionOf(path);
    if (version && older(version)) {
      found = { path, dir: dirname(path), version };
      break;
    }
  }
  return found ?? undefined;
}

export const NO_OLD_NODE = `no Node.js older than ${MINIMUM.join('.')} on this machine (looked on PATH and in /usr/bin, /bin, /usr/local/bin); these tests need one, as our machines and CI have: Debian's nodejs, Node 20, at /usr/bin/node`;

/** The bin's one line, for the version `found`. */
export function refusal(version: string): string {
  return `dss-conformance: needs Node.js >= ${MINIMUM.join('.')}, found ${version}`;
}
