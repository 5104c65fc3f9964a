import type { Readable } from 'node:stream';
import { initServer } from '@ts-rest/express';
import type { Response } from 'express';
import { contract } from '../../../contract';
import type { ServerContext } from '../../context';
import { principalOf } from '../../http/auth';
import * as service from './exports.service';

const s = initServer();

/**
 * ts-rest pipes a streamed body without its headers: they are set here. A failure after the first bytes
 * cannot become an error response any more; it ends the connection, so the client sees a cut-off file.
 */
function download(res: Response, body: Readable, name: string) {
  res.setHeader('Content-Type', 'text/csv; charset=utf-8');
  res.setHeader('Content-Disposition', `attachment; filename="${name}"`);
  body.on('error', (error) => res.destroy(error));
  return { status: 200 as const, body };
}

export const exportsRouter = ({ db, now }: ServerContext) =>
  s.router(contract.exports, {
    exportSubnets: async ({ req, res, query }) => {
      const body = await service.exportSubnets(db, principalOf(req), query.folder_id);
      return download(res, body, service.fileName('subnets', now()));
    },
    exportAddresses: async ({ req, res, query }) => {
      const body = await service.exportAddresses(db, principalOf(req), query.subnet_id);
      return download(res, body, service.fileName('addresses', now()));
    },
  });
