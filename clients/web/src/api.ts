/**
 * The console's one client of the API: the project's SDK (clients/typescript), typed from the contract, on
 * the signed-in session. The cookie goes with every same-origin request; writes carry the CSRF header the
 * API asks of a session. No key or token is ever kept in the browser.
 */
import { ApiError, createClient } from '../../typescript/src/index';

export { ApiError };

export const api = createClient({
  baseUrl: window.location.origin,
  headers: { 'X-Requested-With': 'XMLHttpRequest' },
  // A person is waiting and can try again: every answer is shown as it came (a 429 with when to retry), and
  // nothing is sent twice behind their back (a failed test ping retried would be a second ping).
  maxRetries: 0,
});

/** Whether an error is the API saying the session is gone (signed out, expired, account deleted). */
export const isSignedOut = (error: unknown) => error instanceof ApiError && error.status === 401;
