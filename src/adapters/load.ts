import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { UsageError } from '../cli-errors.ts';
import { ADAPTER_METHODS, SOURCE_METHOD_SETS, type AdapterContext, type AdapterFactory, type TargetAdapter } from './types.ts';
import { loadReferenceProfile } from '../profile/profile.ts';
import { declarativeAdapter } from './declarative.ts';
import type { DeclarativeSpec } from './declarative-spec.ts';

/** Checks an --adapter file before the run, so a broken adapter is one clear line and exit 2. */
export async function checkAdapterFile(file: string): Promise<string> {
  const path = resolve(file);
  if (!existsSync(path)) throw new UsageError(`--adapter ${file}: no such file`);
  await importFactory(path);
  return path;
}

async function importFactory(path: string): Promise<AdapterFactory> {
  let module: Record<string, unknown>;
  try {
    module = (await import(pathToFileURL(path).href)) as Record<string, unknown>;
  } catch (error) {
    throw new UsageError(`--adapter ${path}: cannot load it (${(error as Error).message.split('\n')[0]})`);
  }
  const factory = module.default ?? module.createAdapter;
  if (typeof factory !== 'function') throw new UsageError(`--adapter ${path}: export a factory function as default or as createAdapter`);
  return factory as AdapterFactory;
}

/**
 * The adapter for this run: the file's, or the built-in one, which is the declarative adapter
 * configured by the profile's adapter.declarative, else by the reference profile's (the real
 * service's shape). Missing operations of a file's adapter are named.
 */
export async function loadAdapter(path: string | undefined, context: AdapterContext, declarative?: DeclarativeSpec): Promise<TargetAdapter> {
  if (!path) {
    if (declarative) return declarativeAdapter(context, declarative, 'built-in (the profile\'s adapter.declarative)');
    return declarativeAdapter(context, loadReferenceProfile().adapter!.declarative!, 'built-in (the real service\'s shape)');
  }
  const adapter = await (await importFactory(path))(context);
  if (!adapter || typeof adapter !== 'object') throw new UsageError(`--adapter ${path}: the factory returned no adapter object`);
  const has = (m: string) => typeof (adapter as unknown as Record<string, unknown>)[m] !== 'function';
  const missing: string[] = ADAPTER_METHODS.filter(has);
  // A source is fed one way or the other: name the pair the adapter began, or both when it has neither.
  const sets = SOURCE_METHOD_SETS.map((set) => set.filter(has));
  if (!sets.some((gaps) => gaps.length === 0)) {
    const begun = sets.find((gaps, i) => gaps.length < SOURCE_METHOD_SETS[i]!.length);
    missing.push(begun ? begun.join(', ') : `${SOURCE_METHOD_SETS.map((set) => set.join(' + ')).join(' or ')}`);
  }
  if (missing.length > 0) throw new UsageError(`--adapter ${path}: missing operation(s) ${missing.join(', ')}`);
  return adapter;
}
