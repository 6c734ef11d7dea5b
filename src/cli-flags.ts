import { parseArgs, type ParseArgsConfig } from 'node:util';
import { UsageError } from './cli-errors.ts';

type Options = NonNullable<ParseArgsConfig['options']>;

/** Edit distance (insert, delete, substitute, swap of neighbours): typos are mostly these. */
export function editDistance(a: string, b: string): number {
  const d: number[][] = Array.from({ length: a.length + 1 }, (_, i) => Array.from({ length: b.length + 1 }, (_, j) => (i === 0 ? j : j === 0 ? i : 0)));
  for (let i = 1; i <= a.length; i++) {
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      d[i]![j] = Math.min(d[i - 1]![j]! + 1, d[i]![j - 1]! + 1, d[i - 1]![j - 1]! + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) d[i]![j] = Math.min(d[i]![j]!, d[i - 2]![j - 2]! + 1);
    }
  }
  return d[a.length]![b.length]!;
}

/**
 * The candidate a typo most likely meant: the closest within a third of its length (at least 2
 * edits), else the only candidate it is a prefix of. Undefined when nothing is close.
 */
export function suggest(word: string, candidates: readonly string[]): string | undefined {
  const w = word.toLowerCase();
  let best: string | undefined;
  let bestDistance = Infinity;
  for (const c of candidates) {
    const distance = editDistance(w, c.toLowerCase());
    if (distance < bestDistance) [best, bestDistance] = [c, distance];
  }
  if (best !== undefined && bestDistance <= Math.max(2, Math.floor(w.length / 3))) return best;
  const prefixed = candidates.filter((c) => c.toLowerCase().startsWith(w));
  return w.length >= 3 && prefixed.length === 1 ? prefixed[0] : undefined;
}

/** "did you mean X? " or nothing. */
export function didYouMean(word: string, candidates: readonly string[]): string {
  const s = suggest(word, candidates);
  return s === undefined ? '' : `did you mean ${s}? `;
}

/**
 * node:util parseArgs in strict mode, with its errors turned into one-line UsageErrors that name
 * the flag, suggest the flag a typo meant, and point at the command's --help (its own messages
 * span lines and talk about positionals). `numeric` names flags whose values are numbers, so
 * `--seed -5` says what is wrong with -5 instead of calling it ambiguous.
 */
export function parseFlags<O extends Options>(command: string, argv: string[], options: O, o: { positionals?: boolean; numeric?: (flag: string) => string | undefined } = {}) {
  try {
    return parseArgs({ args: argv, options, strict: true, allowPositionals: o.positionals ?? false });
  } catch (error) {
    const { code, message } = error as { code?: string; message: string };
    const quoted = /'([^' ]*)/.exec(message)?.[1] ?? '';
    const hint = `see 'dss-conformance ${command} --help'`;
    if (code === 'ERR_PARSE_ARGS_UNKNOWN_OPTION') {
      const name = quoted.replace(/=.*$/, '');
      const flags = Object.entries(options).flatMap(([long, spec]) => [`--${long}`, ...(spec.short ? [`-${spec.short}`] : [])]);
      throw new UsageError(`unknown flag ${name} (${didYouMean(name, flags)}${hint})`);
    }
    if (code === 'ERR_PARSE_ARGS_UNEXPECTED_POSITIONAL') throw new UsageError(`unexpected argument '${quoted}' (${hint})`);
    if (/argument is ambiguous/.test(message)) {
      // A value starting with '-': a negative number, or a key that happens to start with a dash.
      const value = argv[argv.indexOf(quoted) + 1] ?? '';
      const numeric = o.numeric?.(quoted.slice(2));
      if (numeric && /^-\d/.test(value)) throw new UsageError(`${quoted} ${numeric}, got ${value}`);
      if (/^--[a-z]/i.test(value)) throw new UsageError(`${quoted} needs a value, and ${value} is taken as the next flag; a value that starts with '-' is written ${quoted}=-VALUE`);
      throw new UsageError(`${quoted}: a value that starts with '-' is written ${quoted}=-VALUE`);
    }
    if (/argument missing/.test(message)) throw new UsageError(`${quoted} needs a value (${hint})`);
    if (/does not take an argument/.test(message)) throw new UsageError(`${quoted} takes no value (${hint})`);
    throw new UsageError(`${message.split('\n')[0]} (${hint})`);
  }
}
