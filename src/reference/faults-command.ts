import { EXIT } from '../cli-errors.ts';
import { parseFlags } from './cli-flags.ts';
import { receiverBenignCatalogue, receiverFaultCatalogue } from '../reference-receiver/index.ts';
import { faultCatalogue, variantCatalogue } from './faults.ts';

const HELP = `usage: dss-conformance faults [--receiver] [--json]

Lists the faults the reference can inject (dss-conformance serve --fault NAME, run --fault NAME):
each one's name, the requirement IDs whose checks it must make fail, and what it does; then the
benign variants (run --variant NAME, serve --fault NAME): conforming-but-unusual behaviour under
which every check must pass.

flags:
  --receiver   The reference receiver's instead (dss-conformance receiver --fault NAME, --variant NAME).
  --json       Print the list as a JSON array of {name, breaks, description}.
  --help, -h   Print this help and exit.`;

export async function faultsCommand(argv: string[]): Promise<number> {
  const flags = parseFlags('faults', argv, { json: { type: 'boolean' }, receiver: { type: 'boolean' }, help: { type: 'boolean', short: 'h' } } as const);
  if (flags.help) {
    process.stdout.write(HELP + '\n');
    return EXIT.ok;
  }
  const catalogue = flags.receiver ? receiverFaultCatalogue() : faultCatalogue();
  if (flags.json) {
    process.stdout.write(JSON.stringify(catalogue, null, 2) + '\n');
    return EXIT.ok;
  }
  const width = Math.max(...catalogue.map((fault) => fault.name.length));
  const text = catalogue.map((fault) => `${fault.name.padEnd(width)}  breaks ${fault.breaks.join(', ')}\n${' '.repeat(width + 2)}${fault.description}`);
  const variants = (flags.receiver ? receiverBenignCatalogue() : variantCatalogue()).map((v) => `${v.name.padEnd(width)}  ${v.description}`);
  process.stdout.write(text.join('\n') + `\n\nbenign variants (the ${flags.receiver ? 'receiver checks' : 'suite'} must pass under each):\n` + variants.join('\n') + '\n');
  return EXIT.ok;
}
