import { initServer } from '@ts-rest/express';
import { contract } from '../../../contract';
import type { ServerContext } from '../../context';
import { principalOf } from '../../http/auth';
import * as service from './tags.service';

const s = initServer();

export const tagsRouter = ({ db }: ServerContext) =>
  s.router(contract.tags, {
    listTags: async ({ req }) => ({ status: 200, body: await service.listTags(db, principalOf(req)) }),
    createTag: async ({ req, body }) => ({ status: 201, body: await service.createTag(db, principalOf(req), body) }),
    getTag: async ({ req, params }) => ({ status: 200, body: await service.getTag(db, principalOf(req), params.id) }),
    updateTag: async ({ req, params, body, headers }) => ({
      status: 200,
      body: await service.updateTag(db, principalOf(req), params.id, body, headers['if-match']),
    }),
    deleteTag: async ({ req, params, headers }) => {
      await service.deleteTag(db, principalOf(req), params.id, headers['if-match']);
      return { status: 204, body: undefined };
    },
  });
