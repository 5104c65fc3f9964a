import { initServer } from '@ts-rest/express';
import { contract } from '../../../contract';
import type { ServerContext } from '../../context';
import { principalOf } from '../../http/auth';
import * as service from './locations.service';

const s = initServer();

export const locationsRouter = ({ db }: ServerContext) =>
  s.router(contract.locations, {
    listLocations: async ({ req, query }) => ({
      status: 200,
      body: await service.listLocations(db, principalOf(req), query),
    }),
    createLocation: async ({ req, body }) => ({
      status: 201,
      body: await service.createLocation(db, principalOf(req), body),
    }),
    getLocation: async ({ req, params }) => ({
      status: 200,
      body: await service.getLocation(db, principalOf(req), params.id),
    }),
    updateLocation: async ({ req, params, body, headers }) => ({
      status: 200,
      body: await service.updateLocation(db, principalOf(req), params.id, body, headers['if-match']),
    }),
    deleteLocation: async ({ req, params, headers }) => {
      await service.deleteLocation(db, principalOf(req), params.id, headers['if-match']);
      return { status: 204, body: undefined };
    },
  });
