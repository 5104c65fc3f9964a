/** A moment in the reader's time zone and language; the exact UTC instant in `dateTime` and the tooltip. */
export function Time({ at }: { at: string }) {
  return (
    <time dateTime={at} title={at}>
      {new Date(at).toLocaleString(undefined, { dateStyle: 'medium', timeStyle: 'short' })}
    </time>
  );
}
