import { initServer } from '@ts-rest/express';
import { contract } from '../../../contract';
import type { ServerContext } from '../../context';
import { principalOf } from '../../http/auth';
import { nextPageHeaders } from '../../http/pages';
import { csvDownload } from '../shared/csv';
import * as service from './activity.service';
import { listChanges } from './change-feed.service';

const s = initServer();

export const activityRouter = (context: ServerContext) =>
  s.router(contract.activity, {
    listActivity: async ({ req, res, query }) => {
      const { list, next } = await service.listActivity(context.db, principalOf(req), context.now(), query);
      nextPageHeaders(req.originalUrl, res, next);
      return { status: 200, body: list };
    },
    listActivityFilters: async ({ req }) => ({
      status: 200,
      body: await service.listActivityFilters(context.db, principalOf(req), context.now()),
    }),
    exportActivity: async ({ req, res, query }) =>
      csvDownload(res, service.exportActivity(context.db, principalOf(req), context.now(), query), 'activity.csv'),
  });

export const changesRouter = (context: ServerContext) =>
  s.router(contract.changes, {
    listChanges: async ({ req, query }) => ({
      status: 200,
      body: await listChanges(context.db, principalOf(req), context.now(), query),
    }),
  });
