import type { Fault } from './fault.ts';

// Faults that stand for mutants of the reference's webhook delivery (delivery.ts, runs.ts) which
// `npm run mutation` found the suite letting through; each is caught by the check added for it.

export const mutationWebhookFaults: readonly Fault[] = [
  {
    name: 'capture-off-run-fails',
    breaks: ['WH-022'],
    description: 'With capture off, a run ends failed after its first batch although the receiver answered 200: the log step trips over the missing log (the mutant log?.push -> log.push of delivery.ts)',
    apply: ({ config }) => {
      const capture = config.delivery.capture;
      config.delivery.capture = (log, exchange) => {
        if (log === null) throw new TypeError('there is no capture log to add the exchange to');
        capture(log, exchange);
      };
    },
  },
];
