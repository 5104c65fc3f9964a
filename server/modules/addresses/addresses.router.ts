import { type AppRouteImplementation, initServer } from '@ts-rest/express';
import { contract } from '../../../contract';
import type { ServerContext } from '../../context';
import { principalOf } from '../../http/auth';
import { nextPageHeaders } from '../../http/pages';
import * as service from './addresses.service';
import * as allocation from './allocation.service';

const s = initServer();

export const addressesRouter = ({ db, now }: ServerContext) =>
  s.router(contract.addresses, {
    listSubnetAddresses: async ({ req, res, params, query }) => {
      const page = await service.listAddresses(db, principalOf(req), params.id, query);
      res.setHeader('X-Total-Count', String(page.total));
      nextPageHeaders(req.originalUrl, res, page.next);
      return { status: 200, body: page.addresses };
    },
    createAddress: async ({ req, params, body }) => ({
      status: 201,
      body: await service.createAddress(db, principalOf(req), params.id, body, now()),
    }),
    batchCreateAddresses: async ({ req, params, body }) => ({
      status: 200,
      body: await service.batchCreateAddresses(db, principalOf(req), params.id, body),
    }),
    batchUpdateAddresses: async ({ req, body }) => ({
      status: 200,
      body: await service.batchUpdateAddresses(db, principalOf(req), body),
    }),
    batchDeleteAddresses: async ({ req, body }) => ({
      status: 200,
      body: await service.batchDeleteAddresses(db, principalOf(req), body.ids),
    }),
    getAddress: async ({ req, params }) => ({
      status: 200,
      body: await service.getAddress(db, principalOf(req), params.id),
    }),
    updateAddress: async ({ req, params, body, headers }) => ({
      status: 200,
      body: await service.updateAddress(db, principalOf(req), params.id, body, headers['if-match']),
    }),
    deleteAddress: async ({ req, params, headers }) => {
      await service.deleteAddress(db, principalOf(req), params.id, headers['if-match']);
      return { status: 204, body: undefined };
    },
  });

/**
 * `POST /subnets/{id}/allocate-address`: a route of the subnets contract, served here with the other address
 * writes. Merged into the subnets router by server/routes.ts.
 */
export const allocateAddress =
  ({ db, now }: ServerContext): AppRouteImplementation<typeof contract.subnets.allocateAddress> =>
  async ({ req, params, body }) => ({
    status: 201,
    body: await allocation.allocateAddresses(db, principalOf(req), params.id, body, now()),
  });
