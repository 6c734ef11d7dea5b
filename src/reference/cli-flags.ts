import { parseArgs, type ParseArgsConfig } from 'node:util';
import { UsageError } from '../cli-errors.ts';

type Options = NonNullable<ParseArgsConfig['options']>;

/**
 * node:util parseArgs in strict mode, with its errors turned into one-line UsageErrors that
 * point at the command's --help (its own messages are long and mention positionals).
 */
export function parseFlags<O extends Options>(command: string, argv: string[], options: O) {
  try {
    return parseArgs({ args: argv, options, strict: true, allowPositionals: false }).values;
  } catch (error) {
    const { code, message } = error as { code?: string; message: string };
    const quoted = /'([^']*)'/.exec(message)?.[1] ?? '';
    const hint = `see 'dss-conformance ${command} --help'`;
    if (code === 'ERR_PARSE_ARGS_UNKNOWN_OPTION') throw new UsageError(`unknown flag ${quoted} (${hint})`);
    if (code === 'ERR_PARSE_ARGS_UNEXPECTED_POSITIONAL') throw new UsageError(`unexpected argument '${quoted}' (${hint})`);
    throw new UsageError(`${message.split('\n')[0]} (${hint})`);
  }
}
