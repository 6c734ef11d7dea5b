import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect, test } from 'vitest';
import { readJsonFile } from '../../src/cli-errors.ts';

// A file named where JSON is expected (--profile, --baseline, a report's results.json) that is not
// JSON: the line says so and where, but never quotes its text, which may be the key itself (a .env
// or a key file given by mistake).

test('a file that is not JSON is named without quoting its text', () => {
  const dir = mkdtempSync(join(tmpdir(), 'dssc-json-'));
  for (const text of ['sk0123', 'DSS_API_KEY=sk_live_0123456789abcdefghij\n', '{"apiKey": sk_live_0123456789}']) {
    const file = join(dir, 'p.json');
    writeFileSync(file, text);
    let message = '';
    try {
      readJsonFile(file, `--profile ${file}`);
    } catch (error) {
      message = (error as Error).message;
    }
    expect(message).toMatch(/^--profile .*p\.json: not JSON \(Unexpected token '.'\)$/);
    expect(message).not.toMatch(/sk0123|sk_live|DSS_API/);
  }
});
