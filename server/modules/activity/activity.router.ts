import { initServer } from '@ts-rest/express';
import { contract } from '../../../contract';
import type { ServerContext } from '../../context';
import { principalOf } from '../../http/auth';
import { csvDownload } from '../shared/csv';
import * as service from './activity.service';

const s = initServer();

export const activityRouter = (context: ServerContext) =>
  s.router(contract.activity, {
    listActivity: async ({ req, query }) => ({
      status: 200,
      body: await service.listActivity(context.db, principalOf(req), context.now(), query),
    }),
    listActivityFilters: async ({ req }) => ({
      status: 200,
      body: await service.listActivityFilters(context.db, principalOf(req), context.now()),
    }),
    exportActivity: async ({ req, res, query }) =>
      csvDownload(res, service.exportActivity(context.db, principalOf(req), context.now(), query), 'activity.csv'),
  });
