import { initServer } from '@ts-rest/express';
import { contract } from '../../../contract';
import type { ServerContext } from '../../context';
import { principalOf } from '../../http/auth';
import * as service from './vrfs.service';

const s = initServer();

export const vrfsRouter = ({ db }: ServerContext) =>
  s.router(contract.vrfs, {
    listVrfs: async ({ req, query }) => ({ status: 200, body: await service.listVrfs(db, principalOf(req), query) }),
    createVrf: async ({ req, body }) => ({ status: 201, body: await service.createVrf(db, principalOf(req), body) }),
    getVrf: async ({ req, params }) => ({ status: 200, body: await service.getVrf(db, principalOf(req), params.id) }),
    updateVrf: async ({ req, params, body, headers }) => ({
      status: 200,
      body: await service.updateVrf(db, principalOf(req), params.id, body, headers['if-match']),
    }),
    deleteVrf: async ({ req, params, headers }) => {
      await service.deleteVrf(db, principalOf(req), params.id, headers['if-match']);
      return { status: 204, body: undefined };
    },
  });
