import { initServer } from '@ts-rest/express';
import { contract } from '../../../contract';
import type { ServerContext } from '../../context';
import { principalOf } from '../../http/auth';
import * as service from './vlans.service';

const s = initServer();

export const vlansRouter = ({ db }: ServerContext) =>
  s.router(contract.vlans, {
    listVlans: async ({ req, query }) => ({ status: 200, body: await service.listVlans(db, principalOf(req), query) }),
    createVlan: async ({ req, body }) => ({ status: 201, body: await service.createVlan(db, principalOf(req), body) }),
    getVlan: async ({ req, params }) => ({ status: 200, body: await service.getVlan(db, principalOf(req), params.id) }),
    updateVlan: async ({ req, params, body, headers }) => ({
      status: 200,
      body: await service.updateVlan(db, principalOf(req), params.id, body, headers['if-match']),
    }),
    deleteVlan: async ({ req, params, headers }) => {
      await service.deleteVlan(db, principalOf(req), params.id, headers['if-match']);
      return { status: 204, body: undefined };
    },
  });
