import { initServer } from '@ts-rest/express';
import { contract } from '../../../contract';
import type { ServerContext } from '../../context';
import { principalOf } from '../../http/auth';
import { search } from './search.service';

const s = initServer();

export const searchRouter = ({ db }: ServerContext) =>
  s.router(contract.search, {
    searchIpam: async ({ req, query }) => ({ status: 200, body: await search(db, principalOf(req), query.q) }),
  });
