import { initServer } from '@ts-rest/express';
import { contract } from '../../../contract';
import type { ServerContext } from '../../context';
import { principalOf } from '../../http/auth';
import * as service from './custom-fields.service';

const s = initServer();

export const customFieldsRouter = ({ db }: ServerContext) =>
  s.router(contract.customFields, {
    listCustomFields: async ({ req, query }) => ({
      status: 200,
      body: await service.listDefinitions(db, principalOf(req), query.kind),
    }),
    createCustomField: async ({ req, body }) => ({
      status: 201,
      body: await service.createDefinition(db, principalOf(req), body),
    }),
    getCustomField: async ({ req, params }) => ({
      status: 200,
      body: await service.getDefinition(db, principalOf(req), params.id),
    }),
    updateCustomField: async ({ req, params, body }) => ({
      status: 200,
      body: await service.updateDefinition(db, principalOf(req), params.id, body),
    }),
    deleteCustomField: async ({ req, params }) => {
      await service.deleteDefinition(db, principalOf(req), params.id);
      return { status: 204, body: undefined };
    },
  });
