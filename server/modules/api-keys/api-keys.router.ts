import { initServer } from '@ts-rest/express';
import { contract } from '../../../contract';
import type { ServerContext } from '../../context';
import { principalOf } from '../../http/auth';
import * as service from './api-keys.service';

const s = initServer();

export const apiKeysRouter = ({ db }: ServerContext) =>
  s.router(contract.apiKeys, {
    listApiKeys: async ({ req }) => ({ status: 200, body: await service.listApiKeys(db, principalOf(req)) }),
    createApiKey: async ({ req, body }) => ({
      status: 201,
      body: await service.createApiKey(db, principalOf(req), body),
    }),
    revokeApiKey: async ({ req, params }) => {
      await service.revokeApiKey(db, principalOf(req), params.id);
      return { status: 204, body: undefined };
    },
  });
