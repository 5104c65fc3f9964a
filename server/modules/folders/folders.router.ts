import { initServer } from '@ts-rest/express';
import { contract } from '../../../contract';
import type { ServerContext } from '../../context';
import { principalOf } from '../../http/auth';
import * as service from './folders.service';

const s = initServer();

export const foldersRouter = ({ db }: ServerContext) =>
  s.router(contract.folders, {
    listFolders: async ({ req, query }) => ({
      status: 200,
      body: await service.listFolders(db, principalOf(req), query),
    }),
    createFolder: async ({ req, body }) => ({
      status: 201,
      body: await service.createFolder(db, principalOf(req), body),
    }),
    getFolder: async ({ req, params }) => ({
      status: 200,
      body: await service.getFolder(db, principalOf(req), params.id),
    }),
    updateFolder: async ({ req, params, body, headers }) => ({
      status: 200,
      body: await service.updateFolder(db, principalOf(req), params.id, body, headers['if-match']),
    }),
    deleteFolder: async ({ req, params, headers }) => {
      await service.deleteFolder(db, principalOf(req), params.id, headers['if-match']);
      return { status: 204, body: undefined };
    },
  });
