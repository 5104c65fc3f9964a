/**
 * Every answer of the API shown as the API gave it: a field's error next to the field, the rest in a notice
 * that says what happened and what to do (402: the limit and the plan that lifts it; 403: the role needed;
 * 429: when to retry), with the request id to quote.
 */
import { ApiError } from '../api';
import { Link } from '../router';
import { clockTime, waitInWords } from './time';

export interface Problem {
  status: number | null;
  title: string;
  /** The API's own message, whole. */
  detail: string;
  /** Messages about named fields of the request (`name: must not be empty` → `{name: 'must not be empty'}`). */
  fields: Record<string, string>;
  requestId: string | null;
  retryAfter: number | null;
}

const TITLES: Record<number, string> = {
  400: 'Check what was entered',
  401: 'Signed out',
  402: 'Plan limit reached',
  403: 'Not allowed',
  404: 'Not found',
  409: 'Conflict',
  413: 'Too large',
  422: 'Not processed',
  429: 'Too many requests',
  502: 'An upstream did not answer',
  503: 'Unavailable for now',
};

/**
 * The fields a 400 names: the API describes each issue as `path: message`, joined by `; ` (a body field's
 * path is its name, nested ones dotted).
 */
export function fieldMessages(message: string): Record<string, string> {
  const fields: Record<string, string> = {};
  for (const part of message.split('; ')) {
    const [, path, text] = /^([a-z_][\w.]*): (.+)$/i.exec(part) ?? [];
    if (path === undefined || text === undefined || ['body', 'query', 'path', 'headers'].includes(path)) continue;
    const [field = path] = path.split('.');
    fields[field] ??= text;
  }
  return fields;
}

export function problemOf(error: unknown): Problem {
  if (error instanceof ApiError) {
    return {
      status: error.status,
      title: TITLES[error.status] ?? (error.status >= 500 ? 'The server had a problem' : `Error ${error.status}`),
      detail: error.message,
      fields: error.status === 400 ? fieldMessages(error.message) : {},
      requestId: error.requestId,
      retryAfter: error.retryAfter,
    };
  }
  const detail = error instanceof Error ? error.message : String(error);
  return { status: null, title: 'No answer from the server', detail, fields: {}, requestId: null, retryAfter: null };
}

/** The notice of an error (nothing when there is none). */
export function ErrorNotice({ error }: { error: unknown }) {
  if (!error) return null;
  const problem = problemOf(error);
  return (
    <div className="notice error" role="alert">
      <strong>{problem.title}</strong>
      <p>{problem.detail}</p>
      {problem.status === 402 && !/contact support/.test(problem.detail) && (
        <p>
          <Link to="/billing">See plans and upgrade</Link>
        </p>
      )}
      {problem.status === 429 && problem.retryAfter !== null && (
        <p>
          Try again in {waitInWords(problem.retryAfter)}
          {problem.retryAfter >= 60 && `, from ${clockTime(new Date(Date.now() + problem.retryAfter * 1000))}`}.
        </p>
      )}
      {problem.requestId && <p className="muted small">Request id {problem.requestId}</p>}
    </div>
  );
}
