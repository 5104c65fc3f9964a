import { z } from 'zod';
import type { RouteMeta } from './meta';

/** Route metadata of a write that takes `?dry_run=true` (`RouteMeta.dryRun`). */
export const dryRunnable = <const M extends RouteMeta>(meta: M) => ({ ...meta, dryRun: true as const });

/** The query of a write that takes a dry run. */
export const DryRunQuery = z
  .object({
    dry_run: z
      .enum(['true', 'false'])
      .optional()
      .describe(
        '`true`: answer what the call would do, as it would answer it (the same checks, errors and limits), and ' +
          'change nothing: no write, no activity entry, no event, no Idempotency-Key kept. New ids are made ' +
          'afresh by the real call.',
      ),
  })
  .strict();
