/**
 * The unit of work of every write: a service declares what its change needs, and this runs it with what
 * every change carries: its activity entries and their webhook events (the outbox), and, for a request with
 * an Idempotency-Key, its answer, all in one transaction. A service therefore knows nothing of pipelines,
 * outboxes or idempotency keys.
 */
import type { Db } from '../../db/connection';
import { pipeline, type Results, type Step, type Steps, transaction } from '../../db/pipeline';
import { type ActivityRecord, type Actor, activitySteps } from '../activity/activity.service';
import { answered, keepAnswer } from '../idempotency/idempotency.service';

/** The names of a change's own statements: any but those the unit adds. */
type ChangeSteps = Steps & { locks?: never; activity?: never };

/** A change whose statements need nothing read before them: sent at once (one round trip, one commit). */
export interface Change<S extends ChangeSteps, T> {
  /** The locks it takes first, in the order every write takes them (the organisation's row, then spaces). */
  locks: readonly Step<unknown>[];
  /** Its statements, by name: guarded writes, each followed by the check that fails the change when it refused. */
  steps: S;
  /**
   * The activity entries it makes; with `onlyExisting`, only those whose object the steps created (a write
   * given more ids than it may use).
   */
  activity: ActivityRecord[];
  onlyExisting?: 'addresses';
  /** The request's answer, made of the steps' named results. */
  answer: (results: Results<S>) => T;
}

/** Runs the change: its locks, its steps, its activity and events, and its answer, in one transaction. */
export async function commitChange<const S extends ChangeSteps, T>(db: Db, caller: Actor, change: Change<S, T>) {
  const activity = await activitySteps(db, caller, change.activity, change.onlyExisting);
  return pipeline(db, { locks: change.locks, ...change.steps, activity }, answered(change.answer));
}

/**
 * Runs `work`, a change whose statements depend on what it reads, in a transaction (`work` logs its activity
 * with the activity module); what it returns is the request's answer, kept with the change.
 */
export const commitTransaction = <T>(db: Db, work: (tx: Db) => Promise<T>): Promise<T> =>
  transaction(db, async (tx) => keepAnswer(tx, await work(tx)));
