/** Times as a person reads them: a moment, a wait, and the clock time a wait ends (with the day when not today). */

/** A wait of `seconds` in words: `45 s`, `7 min`, `2 h 5 min` (rounded up, never shorter than it is). */
export function waitInWords(seconds: number): string {
  const s = Math.max(0, Math.ceil(seconds));
  if (s < 60) return `${s} s`;
  const minutes = Math.ceil(s / 60);
  if (minutes < 60) return `${minutes} min`;
  const rest = minutes % 60;
  return `${Math.floor(minutes / 60)} h${rest ? ` ${rest} min` : ''}`;
}

/** `10:42`, or `12 Mar, 10:42` when the time is not today, in the person's own time zone. */
export function clockTime(at: string | Date): string {
  const date = new Date(at);
  const time = date.toLocaleTimeString([], { hour: '2-digit', minute: '2-digit' });
  if (date.toDateString() === new Date().toDateString()) return time;
  return `${date.toLocaleDateString([], { day: 'numeric', month: 'short' })}, ${time}`;
}

/** `available from 10:42 (in 7 min)`'s figures: when, and how long from now (`seconds`, else from the clock). */
export function fromWhen(at: string | Date, seconds?: number): string {
  const wait = seconds ?? (new Date(at).getTime() - Date.now()) / 1000;
  return `${clockTime(at)} (in ${waitInWords(wait)})`;
}

/** A moment in the reader's time zone and language; the exact UTC instant in `dateTime` and the tooltip. */
export function Time({ at }: { at: string }) {
  return (
    <time dateTime={at} title={at}>
      {new Date(at).toLocaleString(undefined, { dateStyle: 'medium', timeStyle: 'short' })}
    </time>
  );
}
