import { extendApi } from '@anatine/zod-openapi';
import { initContract } from '@ts-rest/core';
import { z } from 'zod';
import { Role } from './auth.contract';
import { errors } from './common/errors';
import { IdempotencyHeaders, idempotent } from './common/idempotency';
import { access } from './common/meta';
import { describedUuid, IdParams, MessageResponse, Timestamp, Uuid } from './common/schemas';

const c = initContract();
const meta = access('Team');

/** `{user_id}` in a path: a UUID, so a malformed one is a 400 before any lookup. */
export const TeamMemberParams = z.object({ user_id: Uuid.describe('User id of the member (UUID)') }).strict();

export const TeamMember = extendApi(
  z
    .object({
      user_id: describedUuid('Id of the member’s user account (UUID)'),
      email: z.string().email().describe('Email address of the member, e.g. alice@example.com'),
      name: z.string().describe('Display name; empty when unknown'),
      role: Role,
      accepted_at: Timestamp.describe('When the user joined the organisation'),
    })
    .strict(),
  {
    title: 'TeamMember',
    description: 'A member of the organisation',
    example: {
      user_id: '0b6f1c2d-3e4a-4b5c-8d6e-7f8091a2b3c4',
      email: 'ada@example.com',
      name: 'Ada Lovelace',
      role: 'admin',
      accepted_at: '2026-11-22T10:00:00.000Z',
    },
  },
);

export const TeamInvitation = extendApi(
  z
    .object({
      id: describedUuid('Unique id of the invitation (UUID)'),
      email: z.string().email().describe('Email address the invitation was sent to, e.g. bob@example.com'),
      role: Role,
      expires_at: Timestamp.describe('The invitation link stops working after this time (7 days after creation)'),
      created_at: Timestamp,
    })
    .strict(),
  {
    title: 'TeamInvitation',
    description: 'A pending invitation to join the organisation',
    example: {
      id: '2e3f4a5b-6c7d-4e8f-9a0b-1c2d3e4f5a6b',
      email: 'grace@example.com',
      role: 'editor',
      expires_at: '2026-11-29T10:00:00.000Z',
      created_at: '2026-11-22T10:00:00.000Z',
    },
  },
);

export const UpdateTeamMemberBody = extendApi(z.object({ role: Role }).strict(), {
  title: 'UpdateTeamMemberBody',
  description: 'The member’s new role',
  example: { role: 'viewer' },
});

export const CreateTeamInvitationBody = extendApi(
  z
    .object({
      email: z.string().trim().email().max(254).describe('Address the invitation is sent to'),
      role: Role,
    })
    .strict(),
  {
    title: 'CreateTeamInvitationBody',
    description: 'Email address to invite and the role granted on acceptance',
    example: { email: 'grace@example.com', role: 'editor' },
  },
);

export const teamContract = c.router({
  listTeamMembers: {
    method: 'GET',
    path: '/team/members',
    summary: 'List team members',
    description: 'Every member of the caller’s organisation with their role.',
    metadata: meta.read,
    responses: { 200: z.array(TeamMember), ...errors(401, 403, 429) },
  },
  updateTeamMemberRole: {
    method: 'PATCH',
    path: '/team/members/:user_id',
    summary: 'Change a member’s role',
    description: 'Sets the member’s role. 400 (`last_admin`) when it would demote the last admin.',
    metadata: meta.adminWrite,
    pathParams: TeamMemberParams,
    body: UpdateTeamMemberBody,
    responses: { 200: MessageResponse, ...errors(400, 401, 403, 404, 413, 415, 429) },
  },
  removeTeamMember: {
    method: 'DELETE',
    path: '/team/members/:user_id',
    summary: 'Remove a member',
    description:
      'Removes the member from the organisation; their sessions and API keys stop working at once. ' +
      '400 (`last_admin`) for the last admin.',
    metadata: meta.adminWrite,
    pathParams: TeamMemberParams,
    responses: { 200: MessageResponse, ...errors(400, 401, 403, 404, 429) },
  },
  createTeamInvitation: {
    method: 'POST',
    path: '/team/invitations',
    summary: 'Invite a member',
    description:
      'Emails an invitation valid 7 days. Seats (members plus pending invitations) follow the plan’s Users limit: ' +
      '402 when it is reached. At most 10 invitations per organisation per hour (429).',
    metadata: idempotent(meta.adminWrite),
    headers: IdempotencyHeaders,
    body: CreateTeamInvitationBody,
    responses: { 201: TeamInvitation, ...errors(400, 401, 402, 403, 409, 413, 415, 422, 429) },
  },
  listTeamInvitations: {
    method: 'GET',
    path: '/team/invitations',
    summary: 'List pending invitations',
    description: 'Invitations not yet accepted, cancelled or expired.',
    metadata: meta.adminRead,
    responses: { 200: z.array(TeamInvitation), ...errors(401, 403, 429) },
  },
  cancelTeamInvitation: {
    method: 'DELETE',
    path: '/team/invitations/:id',
    summary: 'Cancel an invitation',
    description: 'Deletes the pending invitation; its link stops working and its seat is freed.',
    metadata: meta.adminWrite,
    pathParams: IdParams,
    responses: { 200: MessageResponse, ...errors(400, 401, 403, 404, 429) },
  },
});
