import { initServer } from '@ts-rest/express';
import { contract } from '../../../contract';
import type { ServerContext } from '../../context';
import { principalOf } from '../../http/auth';
import * as service from './ranges.service';

const s = initServer();

export const rangesRouter = ({ db }: ServerContext) =>
  s.router(contract.ranges, {
    listSubnetRanges: async ({ req, params }) => ({
      status: 200,
      body: await service.listRanges(db, principalOf(req), params.id),
    }),
    createSubnetRange: async ({ req, params, body }) => ({
      status: 201,
      body: await service.createRange(db, principalOf(req), params.id, body),
    }),
    updateRange: async ({ req, params, body }) => ({
      status: 200,
      body: await service.updateRange(db, principalOf(req), params.id, body),
    }),
    deleteRange: async ({ req, params }) => {
      await service.deleteRange(db, principalOf(req), params.id);
      return { status: 204, body: undefined };
    },
  });
