import type { ParseArgsConfig } from 'node:util';
import { parseFlags as parseCommandFlags } from '../cli-flags.ts';

type Options = NonNullable<ParseArgsConfig['options']>;

/** The flags of a command without positionals (serve, faults): one-line errors with a did-you-mean. */
export function parseFlags<O extends Options>(command: string, argv: string[], options: O) {
  return parseCommandFlags(command, argv, options, { numeric: (flag) => (flag === 'port' || flag === 'schema-cache-delay-ms' ? 'must be a whole number, not negative' : undefined) }).values;
}
