// Profile templates: {{name}}, {{connectionId}}, {{webhookUrl}}, and the kit's source database
// ({{sourceDb.hostname}}, {{sourceDb.port}}, {{sourceDb.database}}, {{sourceDb.username}},
// {{sourceDb.password}}, {{sourceDb.ssl}}, {{sourceDb.schema}}, {{tablePrefix}}), so a profile can
// point a relational-database kind at the tables the kit creates there.

export type TemplateValue = string | number | boolean;

const PLACEHOLDER = /\{\{([\w.]+)\}\}/g;
const WHOLE = /^\{\{([\w.]+)\}\}$/;

/**
 * Replaces every known placeholder; unknown ones stay as written. A string that is exactly one
 * placeholder takes the value itself, with its type ("{{sourceDb.port}}" becomes 5432, a number).
 */
export function fillPlaceholders<T>(template: T, values: Readonly<Record<string, TemplateValue>>): T {
  const walk = (v: unknown): unknown => {
    if (typeof v === 'string') {
      const whole = WHOLE.exec(v)?.[1];
      if (whole !== undefined && Object.hasOwn(values, whole)) return values[whole];
      return v.replace(PLACEHOLDER, (m, key: string) => (Object.hasOwn(values, key) ? String(values[key]) : m));
    }
    if (Array.isArray(v)) return v.map(walk);
    if (v && typeof v === 'object') return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, walk(x)]));
    return v;
  };
  return walk(template) as T;
}

/** Whether a template names the kit's source database (so the run needs one). */
export function namesSourceDb(template: unknown): boolean {
  return /\{\{(sourceDb\.\w+|tablePrefix)\}\}/.test(JSON.stringify(template ?? null));
}
