/**
 * Writes racing the delete (or split) of what they name: an address write against its subnet's delete or
 * split, a subnet or VLAN write against the delete of the folder, VLAN, VRF or location it refers to, and
 * the imports against both. Each pair is sent together many times, with a random head start, and each answer
 * must be one the request would get had it come just before or just after the delete: never a 5xx (the
 * foreign key refusing a row whose parent vanished), an import always 200 with every row created or its own
 * error. On PGlite the requests share one connection but interleave between statements; on PostgreSQL
 * (TEST_DATABASE_URL) they run on connections of their own, and several trials run at once. RACE_TRIALS
 * changes the number of trials (20 on PostgreSQL, 6 on PGlite, whose requests take turns anyway).
 */
import { setTimeout } from 'node:timers/promises';
import { describe, expect, it } from 'vitest';
import type { OperationId } from '../../contract/routes';
import type { ApiClient, ApiResponse } from '../support/client';
import { createSubnet, useTestServer } from '../support/factories';
import { type DeclaredStatus, expectStatus } from '../support/observed';

const onPostgres = Boolean(process.env.TEST_DATABASE_URL);
const TRIALS = Number(process.env.RACE_TRIALS ?? (onPostgres ? 20 : 6));
/** Trials run at once, each on objects of its own (imports: at most 2 at once per user). */
const WAVE = onPostgres ? 2 : 1;

// Limited addresses (the organisation lock of the guarded inserts) and no rate limit for the bursts.
// Webhooks to loopback (no worker runs in the test server: the events stay in the outbox).
const t = useTestServer(
  { config: { outboundAllowCidrs: ['127.0.0.1/32'] } },
  { plan: 'enterprise', limits: { addresses: 1_000_000, rate_limit: null } },
);

/** A fresh /24 for each trial. */
let counter = 0;
const nextNetwork = () => {
  counter++;
  return `10.${(counter >> 8) & 255}.${counter & 255}.0/24`;
};
const prefixOf = (network: string) => network.slice(0, network.lastIndexOf('.'));
let names = 0;
const nextName = (kind: string) => `${kind}-${++names}`;
let vlanNumbers = 0;
const nextVlan = () => (vlanNumbers++ % 4000) + 1;

/** The answer's status, checked to be one of `allowed` and its body against the contract for it. */
function oneOf<Id extends OperationId, S extends DeclaredStatus<Id>>(response: ApiResponse<Id>, allowed: S[]) {
  expect(allowed, `${response.operationId} answered ${response.status}: ${response.text.slice(0, 300)}`).toContain(
    response.status,
  );
  expectStatus(response, response.status as S);
  return response.status as S;
}

/** Sends both, the one or the other a little ahead (0 to 3 ms), and answers both answers. */
async function together<A, B>(a: () => Promise<A>, b: () => Promise<B>): Promise<[A, B]> {
  const head = Math.random() * 3;
  const delayed = <T>(f: () => Promise<T>, ms: number) => setTimeout(ms).then(f);
  return Math.random() < 0.5 ? Promise.all([a(), delayed(b, head)]) : Promise.all([delayed(a, head), b()]);
}

async function repeat(trial: (api: ApiClient) => Promise<void>) {
  for (let i = 0; i < TRIALS; i += WAVE) {
    await Promise.all(Array.from({ length: Math.min(WAVE, TRIALS - i) }, () => trial(t.org.api)));
  }
}

const ip = (network: string, host: number) => `${prefixOf(network)}.${host}`;
const subnet = async (api: ApiClient, extra: Record<string, unknown> = {}) => createSubnet(api, nextNetwork(), extra);
const remove = (api: ApiClient, id: string) => api.call('deleteSubnet', { params: { id } });
const split = (api: ApiClient, id: string) => api.call('splitSubnet', { params: { id }, body: { parts: 2 } });
const DELETE = { folder: 'deleteFolder', vlan: 'deleteVlan', vrf: 'deleteVrf', location: 'deleteLocation' } as const;
type Kind = keyof typeof DELETE;

