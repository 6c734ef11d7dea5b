// Text from the target (error messages, delivery paths, reasons) reaches a person's terminal and a
// CI log. Escape sequences there can rewrite the screen, and lines a CI runner reads as commands
// (GitHub's ::error::, Azure's ##vso[) would let the target annotate or reconfigure the job.

const CONTROL = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/g;

function escapeChar(c: string): string {
  const code = c.codePointAt(0)!;
  return code <= 0xff ? `\\x${code.toString(16).padStart(2, '0')}` : `\\u${code.toString(16).padStart(4, '0')}`;
}

/** A line a CI runner would take as a command gets a visible prefix, so it no longer starts the line. */
export function ciSafeLine(line: string): string {
  return /^\s*(::|##vso\[|##\[)/.test(line) ? `| ${line}` : line;
}

/** Control characters other than newline and tab become visible escapes; command lines are neutralised. */
export function consoleSafe(text: string): string {
  return text.replace(CONTROL, escapeChar).split('\n').map(ciSafeLine).join('\n');
}
