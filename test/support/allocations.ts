/** Allocation calls expected to succeed, and a subnet's records, for the allocation tests. */
import type { ApiClient } from './client';
import { expectStatus } from './observed';

export const allocate = async (api: ApiClient, id: string, body: Record<string, unknown> = {}) =>
  expectStatus(await api.call('allocateAddress', { params: { id }, body }), 201);

export const allocateSubnets = async (
  api: ApiClient,
  id: string,
  body: { prefix_length: number } & Record<string, unknown>,
) => expectStatus(await api.call('allocateSubnet', { params: { id }, body }), 201);

/** The subnet's address records (up to 1,000), in ip order. */
export const addressesOf = async (api: ApiClient, id: string) =>
  expectStatus(await api.call('listSubnetAddresses', { params: { id }, query: { limit: 1000 } }), 200);