/** Deletes the folder, VLAN, VRF or location: 204, or 400 `in_use` for a VRF that a subnet uses by then. */
async function deleteOf(kind: Kind, api: ApiClient, id: string) {
  const answer = await api.call(DELETE[kind], { params: { id } });
  if (oneOf(answer, kind === 'vrf' ? [204, 400] : [204]) === 400) expect(answer.text).toContain('in_use');
}

/** A new folder, VLAN, VRF or location, by id. */
async function newOf(api: ApiClient, kind: Kind): Promise<{ id: string; name: string; number: number }> {
  const name = nextName(kind);
  const number = nextVlan();
  const id =
    kind === 'folder'
      ? expectStatus(await api.call('createFolder', { body: { name } }), 201).id
      : kind === 'vlan'
        ? expectStatus(await api.call('createVlan', { body: { vlan_number: number } }), 201).id
        : kind === 'vrf'
          ? expectStatus(await api.call('createVrf', { body: { name } }), 201).id
          : expectStatus(await api.call('createLocation', { body: { name } }), 201).id;
  return { id, name, number };
}

describe('address writes racing the delete or split of their subnet', () => {
  /** Deletes or splits the subnet: neither is held off by the address write. */
  const cut = async (kind: 'delete' | 'split', api: ApiClient, id: string) => {
    if (kind === 'delete') oneOf(await remove(api, id), [204]);
    else oneOf(await split(api, id), [200]);
  };

  it.each(['delete', 'split'] as const)('a batch create answers 200 or 404 against a %s', async (kind) => {
    await repeat(async (api) => {
      const s = await subnet(api);
      const ips = [1, 2, 3, 200].map((h) => ip(s.network, h));
      const [created] = await together(
        () => api.call('batchCreateAddresses', { params: { id: s.id }, body: { ips } }),
        () => cut(kind, api, s.id),
      );
      oneOf(created, [200, 404]);
    });
  });

  it.each(['delete', 'split'] as const)('a single create answers 201 or 404 against a %s', async (kind) => {
    await repeat(async (api) => {
      const s = await subnet(api);
      const [created] = await together(
        () => api.call('createAddress', { params: { id: s.id }, body: { ip: ip(s.network, 7) } }),
        () => cut(kind, api, s.id),
      );
      oneOf(created, [201, 404]);
    });
  });

  it.each(['delete', 'split'] as const)('an allocation answers 201 or 404 against a %s', async (kind) => {
    await repeat(async (api) => {
      const s = await subnet(api);
      const [allocated] = await together(
        () => api.call('allocateAddress', { params: { id: s.id }, body: { count: 3 } }),
        () => cut(kind, api, s.id),
      );
      oneOf(allocated, [201, 404]);
    });
  });

  it.each(['delete', 'split'] as const)(
    'an address import answers 200 with each row created or an error row against a %s',
    async (kind) => {
      await repeat(async (api) => {
        const [s, other] = [await subnet(api), await subnet(api)];
        const rows = [
          { ip: ip(s.network, 10), subnet: s.network },
          { ip: ip(other.network, 10), subnet: other.network },
          { ip: ip(s.network, 200), subnet: s.network },
        ];
        const [imported] = await together(
          () => api.call('importAddresses', { body: { addresses: rows } }),
          () => cut(kind, api, s.id),
        );
        const answer = expectStatus(imported, 200);
        // The row of the other subnet is imported whatever becomes of the first.
        expect(answer.results[1]?.status).toBe('created');
        for (const row of [answer.results[0], answer.results[2]]) {
          if (row?.status !== 'created') expect(row?.error).toMatch(/^subnet: /);
        }
      });
    },
  );
});

