import { existsSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { areasOf, moduleName, modulePath, REASONS, readTriage, TRIAGE_FILE, triageProblems } from '../../bench/mutation-modules.ts';

// The triage file explains every mutant the suite lets through (npm run mutation); it is read, not
// re-measured, here: running Stryker takes far too long for npm test.
describe('bench/mutation-triage.json', () => {
  it('is well-formed: every entry names a known module, a place in it, the mutant, and a reason from the fixed list', () => {
    const parsed = JSON.parse(readFileSync(TRIAGE_FILE, 'utf8')) as unknown;
    expect(triageProblems(parsed)).toEqual([]);
    for (const entry of readTriage()) {
      const name = moduleName(entry.module);
      expect(areasOf(name), entry.module).toBeDefined();
      expect(REASONS).toContain(entry.reason);
      expect(entry.why.trim(), `${entry.module}:${entry.line} says why`).not.toBe('');
      const path = modulePath(name);
      expect(existsSync(path), path).toBe(true);
      expect(entry.line, `${path} has line ${entry.line}`).toBeLessThanOrEqual(readFileSync(path, 'utf8').split('\n').length);
    }
  });

  it('refuses entries without a module, a known reason, or (to-kill) the way to kill them', () => {
    const good = { module: 'auth', line: 1, column: 1, mutator: 'StringLiteral', original: "'x'", replacement: '""', reason: 'equivalent', why: 'the same' };
    expect(triageProblems({ mutants: [good] })).toEqual([]);
    expect(triageProblems([])).toEqual(['the file must be {"mutants": [...]}']);
    expect(triageProblems({ mutants: [{ ...good, module: 'faults/no-auth' }] })[0]).toMatch(/module/);
    expect(triageProblems({ mutants: [{ ...good, reason: 'boring' }] })[0]).toMatch(/reason must be one of/);
    expect(triageProblems({ mutants: [{ ...good, reason: 'to-kill' }] })[0]).toMatch(/"kill"/);
    expect(triageProblems({ mutants: [{ ...good, line: 0 }] })[0]).toMatch(/line/);
    expect(triageProblems({ mutants: [good, { ...good, module: 'src/reference/auth.ts' }] })[0]).toMatch(/twice/);
  });
});
