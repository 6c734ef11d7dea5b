// "ISO 8601 UTC timestamp" (Spec › Delivery request: Service-Signature-Timestamp), read as ISO 8601
// writes it, not as RFC 3339's narrower profile of it: a date and a time of day in the basic or the
// extended format (never mixed), the date as a calendar, ordinal or week date, the time to the
// second, minute or hour, with a decimal fraction of its last part after a comma or a full stop
// (ISO 8601 prefers the comma), and the UTC designator Z or a zero offset (+00:00, +0000, +00).
// -00:00 is RFC 3339's "offset unknown", not UTC. Kept from the reading before this one, which
// the spec's words may not grant (README › Interpretations): a lower-case t or z, and a space for T in the
// extended format (RFC 3339 §5.6 note).

const DAY_MS = 86_400_000;

const EXTENDED = /^(\d{4})-(?:(\d{2})-(\d{2})|(\d{3})|W(\d{2})-([1-7]))[Tt ](\d{2})(?::(\d{2})(?::(\d{2}))?)?(?:[.,](\d+))?([Zz]|\+00(?::00)?)$/;
const BASIC = /^(\d{4})(?:(\d{2})(\d{2})|(\d{3})|W(\d{2})([1-7]))[Tt](\d{2})(?:(\d{2})(\d{2})?)?(?:[.,](\d+))?([Zz]|\+00(?:00)?)$/;

const isLeap = (y: number) => (y % 4 === 0 && y % 100 !== 0) || y % 400 === 0;

/** Midnight UTC of the Monday of ISO week 1: the week that holds 4 January. */
function weekOneMonday(year: number): number {
  const jan4 = Date.UTC(year, 0, 4);
  const weekday = (new Date(jan4).getUTCDay() + 6) % 7; // Monday 0
  return jan4 - weekday * DAY_MS;
}

/** Midnight UTC of the date, or undefined when no such day exists. */
function dateMs(y: number, month?: string, day?: string, ordinal?: string, week?: string, weekday?: string): number | undefined {
  if (month !== undefined) {
    const m = Number(month);
    const d = Number(day);
    const days = [31, isLeap(y) ? 29 : 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31][m - 1];
    return days !== undefined && d >= 1 && d <= days ? Date.UTC(y, m - 1, d) : undefined;
  }
  if (ordinal !== undefined) {
    const n = Number(ordinal);
    return n >= 1 && n <= (isLeap(y) ? 366 : 365) ? Date.UTC(y, 0, 1) + (n - 1) * DAY_MS : undefined;
  }
  const w = Number(week);
  const weeks = (weekOneMonday(y + 1) - weekOneMonday(y)) / (7 * DAY_MS);
  return w >= 1 && w <= weeks ? weekOneMonday(y) + ((w - 1) * 7 + Number(weekday) - 1) * DAY_MS : undefined;
}

/** The time of day in ms, or undefined when out of range (24:00 only as the end of a day, second 60 only at 23:59). */
function timeMs(hh: string, mm: string | undefined, ss: string | undefined, fraction: string | undefined): number | undefined {
  const [h, m, s] = [Number(hh), Number(mm ?? 0), Number(ss ?? 0)];
  const f = fraction === undefined ? 0 : Number(`0.${fraction}`);
  if (h > 24 || m > 59 || s > 60) return undefined;
  if (h === 24 && (m > 0 || s > 0 || f > 0)) return undefined;
  if (s === 60 && (h !== 23 || m !== 59)) return undefined;
  const unit = ss !== undefined ? 1000 : mm !== undefined ? 60_000 : 3_600_000;
  return h * 3_600_000 + m * 60_000 + s * 1000 + f * unit;
}

/** The instant an ISO 8601 UTC timestamp names, in ms since the epoch; undefined when the text is not one. */
export function parseIsoUtc(text: string): number | undefined {
  const match = EXTENDED.exec(text) ?? BASIC.exec(text);
  if (!match) return undefined;
  const [, year, month, day, ordinal, week, weekday, hh, mm, ss, fraction] = match;
  const date = dateMs(Number(year), month, day, ordinal, week, weekday);
  const time = timeMs(hh!, mm, ss, fraction);
  return date === undefined || time === undefined ? undefined : date + time;
}

export const isIsoUtc = (text: string): boolean => parseIsoUtc(text) !== undefined;
