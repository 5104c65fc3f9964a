/**
 * Small pieces every page uses: the page frame, usage bars, dialogs, a secret shown once, loading states,
 * tables and the facts of a description list.
 */
import { type ReactNode, useEffect, useId, useRef, useState } from 'react';
import { ErrorNotice } from './errors';

/** A page: its heading (the document title too), actions beside it, its content. */
export function Page({ title, actions, children }: { title: string; actions?: ReactNode; children: ReactNode }) {
  useEffect(() => {
    document.title = `${title} · IPAM console`;
  }, [title]);
  return (
    <section className="page" aria-labelledby="page-title">
      <header className="page-header">
        <h1 id="page-title" tabIndex={-1}>
          {title}
        </h1>
        {actions && <div className="actions">{actions}</div>}
      </header>
      {children}
    </section>
  );
}

/**
 * A share of a whole as a bar, with its figures in words beside it (`label`: what is measured). A total may
 * be a bigint (the addresses of an IPv6 subnet): exact in words, approximate in the bar.
 */
export function UsageBar({ label, used, total }: { label: string; used: number; total: number | bigint | null }) {
  return (
    <div className="usage">
      <div className="usage-text">
        <span>{label}</span>
        <span>
          {total === null
            ? `${used.toLocaleString()} (unlimited)`
            : `${used.toLocaleString()} of ${total.toLocaleString()}`}
        </span>
      </div>
      {total !== null && (
        // The native meter: its colour turns at 70 % and 90 % of the whole.
        <meter
          aria-label={label}
          min={0}
          max={Number(total)}
          low={Number(total) * 0.7}
          high={Number(total) * 0.9}
          optimum={0}
          value={used}
        />
      )}
    </div>
  );
}

/** Loading, an error, or the content once there is data. */
export function Loaded<T>({
  query,
  children,
}: {
  query: { data: T | undefined; error: unknown; isPending: boolean };
  children: (data: T) => ReactNode;
}) {
  if (query.error) return <ErrorNotice error={query.error} />;
  if (query.isPending || query.data === undefined)
    return (
      <p className="muted" aria-live="polite">
        Loading…
      </p>
    );
  return <>{children(query.data)}</>;
}

/** A modal dialog (the native `<dialog>`: focus kept inside, Escape closes it). */
export function Dialog({
  open,
  title,
  onClose,
  children,
}: {
  open: boolean;
  title: string;
  onClose: () => void;
  children: ReactNode;
}) {
  const ref = useRef<HTMLDialogElement>(null);
  // An id of its own: a title with spaces would split into several ids in aria-labelledby.
  const titleId = useId();
  useEffect(() => {
    const dialog = ref.current;
    if (!dialog) return;
    if (open && !dialog.open) dialog.showModal();
    if (!open && dialog.open) dialog.close();
  }, [open]);
  return (
    <dialog ref={ref} aria-labelledby={titleId} onClose={onClose}>
      <h2 id={titleId}>{title}</h2>
      {open && children}
    </dialog>
  );
}

/** A secret the API shows once (an API key, a webhook secret): copy it now, it is never shown again. */
export function SecretOnce({ label, value }: { label: string; value: string }) {
  const [copied, setCopied] = useState(false);
  const copy = async () => {
    await navigator.clipboard.writeText(value);
    setCopied(true);
  };
  return (
    <section className="secret" aria-label={label}>
      <p>
        <strong>{label}</strong>: copy it now. It is shown this once and cannot be shown again.
      </p>
      <div className="secret-value">
        <code data-testid="secret">{value}</code>
        <button type="button" onClick={copy}>
          {copied ? 'Copied' : 'Copy'}
        </button>
      </div>
      <p className="sr-only" aria-live="polite">
        {copied ? 'Copied to the clipboard' : ''}
      </p>
    </section>
  );
}

/** A column heading: its text, or that with `num` (figures, right-aligned) or `hidden` (for screen readers only). */
export type Heading = string | { label: string; num?: boolean; hidden?: boolean };

/**
 * A table with its column headings (`false` leaves a column out, e.g. one for editors only) and its rows,
 * scrolling sideways by itself on a narrow screen; `caption` names it for screen readers.
 */
export function Table({
  headings,
  caption,
  className,
  children,
}: {
  headings: (Heading | false)[];
  caption?: string;
  className?: string;
  children: ReactNode;
}) {
  return (
    <div className="table-wrap">
      <table className={className}>
        {caption && <caption className="sr-only">{caption}</caption>}
        <thead>
          <tr>
            {headings
              .filter((heading) => heading !== false)
              .map((heading) => {
                const { label, num, hidden } = typeof heading === 'string' ? { label: heading } : heading;
                return (
                  <th key={label} scope="col" className={num ? 'num' : undefined}>
                    {hidden ? <span className="sr-only">{label}</span> : label}
                  </th>
                );
              })}
          </tr>
        </thead>
        <tbody>{children}</tbody>
      </table>
    </div>
  );
}

/** A term and its value in a description list (`<dl>`): a `<div>` each pair, as the styles expect. */
export function Fact({ term, children }: { term: string; children: ReactNode }) {
  return (
    <div>
      <dt>{term}</dt>
      <dd>{children}</dd>
    </div>
  );
}
