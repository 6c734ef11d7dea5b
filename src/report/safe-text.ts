// Text from the target (error messages, delivery paths, reasons) reaches a person's terminal and a
// CI log. Escape sequences there can rewrite the screen or hide what follows, bidi controls can make
// a line read differently from what it holds, and lines a CI runner reads as commands (GitHub's
// ::error::, Azure's ##vso[) would let the target annotate, mask values in, or reconfigure the job.

/**
 * C0 controls except tab and newline (so ESC, NUL, CR), DEL, C1 (U+0080–U+009F, NEL among them),
 * the bidi embeddings, overrides and isolates (U+202A–U+202E, U+2066–U+2069), the bidi marks
 * (U+200E, U+200F, U+061C) that Trojan Source uses with them, and the Unicode line and paragraph
 * separators, which some log viewers break lines at.
 */
const UNSAFE = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]/g;

function visibleEscape(c: string): string {
  const code = c.charCodeAt(0);
  return code <= 0xff ? `\\x${code.toString(16).padStart(2, '0')}` : `\\u${code.toString(16).padStart(4, '0')}`;
}

/** Control characters other than \n and \t as visible escapes (\x1b, \u202e). */
export function escapeControls(text: string): string {
  return text.replace(UNSAFE, visibleEscape);
}

/**
 * GitHub Actions takes a line starting with `::` as a workflow command, Azure Pipelines one starting
 * with `##vso[` or `##[` (both after leading blanks). Invisible format characters count as blanks
 * here, since a runner that trims them would still see the command.
 */
const CI_COMMAND = /^[\s\u200b-\u200d\u2060\ufeff]*(?:::|##vso\[|##\[)/i;

/** One line, prefixed with a visible `| ` if a CI runner would take it as a command. */
export function ciSafeLine(line: string): string {
  return CI_COMMAND.test(line) ? `| ${line}` : line;
}

/** Target text made safe to print: controls escaped, then every line a CI command no longer. */
export function consoleSafe(text: string): string {
  return escapeControls(text).split('\n').map(ciSafeLine).join('\n');
}
