// WH-009 against a declared product name (profile webhooks.productName). The spec says 'Service
// name followed by a release label': the product syntax of RFC 9110 §10.1.5 (product = token
// ["/" product-version]) tells the service's product from the comments and products after it, and
// the declaration tells the service's name from an HTTP library's (Go-http-client/1.1, undici).

const TOKEN = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+/;

/** The name of the first product of a User-Agent value, if it starts with one. */
export function firstProduct(value: string): string | undefined {
  return TOKEN.exec(value)?.[0];
}

/**
 * Whether the first product is the declared name. Case is not compared: the spec names the service,
 * not a spelling, and RFC 9110 gives product tokens no case rule of their own.
 */
export function productProblem(value: string, declared: string): string | undefined {
  const first = firstProduct(value);
  if (first !== undefined && first.toLowerCase() === declared.toLowerCase()) return undefined;
  return `User-Agent ${JSON.stringify(value)}: its first product is ${first === undefined ? 'missing' : JSON.stringify(first)}, the profile declares the service's product name ${JSON.stringify(declared)}`;
}
