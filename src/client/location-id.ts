/**
 * The id a 2xx creation answer gives in Location (RFC 9110 §10.2.2: the URI of the new resource):
 * its last path segment, percent-decoded; undefined when there is none. The spec does not show the
 * creation bodies, so a target may name a new resource this way instead of in the body.
 */
export function idFromLocation(status: number, headers: Record<string, string>): string | undefined {
  const location = headers.location;
  if (status < 200 || status >= 300 || !location) return undefined;
  try {
    const segment = new URL(location, 'http://target.invalid/').pathname.split('/').filter(Boolean).at(-1);
    return segment === undefined ? undefined : decodeURIComponent(segment);
  } catch {
    return undefined; // not a URL, or a malformed escape: no id there
  }
}
