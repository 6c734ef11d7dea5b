import type { KindName } from '../profile/profile.ts';
import { api, connectionBody, profile, Unmet } from './context.ts';

// "Read again later" means after other activity on the target, never after a wall-clock wait
// (nothing may depend on timing): an outcome that changes only once something else was written
// (a cache evicted by another resource's write, a store compacted on a creation) shows only then.

/** The kinds tried for the creation, cheapest first (no source to discover, no secret to keep). */
const CREATION_KINDS: readonly KindName[] = ['marketing', 'crm', 'webhook', 'objectStore', 'relationalDatabase'];

/**
 * A write to another resource's error handling: a path, written {} (PUT Rules 3 makes it valid and
 * Rules 1 leaves every field as it was), or a path and a body that changes that resource (one the
 * run owns, whose settings no check judges meanwhile).
 */
export type OtherWrite = string | { path: string; body: Record<string, unknown> };

/**
 * One creation the run owns (a connection of the first kind the profile configures), and each
 * write of `otherWrites`. Their answers are not judged here: each is its own check's; what they
 * did is what the read after them must outlast.
 */
export async function otherActivity(otherWrites: readonly OtherWrite[] = []): Promise<string[]> {
  const done: string[] = [];
  for (const kind of CREATION_KINDS) {
    if (!profile().kinds?.[kind]?.configuration) continue;
    try {
      const res = await api().post('/api/connections', connectionBody(kind));
      done.push(`a ${kind} connection created (${res.status})`);
      break;
    } catch (error) {
      if (!(error instanceof Unmet)) throw error;
    }
  }
  for (const write of otherWrites) {
    const { path, body } = typeof write === 'string' ? { path: write, body: {} } : write;
    const res = await api().put(path, body);
    done.push(`PUT ${JSON.stringify(body)} to ${path} (${res.status})`);
  }
  return done;
}
