/**
 * The cap on tool requests at once, against a model: runs start in arrival order, never more than the limit
 * at once, each as soon as a slot is free, and a run that fails frees its slot like one that succeeds.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { concurrencyLimit } from '../../server/modules/tools/tools';
import { defined } from '../support/defined';

/** A run the test ends by hand. */
function deferred() {
  let end!: (fail: boolean) => void;
  const done = new Promise<void>((resolve, reject) => {
    end = (fail) => (fail ? reject(new Error('run failed')) : resolve());
  });
  return { done, end };
}

const settle = () => new Promise((resolve) => setImmediate(resolve));

describe('concurrencyLimit', () => {
  it('holds the runs past the limit until one ends, failed or not', async () => {
    const limited = concurrencyLimit(2);
    const [first, second, third, fourth] = [deferred(), deferred(), deferred(), deferred()];
    const runs = [first, second, third, fourth];
    const started: number[] = [];
    const outcomes = runs.map((run, i) =>
      limited(() => {
        started.push(i);
        return run.done;
      }).catch(() => 'failed'),
    );
    await settle();
    expect(started).toEqual([0, 1]);
    second.end(true);
    await settle();
    expect(started).toEqual([0, 1, 2]);
    expect(await outcomes[1]).toBe('failed');
    first.end(false);
    await settle();
    expect(started).toEqual([0, 1, 2, 3]);
  });

  it('agrees with a model: arrival order, at most the limit at once, no slot left idle', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.integer({ min: 1, max: 5 }),
        fc.array(fc.record({ fail: fc.boolean() }), { minLength: 1, maxLength: 30 }),
        // Which running run ends next (an index into those running, modulo their count).
        fc.array(fc.nat(), { minLength: 30, maxLength: 30 }),
        async (limit, specs, endings) => {
          const limited = concurrencyLimit(limit);
          const runs = specs.map(() => deferred());
          const started: number[] = [];
          const ended = new Set<number>();
          const all = runs.map((run, i) =>
            limited(() => {
              started.push(i);
              return run.done;
            }).catch(() => undefined),
          );
          for (let step = 0; ended.size < runs.length; step++) {
            await settle();
            const running = started.filter((i) => !ended.has(i));
            // The model: the first `limit` not yet ended have started, in order, and no more.
            expect(started).toEqual(Array.from({ length: Math.min(runs.length, ended.size + limit) }, (_, i) => i));
            expect(running.length).toBe(Math.min(limit, runs.length - ended.size));
            const ending = defined(endings[step % endings.length], 'an ending');
            const next = defined(running[ending % running.length], 'a running run');
            ended.add(next);
            defined(runs[next], 'the run').end(defined(specs[next], 'its spec').fail);
          }
          await Promise.all(all);
        },
      ),
      { numRuns: 200 },
    );
  });
});
