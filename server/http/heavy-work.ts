import type { AppRoute } from '@ts-rest/core';
import type { Request, RequestHandler, Response } from 'express';
import { HEAVY_PER_CALLER, routeMeta } from '../../contract/common/meta';
import { HttpError } from '../errors';

const isHeavy = (req: Request) => routeMeta(req.tsRestRoute as AppRoute).heavy === true;

/** Runs `done` once, when the answer has been sent or the client has gone (streamed answers included). */
const onEnd = (res: Response, done: () => void) => res.once('close', done);

/**
 * Bounds the heavy requests (routes whose metadata says `heavy`: exports, imports, search, free-block
 * listings, whole-organisation lists), in two steps around reading the body:
 *
 * - `perCaller`, before the body: one user may have HEAVY_PER_CALLER in flight, from the first byte to the
 *   last; one more is a 429 `too_many_concurrent` at once, so a caller who opens forty exports holds two,
 *   and slow uploads count too.
 * - `slot`, once the body is in: the process runs at most `maxRunning` heavy requests' work at once; the
 *   rest wait their turn in arrival order, so however many callers ask, the light requests (reads of one
 *   object, writes) keep the event loop and the database connections. A slow upload holds no slot.
 */
export function heavyWork(maxRunning: number): { perCaller: RequestHandler; slot: RequestHandler } {
  const inFlight = new Map<string, number>();
  let running = 0;
  const waiting: (() => void)[] = [];
  const release = () => {
    const next = waiting.shift();
    if (next) next();
    else running--;
  };

  const perCaller: RequestHandler = (req, res, next) => {
    if (!req.auth || !isHeavy(req)) return next();
    const caller = req.auth.userId;
    const mine = inFlight.get(caller) ?? 0;
    if (mine >= HEAVY_PER_CALLER) {
      return next(
        new HttpError(
          429,
          'too_many_concurrent',
          `At most ${HEAVY_PER_CALLER} exports, imports, searches or listings of this kind at once per user; ` +
            'retry when one has finished',
          { 'Retry-After': '1' },
        ),
      );
    }
    inFlight.set(caller, mine + 1);
    onEnd(res, () => {
      const left = (inFlight.get(caller) ?? 1) - 1;
      if (left === 0) inFlight.delete(caller);
      else inFlight.set(caller, left);
    });
    next();
  };

  const slot: RequestHandler = (req, res, next) => {
    if (!req.auth || !isHeavy(req)) return next();
    let state: 'waiting' | 'running' | 'gone' = 'waiting';
    const start = () => {
      if (state === 'gone') return release(); // the client left while it waited: the slot goes to the next
      state = 'running';
      next();
    };
    onEnd(res, () => {
      if (state === 'running') release();
      state = 'gone';
    });
    if (running < maxRunning) {
      running++;
      start();
    } else waiting.push(start);
  };

  return { perCaller, slot };
}
