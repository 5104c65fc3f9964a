import { initServer } from '@ts-rest/express';
import { contract } from '../../../contract';
import type { ServerContext } from '../../context';
import { principalOf } from '../../http/auth';
import * as service from './imports.service';

const s = initServer();

export const importsRouter = ({ db }: ServerContext) =>
  s.router(contract.imports, {
    importSubnets: async ({ req, body }) => ({
      status: 200,
      body: await service.importSubnets(db, principalOf(req), body.subnets),
    }),
    importAddresses: async ({ req, body }) => ({
      status: 200,
      body: await service.importAddresses(db, principalOf(req), body.addresses),
    }),
    importRanges: async ({ req, body }) => ({
      status: 200,
      body: await service.importRanges(db, principalOf(req), body.ranges),
    }),
  });
