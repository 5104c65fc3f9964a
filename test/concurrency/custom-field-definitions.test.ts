/**
 * Typed custom fields across server processes: each process keeps an organisation's definitions and guards every
 * create with their version, so a definition made or changed through one process is enforced by the very next
 * create through the other (subnet and address creates, both allocations), never a create checked against the old
 * definitions. Needs TEST_DATABASE_URL (PGlite has one process).
 */
import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import * as identity from '../../server/modules/identity/identity.service';
import type { ApiClient } from '../support/client';
import { clientsOf, createSubnet, useServerProcesses } from '../support/factories';
import { expectStatus } from '../support/observed';

const t = useServerProcesses();

describe.skipIf(!t.url)('custom field definitions and two server processes', () => {
  it('a definition made through one process is enforced by the next create through the other', async () => {
    const email = `custom-fields-${randomUUID()}@example.test`;
    const user = await identity.ensureUser(t.database.db, email, { plan: 'enterprise' });
    const { key } = await identity.createApiKey(t.database.db, user, 'custom-fields');
    const [first, second] = clientsOf(t.servers, { key }) as [ApiClient, ApiClient];
    // The second process reads (and keeps) the organisation's definitions: none yet.
    const home = await createSubnet(second, '10.93.0.0/24');
    const parent = await createSubnet(second, '10.94.0.0/24');
    const address = (ip: string) => second.call('createAddress', { params: { id: home.id }, body: { ip } });
    expectStatus(await address('10.93.0.200'), 201);

    const field = expectStatus(
      await first.call('createCustomField', { body: { kind: 'subnet', name: 'site', type: 'text', required: true } }),
      201,
    );
    const missing = expectStatus(await second.call('createSubnet', { body: { network: '10.95.0.0/24' } }), 400);
    expect(missing.error).toBe('custom_fields.site: is required');
    const allocated = await second.call('allocateSubnet', { params: { id: parent.id }, body: { prefix_length: 28 } });
    expect(expectStatus(allocated, 400).error).toBe('custom_fields.site: is required');

    // A change through the first process: the default is taken by the second's next create.
    expectStatus(await first.call('updateCustomField', { params: { id: field.id }, body: { default: 'ams1' } }), 200);
    expect((await createSubnet(second, '10.95.0.0/24')).custom_fields).toEqual({ site: 'ams1' });

    expectStatus(
      await first.call('createCustomField', { body: { kind: 'address', name: 'units', type: 'integer' } }),
      201,
    );
    const typed = await second.call('createAddress', {
      params: { id: home.id },
      body: { ip: '10.93.0.201', custom_fields: { units: 'four' } },
    });
    expect(expectStatus(typed, 400).error).toMatch(/^custom_fields\.units: must be an integer/);
    const allocation = await second.call('allocateAddress', {
      params: { id: home.id },
      body: { custom_fields: { units: 1.5 } },
    });
    expect(expectStatus(allocation, 400).error).toMatch(/^custom_fields\.units: must be an integer/);

    // Deleted through the first process: the second takes any value again.
    expectStatus(await first.call('deleteCustomField', { params: { id: field.id } }), 204);
    expect((await createSubnet(second, '10.96.0.0/24')).custom_fields).toBeUndefined();
  });
});
