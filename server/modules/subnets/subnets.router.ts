import { initServer } from '@ts-rest/express';
import { contract } from '../../../contract';
import type { ServerContext } from '../../context';
import { principalOf } from '../../http/auth';
import { nextPageHeaders } from '../../http/pages';
import { allocateSubnets } from './subnet-allocate.service';
import * as space from './subnet-space.service';
import { splitSubnet } from './subnet-split.service';
import * as service from './subnets.service';

const s = initServer();

/** The subnet routes but allocateAddress, which the addresses module serves (merged by server/routes.ts). */
const { allocateAddress: _servedByAddresses, ...routes } = contract.subnets;

export const subnetsRouter = ({ db }: ServerContext) =>
  s.router(routes, {
    listSubnets: async ({ req, res, query }) => {
      const { list, next } = await service.listSubnets(db, principalOf(req), query);
      nextPageHeaders(req.originalUrl, res, next);
      return { status: 200, body: list };
    },
    createSubnet: async ({ req, body }) => ({
      status: 201,
      body: await service.createSubnet(db, principalOf(req), body),
    }),
    listSubnetOverlaps: async ({ req }) => ({ status: 200, body: await space.listOverlaps(db, principalOf(req)) }),
    getSubnet: async ({ req, params }) => ({
      status: 200,
      body: await service.getSubnet(db, principalOf(req), params.id),
    }),
    updateSubnet: async ({ req, res, params, body, headers }) => {
      const { subnet, version } = await service.updateSubnet(
        db,
        principalOf(req),
        params.id,
        body,
        headers['if-match'],
      );
      // The answer leaves the children out: its ETag is the full representation's (server/http/json.ts).
      res.set('ETag', version);
      return { status: 200, body: subnet };
    },
    deleteSubnet: async ({ req, params, query, headers }) => {
      const deletion = await service.deleteSubnet(db, principalOf(req), params.id, headers['if-match']);
      // A dry run answers what the delete would remove; the delete itself answers nothing.
      return query.dry_run === 'true' ? { status: 200, body: deletion } : { status: 204, body: undefined };
    },
    splitSubnet: async ({ req, params, body }) => ({
      status: 200,
      body: await splitSubnet(db, principalOf(req), params.id, body.parts),
    }),
    getSubnetUsage: async ({ req, params }) => ({
      status: 200,
      body: await space.getUsage(db, principalOf(req), params.id),
    }),
    getSubnetFirstFreeIp: async ({ req, params, query }) => ({
      status: 200,
      body: await space.getFirstFree(db, principalOf(req), params.id, {
        rangeId: query.range_id,
        skipRanges: query.skip_ranges === 'true',
        skipFirst: query.skip_first,
      }),
    }),
    getSubnetFreeBlocks: async ({ req, params, query }) => ({
      status: 200,
      body: await space.getFreeBlocks(db, principalOf(req), params.id, query.prefix, query.limit),
    }),
    allocateSubnet: async ({ req, params, body }) => ({
      status: 201,
      body: await allocateSubnets(db, principalOf(req), params.id, body),
    }),
  });
