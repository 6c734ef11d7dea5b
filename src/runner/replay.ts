import type { ResolvedFlags } from './config-resolve.ts';
import { RUN_FLAGS } from './run-flags.ts';

/** A shell word: as is when it is plain, else single-quoted (so $ and spaces stay literal). */
export function shellQuote(v: string): string {
  return /^[\w@%+=:,./-]+$/.test(v) ? v : `'${v.replace(/'/g, `'\\''`)}'`;
}

export function redactUserinfo(url: string): string {
  return url.replace(/^([a-z][a-z0-9+.-]*:\/\/)[^/@\s]*@/i, '$1[REDACTED]@');
}

export interface ReplayLines {
  /** What reproduces a check, before `--only ID [--api-version V]`: every setting but the selection. */
  check: string;
  /** What reruns the whole run: check's line plus the selection and `--api-version all`. */
  run: string;
}

/**
 * The command lines that rerun this run as printed, wherever its settings came from (flag, DSS_*
 * variable, --config file): every setting that shapes the results, with its resolved value;
 * secrets as the variable that holds them ("$DSS_API_KEY"), never their value.
 */
export function replayLines(r: ResolvedFlags, o: { embedded: boolean; seed: number }): ReplayLines {
  const check: string[] = ['npx dss-conformance run'];
  const run: string[] = [];
  const str = (name: string) => r.values[name] as string | undefined;
  for (const flag of RUN_FLAGS) {
    const value = r.values[flag.name];
    const name = flag.name;
    if (name === 'seed') check.push(`--seed ${o.seed}`);
    else if (name === 'base-url') {
      if (!o.embedded) check.push(`--base-url ${shellQuote(redactUserinfo(str(name) ?? ''))}`);
    } else if (flag.secret) {
      // The keys belong to a target given with --base-url; the source database to any run.
      if ((!o.embedded || name === 'source-db') && value !== undefined) check.push(`--${name} "$${r.sources[name]?.variable ?? `DSS_${name.toUpperCase().replace(/-/g, '_')}`}"`);
    } else if (name === 'api-version') {
      if (value !== undefined) (value === 'all' ? run : check).push(`--api-version ${shellQuote(value as string)}`);
    } else if (name === 'shard') {
      // The run's line reruns the slice; a check's line runs the check alone, in no shard.
      if (value !== undefined) run.push(`--shard ${shellQuote(value as string)}`);
    } else if (value === undefined || flag.replay === 'never' || flag.replay === 'special') {
      continue;
    } else {
      const words = typeof value === 'boolean' ? (value ? [`--${name}`] : []) : Array.isArray(value) ? (flag.replay === 'selection' ? (value.length ? [`--${name} ${shellQuote(value.join(','))}`] : []) : value.map((v) => `--${name} ${shellQuote(v)}`)) : [`--${name} ${shellQuote(value)}`];
      (flag.replay === 'selection' ? run : check).push(...words);
    }
  }
  return { check: check.join(' '), run: [...check, ...run].join(' ') };
}