describe('subnet and VLAN writes racing the delete of what they refer to', () => {
  const idField = { folder: 'folder_id', vlan: 'vlan_id', vrf: 'vrf_id', location: 'location_id' } as const;

  it.each(['folder', 'vlan', 'vrf', 'location'] as const)(
    'a subnet create with a %s id answers 201 or 400 naming the field against its delete',
    async (kind) => {
      await repeat(async (api) => {
        const target = await newOf(api, kind);
        const [created] = await together(
          () => api.call('createSubnet', { body: { network: nextNetwork(), [idField[kind]]: target.id } }),
          () => deleteOf(kind, api, target.id),
        );
        // A VRF in use is not deleted (400 in_use).
        if (oneOf(created, [201, 400]) === 400) expect(created.text).toContain(idField[kind]);
      });
    },
  );

  it.each(['folder', 'location'] as const)(
    'a subnet patch of its %s id answers 200 or 400 naming the field against its delete',
    async (kind) => {
      await repeat(async (api) => {
        const [s, target] = [await subnet(api), await newOf(api, kind)];
        const [patched] = await together(
          () => api.call('updateSubnet', { params: { id: s.id }, body: { [idField[kind]]: target.id } }),
          () => deleteOf(kind, api, target.id),
        );
        if (oneOf(patched, [200, 400]) === 400) expect(patched.text).toContain(idField[kind]);
      });
    },
  );

  it('a subnet patch naming a VLAN by number answers 200 against its delete (the VLAN is made anew if gone)', async () => {
    await repeat(async (api) => {
      const [s, target] = [await subnet(api), await newOf(api, 'vlan')];
      const [patched] = await together(
        () => api.call('updateSubnet', { params: { id: s.id }, body: { vlan: String(target.number) } }),
        () => deleteOf('vlan', api, target.id),
      );
      // The answer is read after the commit: a delete that waited for the patch has cleared the VLAN by then.
      expect([target.number, undefined]).toContain(expectStatus(patched, 200).vlan_number);
    });
  });

  it('a subnet patch naming a VRF by name answers 200 against its delete (the VRF is made anew)', async () => {
    await repeat(async (api) => {
      const [s, target] = [await subnet(api), await newOf(api, 'vrf')];
      const [patched] = await together(
        () => api.call('updateSubnet', { params: { id: s.id }, body: { vrf: target.name } }),
        () => deleteOf('vrf', api, target.id),
      );
      expect(expectStatus(patched, 200).vrf_name).toBe(target.name);
    });
  });

  it.each(['folder', 'vlan', 'location'] as const)(
    'a subnet allocation with a %s id answers 201 or 400 naming the field against its delete',
    async (kind) => {
      await repeat(async (api) => {
        const [parent, target] = [await subnet(api), await newOf(api, kind)];
        const [allocated] = await together(
          () =>
            api.call('allocateSubnet', {
              params: { id: parent.id },
              body: { prefix_length: 26, count: 2, [idField[kind]]: target.id },
            }),
          () => deleteOf(kind, api, target.id),
        );
        if (oneOf(allocated, [201, 400]) === 400) expect(allocated.text).toContain(idField[kind]);
      });
    },
  );

  it('a split of a subnet in a folder answers 200 against the delete of the folder', async () => {
    await repeat(async (api) => {
      const folder = await newOf(api, 'folder');
      const s = await subnet(api, { folder_id: folder.id });
      const [parts] = await together(
        () => split(api, s.id),
        () => deleteOf('folder', api, folder.id),
      );
      oneOf(parts, [200]);
    });
  });

  it('a split of a subnet in a VRF answers 200 against the delete of the VRF (refused: in use)', async () => {
    await repeat(async (api) => {
      const vrf = await newOf(api, 'vrf');
      const s = await subnet(api, { vrf_id: vrf.id });
      const [parts] = await together(
        () => split(api, s.id),
        () => deleteOf('vrf', api, vrf.id),
      );
      oneOf(parts, [200]);
    });
  });

  it.each(['folder', 'vlan', 'vrf', 'location'] as const)(
    'a subnet import naming a %s answers 200 with the row created against its delete',
    async (kind) => {
      await repeat(async (api) => {
        const target = await newOf(api, kind);
        const field = kind === 'vlan' ? { vlan: target.number } : { [kind]: target.name };
        const [imported] = await together(
          () => api.call('importSubnets', { body: { subnets: [{ network: nextNetwork(), ...field }] } }),
          () => deleteOf(kind, api, target.id),
        );
        expect(expectStatus(imported, 200).results[0]).toMatchObject({ status: 'created' });
      });
    },
  );

  it('a VLAN create with a location id answers 201 or 400 naming the field against its delete', async () => {
    await repeat(async (api) => {
      const location = await newOf(api, 'location');
      const [created] = await together(
        () => api.call('createVlan', { body: { vlan_number: nextVlan(), location_id: location.id } }),
        () => deleteOf('location', api, location.id),
      );
      if (oneOf(created, [201, 400]) === 400) expect(created.text).toContain('location_id');
      else await deleteOf('vlan', api, expectStatus(created, 201).id);
    });
  });

  it('a VLAN patch of its location id answers 200 or 400 naming the field against its delete', async () => {
    await repeat(async (api) => {
      const [vlan, location] = [await newOf(api, 'vlan'), await newOf(api, 'location')];
      const [patched] = await together(
        () => api.call('updateVlan', { params: { id: vlan.id }, body: { location_id: location.id } }),
        () => deleteOf('location', api, location.id),
      );
      if (oneOf(patched, [200, 400]) === 400) expect(patched.text).toContain('location_id');
      await deleteOf('vlan', api, vlan.id);
    });
  });
});

