import { initServer } from '@ts-rest/express';
import { contract, type RouteMeta } from '../contract';
import { contractRoutes } from '../contract/routes';
import type { ServerContext } from './context';
import { activityRouter, changesRouter } from './modules/activity/activity.router';
import { addressesRouter, allocateAddress } from './modules/addresses/addresses.router';
import { apiKeysRouter } from './modules/api-keys/api-keys.router';
import { authRouter } from './modules/auth/auth.router';
import { billingRouter } from './modules/billing/billing.router';
import { customFieldsRouter } from './modules/custom-fields/custom-fields.router';
import { exportsRouter } from './modules/exports/exports.router';
import { foldersRouter } from './modules/folders/folders.router';
import { importsRouter } from './modules/imports/imports.router';
import { locationsRouter } from './modules/locations/locations.router';
import { rangesRouter } from './modules/ranges/ranges.router';
import { searchRouter } from './modules/search/search.router';
import { subnetsRouter } from './modules/subnets/subnets.router';
import { tagsRouter } from './modules/tags/tags.router';
import { acceptInvitation, teamRouter } from './modules/team/team.router';
import { toolsRouter } from './modules/tools/tools.router';
import { vlansRouter } from './modules/vlans/vlans.router';
import { vrfsRouter } from './modules/vrfs/vrfs.router';
import { webhooksRouter } from './modules/webhooks/webhooks.router';

const s = initServer();

/** The whole contract's handlers, checked by the compiler against it: a missing or misspelt handler fails to build. */
export function buildRouter(context: ServerContext) {
  assertAccessDeclared();
  return s.router(contract, {
    auth: { ...authRouter(context), acceptInvitation: acceptInvitation(context) },
    folders: foldersRouter(context),
    subnets: { ...subnetsRouter(context), allocateAddress: allocateAddress(context) },
    addresses: addressesRouter(context),
    vlans: vlansRouter(context),
    vrfs: vrfsRouter(context),
    locations: locationsRouter(context),
    ranges: rangesRouter(context),
    tags: tagsRouter(context),
    webhooks: webhooksRouter(context),
    apiKeys: apiKeysRouter(context),
    team: teamRouter(context),
    activity: activityRouter(context),
    changes: changesRouter(context),
    customFields: customFieldsRouter(context),
    billing: billingRouter(context),
    imports: importsRouter(context),
    exports: exportsRouter(context),
    search: searchRouter(context),
    tools: toolsRouter(context),
  });
}

/** Access is declared once per route, in the contract's metadata; a route without it must not be served. */
function assertAccessDeclared() {
  const levels = ['public', 'viewer', 'editor', 'admin'];
  for (const { id, route } of contractRoutes) {
    const meta = route.metadata as Partial<RouteMeta> | undefined;
    if (!meta || !levels.includes(meta.access as string) || (meta.access !== 'public' && !meta.scope)) {
      throw new Error(`Route ${id} does not declare its access (public or a role, and a key scope) in the contract`);
    }
  }
}
