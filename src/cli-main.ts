import { EXIT, UsageError, UnreachableError } from './cli-errors.ts';
import { didYouMean } from './cli-flags.ts';

const USAGE = `usage: dss-conformance <command> [flags]

commands:
  run        run the conformance suite (default target: the embedded reference)
  serve      start the reference Data Synchronization Service
  faults     list the reference's faults and the requirement each breaks
  coverage   list requirements with their level and the checks that cover them
  baseline   write a known-failures baseline (for run --baseline) from a results.json
  merge      merge the report folders of a run's shards (run --shard I/N) into one set of reports
  cleanup    remove what killed runs left behind: source-database tables (--source-db URL), target resources (--base-url URL)
  verify     check a report folder against its results.ndjson: the digest and the verdict
  diff       compare two runs' report folders: newly failing, fixed, still failing, newly not judged
  receiver   judge a webhook receiver: send it deliveries and check its answers (default: the reference receiver)
  send       send sample sync.records deliveries to a receiver and print each answer

'dss-conformance <command> --help' (or -h, or 'dss-conformance help <command>') documents each
command's flags; run's flags can also be DSS_* variables or keys of a --config file.
'dss-conformance --version' prints the kit's version.
exit codes: 0 CONFORMANT, 1 NOT CONFORMANT, 2 usage/profile/adapter/config error, 3 target unreachable,
4 INCOMPLETE (0 with run --allow-incomplete), 70 internal error`;

type Command = (argv: string[]) => Promise<number>;

// Imported when named: a command pays only for the modules it uses.
const commands: Record<string, () => Promise<Command>> = {
  run: async () => (await import('./runner/run-command.ts')).runCommand,
  serve: async () => (await import('./reference/serve-command.ts')).serveCommand,
  faults: async () => (await import('./reference/faults-command.ts')).faultsCommand,
  coverage: async () => (await import('./runner/coverage-command.ts')).coverageCommand,
  baseline: async () => (await import('./runner/baseline-command.ts')).baselineCommand,
  merge: async () => (await import('./runner/merge-command.ts')).mergeCommand,
  cleanup: async () => (await import('./runner/cleanup-command.ts')).cleanupCommand,
  verify: async () => (await import('./runner/verify-command.ts')).verifyCommand,
  diff: async () => (await import('./runner/diff-command.ts')).diffCommand,
  receiver: async () => (await import('./receiver-conformance/receiver-command.ts')).receiverCommand,
  send: async () => (await import('./receiver-conformance/send-command.ts')).sendCommand,
};

async function main(argv: string[]): Promise<number> {
  const [name, ...rest] = argv;
  if (name === undefined || name === '--help' || name === '-h' || (name === 'help' && rest.length === 0)) {
    process.stdout.write(USAGE + '\n');
    return name === undefined ? EXIT.usage : EXIT.ok;
  }
  if (name === '--version') {
    const { kitVersion } = await import('./runner/run-events.ts');
    process.stdout.write(`dss-conformance ${kitVersion()}\n`);
    return EXIT.ok;
  }
  // 'help run' is 'run --help'.
  const [command, args] = name === 'help' && rest[0] !== undefined ? [rest[0], ['--help']] : [name, rest];
  const load = commands[command];
  if (!load) throw new UsageError(`unknown command '${command}' (${didYouMean(command, Object.keys(commands))}commands: ${Object.keys(commands).join(', ')})`);
  return (await load())(args);
}

/**
 * One command line, start to end: its exit code, errors printed as the one line a user sees. The
 * CLI (src/cli.ts) runs it once per process; the project's matrix tests run many in one process
 * (test/helpers/run-server.ts), so both get the same codes and lines.
 */
export async function cli(argv: string[]): Promise<number> {
  try {
    return await main(argv);
  } catch (error) {
    if (error instanceof UsageError || error instanceof UnreachableError) {
      process.stderr.write(`dss-conformance: ${error.message}\n`);
      return error.exitCode;
    }
    // An unexpected failure is still one line; DSSC_DEBUG=1 shows the stack for us.
    const message = error instanceof Error ? error.message : String(error);
    process.stderr.write(`dss-conformance: internal error: ${message}\n`);
    if (process.env.DSSC_DEBUG) console.error(error);
    return 70;
  }
}
