// The messages between src/runner/kept-pool.ts and its thread (src/runner/kept-thread.ts),
// besides vitest's own: they carry this key, which vitest's messages never do.
export const KEPT = '__dsscKeptThread';

export type KeptMessage =
  | { [KEPT]: 'env'; env: Partial<NodeJS.ProcessEnv> }
  | { [KEPT]: 'leaks' }
  | { [KEPT]: 'leaks'; leaked: string[] };
