/**
 * The unit of work of every write: a service declares what its change needs, and this runs it with what
 * every change carries: its activity entries and their webhook events (the outbox), and, for a request with
 * an Idempotency-Key, its answer, all in one transaction. A service therefore knows nothing of pipelines,
 * outboxes or idempotency keys.
 */
import { AsyncLocalStorage } from 'node:async_hooks';
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

/** Whether the request is a dry run (`?dry_run=true`): its changes are made, answered, and rolled back. */
const dry = new AsyncLocalStorage<true>();

/** Runs `handle` (a request's handling) as a dry run: every change it commits is rolled back instead. */
export const asDryRun = <T>(handle: () => T): T => dry.run(true, handle);

/** Whether the current request is a dry run: what it would remember for the next request (hints) it leaves. */
export const isDryRun = () => dry.getStore() === true;

/** Thrown at the end of a dry run's transaction, which rolls it back; `rolledBack` answers what it carried. */
class DryRunDone {
  constructor(readonly answer: unknown) {}
}

/** `work` in a transaction that is rolled back once it has answered: its answer, nothing written. */
async function rolledBack<T>(db: Db, work: (tx: Db) => Promise<T>): Promise<T> {
  try {
    await transaction(db, async (tx) => {
      throw new DryRunDone(await work(tx));
    });
  } catch (error) {
    if (error instanceof DryRunDone) return error.answer as T;
    throw error;
  }
  throw new Error('a dry run’s transaction ended without its answer');
}

/**
 * Runs the change: its locks, its steps, its activity and events, and its answer, in one transaction. A dry
 * run sends the same statements in a transaction it rolls back, and keeps no answer.
 */
export async function commitChange<const S extends ChangeSteps, T>(db: Db, caller: Actor, change: Change<S, T>) {
  const activity = await activitySteps(db, caller, change.activity, change.onlyExisting);
  const steps = { locks: change.locks, ...change.steps, activity };
  if (isDryRun()) return rolledBack(db, (tx) => pipeline(tx, steps, { value: change.answer }));
  return pipeline(db, steps, answered(change.answer));
}

/**
 * Runs `work`, a change whose statements depend on what it reads, in a transaction (`work` logs its activity
 * with the activity module); what it returns is the request's answer, kept with the change. A dry run rolls
 * the transaction back once `work` has answered.
 */
export const commitTransaction = <T>(db: Db, work: (tx: Db) => Promise<T>): Promise<T> =>
  isDryRun() ? rolledBack(db, work) : transaction(db, async (tx) => keepAnswer(tx, await work(tx)));
