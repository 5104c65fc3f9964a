import { initContract } from '@ts-rest/core';
import { activityContract } from './activity.contract';
import { addressesContract } from './addresses.contract';
import { apiKeysContract } from './api-keys.contract';
import { authContract } from './auth.contract';
import { billingContract } from './billing.contract';
import { changesContract } from './changes.contract';
import { customFieldsContract } from './custom-fields.contract';
import { foldersContract } from './folders.contract';
import { exportContract, importContract } from './import-export.contract';
import { locationsContract } from './locations.contract';
import { rangesContract } from './ranges.contract';
import { searchContract } from './search.contract';
import { subnetsContract } from './subnets.contract';
import { tagsContract } from './tags.contract';
import { teamContract } from './team.contract';
import { toolsContract } from './tools.contract';
import { vlansContract } from './vlans.contract';
import { vrfsContract } from './vrfs.contract';
import { webhooksContract } from './webhooks.contract';

const c = initContract();

/** The whole API under /api/v1. Keys are resources; route keys are the operationIds. */
export const contract = c.router(
  {
    auth: authContract,
    folders: foldersContract,
    subnets: subnetsContract,
    addresses: addressesContract,
    vlans: vlansContract,
    vrfs: vrfsContract,
    locations: locationsContract,
    ranges: rangesContract,
    tags: tagsContract,
    webhooks: webhooksContract,
    apiKeys: apiKeysContract,
    team: teamContract,
    billing: billingContract,
    imports: importContract,
    exports: exportContract,
    search: searchContract,
    activity: activityContract,
    changes: changesContract,
    customFields: customFieldsContract,
    tools: toolsContract,
  },
  { pathPrefix: '/api/v1', strictStatusCodes: true },
);

export type Contract = typeof contract;
export * from './common/errors';
export * from './common/meta';
export * from './common/schemas';
