// The template language of a declarative adapter (README › Target profile › A declarative
// adapter). Kept small on purpose: a profile author reads it in one paragraph, and every variable
// is checked when the profile is loaded, so a typo is a one-line profile error, not a failed run.
//
//   "{{x.y}}"              exactly one placeholder: the value with its own type (number, object, ...)
//   "a {{x}} b"            placeholders inside text: interpolated as text (URL-encoded in a path)
//   undefined value        removes the key (or the array element): optional settings disappear
//   {"$each": "fields", "as": "field", "value": T}   T for each element of a list, bound to `field`

/** What a variable holds: a value, an object of named parts, or a list whose elements have a shape. */
export type Shape = 'value' | { readonly [part: string]: Shape } | readonly [Shape];

export type Variables = Readonly<Record<string, unknown>>;

const PLACEHOLDER = /\{\{(.*?)\}\}/g;
const EXACT = /^\{\{\s*([A-Za-z_]\w*(?:\.\w+)*)\s*\}\}$/;
const NAME = /^\s*([A-Za-z_]\w*(?:\.\w+)*)\s*$/;

function isEach(value: object): value is { $each: unknown; as?: unknown; value?: unknown } {
  return '$each' in value;
}

/** The shape at a dotted name in a scope, or undefined when the name is not a variable. */
function shapeAt(scope: Readonly<Record<string, Shape>>, name: string): Shape | undefined {
  const [root, ...parts] = name.split('.');
  let shape: Shape | undefined = scope[root!];
  for (const part of parts) {
    if (shape === undefined || shape === 'value' || Array.isArray(shape)) return undefined;
    shape = (shape as Record<string, Shape>)[part];
  }
  return shape;
}

function known(scope: Readonly<Record<string, Shape>>): string {
  return Object.keys(scope).sort().join(', ');
}

/**
 * The first problem of a template in a scope of variables, as "<where>: <what>", or undefined.
 * `at` is the JSON pointer of the template in the profile, so the message points at it.
 */
export function checkTemplate(template: unknown, scope: Readonly<Record<string, Shape>>, at: string): string | undefined {
  if (typeof template === 'string') {
    for (const match of template.matchAll(PLACEHOLDER)) {
      const name = NAME.exec(match[1]!)?.[1];
      if (!name) return `${at}: ${JSON.stringify(match[0])} is not a variable name`;
      if (shapeAt(scope, name) === undefined) return `${at}: unknown variable {{${name}}} (known here: ${known(scope)})`;
    }
    return undefined;
  }
  if (Array.isArray(template)) {
    for (const [i, item] of template.entries()) {
      const problem = checkTemplate(item, scope, `${at}/${i}`);
      if (problem) return problem;
    }
    return undefined;
  }
  if (template && typeof template === 'object') {
    if (isEach(template)) {
      const extra = Object.keys(template).filter((k) => !['$each', 'as', 'value'].includes(k));
      if (extra.length > 0 || typeof template.as !== 'string' || !/^[A-Za-z_]\w*$/.test(template.as) || !('value' in template)) {
        return `${at}: a $each takes exactly "$each" (a list variable), "as" (a name) and "value" (a template)`;
      }
      const list = typeof template.$each === 'string' ? shapeAt(scope, template.$each) : undefined;
      if (!Array.isArray(list)) return `${at}/$each: ${JSON.stringify(template.$each)} is not a list variable (known here: ${known(scope)})`;
      return checkTemplate(template.value, { ...scope, [template.as]: list[0] as Shape }, `${at}/value`);
    }
    for (const [k, v] of Object.entries(template)) {
      const problem = checkTemplate(v, scope, `${at}/${k.replace(/~/g, '~0').replace(/\//g, '~1')}`);
      if (problem) return problem;
    }
  }
  return undefined;
}

function valueAt(vars: Variables, name: string): unknown {
  let cur: unknown = vars;
  for (const part of name.split('.')) {
    if (cur === null || typeof cur !== 'object') return undefined;
    cur = (cur as Record<string, unknown>)[part];
  }
  return cur;
}

function asText(value: unknown, name: string, what: string): string {
  if (value === undefined) throw new Error(`${what}: {{${name}}} has no value here`);
  return typeof value === 'string' ? value : typeof value === 'number' || typeof value === 'boolean' || value === null ? String(value) : JSON.stringify(value);
}

/** Text with its placeholders filled in; `encode` is applied to each value (encodeURIComponent in a path). */
export function interpolate(text: string, vars: Variables, what: string, encode: (s: string) => string = (s) => s): string {
  return text.replace(PLACEHOLDER, (_m, inner: string) => {
    const name = NAME.exec(inner)?.[1] ?? inner;
    return encode(asText(valueAt(vars, name), name, what));
  });
}

/** A template filled in; undefined when it stands for an undefined value (its key is then left out). */
export function render(template: unknown, vars: Variables, what: string): unknown {
  if (typeof template === 'string') {
    const exact = EXACT.exec(template);
    return exact ? valueAt(vars, exact[1]!) : interpolate(template, vars, what);
  }
  if (Array.isArray(template)) return template.map((t) => render(t, vars, what)).filter((v) => v !== undefined);
  if (template && typeof template === 'object') {
    if (isEach(template)) {
      const list = valueAt(vars, String(template.$each));
      if (!Array.isArray(list)) throw new Error(`${what}: {{${String(template.$each)}}} is not a list here`);
      return list.map((item) => render(template.value, { ...vars, [String(template.as)]: item }, what)).filter((v) => v !== undefined);
    }
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(template)) {
      const filled = render(v, vars, what);
      if (filled !== undefined) out[k] = filled;
    }
    return out;
  }
  return template;
}