describe('writes racing the delete of their webhook or of their author', () => {
  it('a change with a webhook event answers 201 against the delete of the webhook', async () => {
    await repeat(async (api) => {
      const hook = expectStatus(await api.call('createWebhook', { body: { url: 'http://127.0.0.1:9/hook' } }), 201);
      const [created] = await together(
        () => api.call('createFolder', { body: { name: nextName('hooked') } }),
        async () => oneOf(await api.call('deleteWebhook', { params: { id: hook.id } }), [204]),
      );
      oneOf(created, [201]);
    });
  });

  /**
   * A new member with this role (by user id, with a client on their API key), and their removal by the owner,
   * in an organisation of their own (invitations are limited per organisation and hour).
   */
  async function member(role: 'admin' | 'editor') {
    const org = await t.server.newOrg({ plan: 'enterprise', limits: { rate_limit: null } });
    const { api } = await org.member(role);
    const id = expectStatus(await api.call('getCurrentUser'), 200).user.id;
    const remove = async () => oneOf(await org.web.call('removeTeamMember', { params: { user_id: id } }), [200]);
    return { api, remove };
  }

  it('a write by a member answers 201, or 401 once the member is removed, against their removal', async () => {
    await repeat(async () => {
      const author = await member('editor');
      const [created] = await together(
        () => author.api.call('createFolder', { body: { name: nextName('authored') } }),
        author.remove,
      );
      oneOf(created, [201, 401]);
    });
  });

  it('an API key created by a member answers 201 or 401 against their removal', async () => {
    await repeat(async () => {
      const author = await member('editor');
      const [created] = await together(
        () => author.api.call('createApiKey', { body: { name: 'racing' } }),
        author.remove,
      );
      oneOf(created, [201, 401]);
    });
  });

  it('an invitation sent by an admin answers 201 or 401 against their removal', async () => {
    await repeat(async () => {
      const author = await member('admin');
      const [created] = await together(
        () =>
          author.api.call('createTeamInvitation', {
            body: { email: `${nextName('invitee')}@example.test`, role: 'viewer' },
          }),
        author.remove,
      );
      oneOf(created, [201, 401]);
    });
  });
});
