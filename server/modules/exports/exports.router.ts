import { initServer } from '@ts-rest/express';
import { contract } from '../../../contract';
import type { ServerContext } from '../../context';
import { principalOf } from '../../http/auth';
import { csvDownload } from '../shared/csv';
import * as service from './exports.service';

const s = initServer();

export const exportsRouter = ({ db, now }: ServerContext) =>
  s.router(contract.exports, {
    exportSubnets: async ({ req, res, query }) => {
      const body = await service.exportSubnets(db, principalOf(req), query.folder_id);
      return csvDownload(res, body, service.fileName('subnets', now()));
    },
    exportAddresses: async ({ req, res, query }) => {
      const body = await service.exportAddresses(db, principalOf(req), query.subnet_id);
      return csvDownload(res, body, service.fileName('addresses', now()));
    },
    exportRanges: async ({ req, res, query }) => {
      const body = await service.exportRanges(db, principalOf(req), query.subnet_id);
      return csvDownload(res, body, service.fileName('ranges', now()));
    },
  });
