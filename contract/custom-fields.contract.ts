import { extendApi } from '@anatine/zod-openapi';
import { initContract } from '@ts-rest/core';
import { z } from 'zod';
import { DryRunQuery, dryRunnable } from './common/dry-run';
import { errors } from './common/errors';
import { IdempotencyHeaders, idempotent } from './common/idempotency';
import { access } from './common/meta';
import { describedUuid, IdParams, Timestamp, text, Uuid } from './common/schemas';

const c = initContract();
const meta = access('Custom fields');

/** Most definitions an organisation may have for one kind of resource (not a plan limit). */
export const CUSTOM_FIELDS_PER_KIND_MAX = 50;
/** Most choices of a select. */
export const CUSTOM_FIELD_CHOICES_MAX = 100;
/** Longest choice of a select, and longest text value. */
export const CUSTOM_FIELD_CHOICE_MAX_LENGTH = 200;
export const CUSTOM_FIELD_TEXT_MAX_LENGTH = 1000;
/** Most stored values a definition's report shows. */
export const CUSTOM_FIELD_EXAMPLES_MAX = 10;

export const customFieldKinds = ['subnet', 'address'] as const;
export const customFieldTypes = ['text', 'integer', 'boolean', 'date', 'url', 'ip', 'select'] as const;

export const CustomFieldKind = extendApi(z.enum(customFieldKinds), {
  title: 'CustomFieldKind',
  description: 'The kind of resource whose `custom_fields` the definition types: subnet or address',
  example: 'subnet',
});

export const CustomFieldType = extendApi(z.enum(customFieldTypes), {
  title: 'CustomFieldType',
  description:
    'What a value must be: text (a string of at most 1000 characters), integer (a JSON integer within ±2^53−1), ' +
    'boolean, date (a YYYY-MM-DD string of a real day), url (an http or https URL), ip (an IPv4 or IPv6 address ' +
    'as a string) or select (one of `choices`)',
  example: 'integer',
});

/** The name of a field: its key in `custom_fields`. */
const FieldName = z
  .string()
  .regex(/^[a-z][a-z0-9_]{0,49}$/, 'must start with a-z and hold only a-z, 0-9 and _, at most 50 characters')
  .describe('The key in `custom_fields`: a-z first, then a-z, 0-9 or _, at most 50 characters; fixed once created');

/** A value as custom fields hold the typed ones: text, a number or a boolean (as the field's type says). */
export const CustomFieldValue = z.union([z.string(), z.number(), z.boolean()]);
const Value = CustomFieldValue;

const Choices = z
  .array(z.string().min(1).max(CUSTOM_FIELD_CHOICE_MAX_LENGTH))
  .min(1)
  .max(CUSTOM_FIELD_CHOICES_MAX)
  .refine((choices) => new Set(choices).size === choices.length, 'must be distinct')
  .describe(
    `The values a select may take: 1 to ${CUSTOM_FIELD_CHOICES_MAX} distinct strings of 1 to ` +
      `${CUSTOM_FIELD_CHOICE_MAX_LENGTH} characters; only for type select`,
  );

const example = {
  id: '4f1c2d3e-5a6b-4c7d-8e9f-0a1b2c3d4e5f',
  kind: 'subnet',
  name: 'rack_units',
  label: 'Rack units',
  description: 'Height of the rack the subnet serves',
  type: 'integer',
  required: false,
  default: 42,
  created_at: '2026-11-27T10:00:00.000Z',
  updated_at: '2026-11-27T10:00:00.000Z',
};

export const CustomFieldDefinition = extendApi(
  z
    .object({
      id: describedUuid('Unique id of the definition (UUID)'),
      kind: CustomFieldKind,
      name: z.string().describe('The key in `custom_fields` the definition types'),
      label: z.string().describe('Display name; empty when unset'),
      description: z.string().describe('Free-text description; empty when unset'),
      type: CustomFieldType,
      required: z.boolean().describe('Whether every new or changed resource of the kind must hold the field'),
      default: Value.optional().describe(
        'The value a new resource of the kind gets when it is created without the field; omitted when unset',
      ),
      choices: z.array(z.string()).optional().describe('The values a select may take; only for type select'),
      created_at: Timestamp,
      updated_at: Timestamp,
    })
    .strict(),
  {
    title: 'CustomFieldDefinition',
    description: 'The type of one key of the `custom_fields` of subnets or of addresses',
    example,
  },
);

export const InvalidValuesReport = extendApi(
  z
    .object({
      count: z.number().int().nonnegative().describe('Resources of the kind whose stored value fails the definition'),
      examples: z
        .array(
          z
            .object({
              resource_id: Uuid.describe('The subnet or address'),
              value: z.unknown().describe('Its stored value, as stored; null when the field is missing'),
            })
            .strict(),
        )
        .max(CUSTOM_FIELD_EXAMPLES_MAX)
        .describe(`Up to ${CUSTOM_FIELD_EXAMPLES_MAX} of them`),
    })
    .strict(),
  {
    title: 'InvalidValuesReport',
    description:
      'Stored values the definition does not accept (of another type, or missing where it is required). They stay ' +
      'stored and readable; a write that gives the field must give a valid value',
    example: { count: 1, examples: [{ resource_id: '7c9e6679-7425-40de-944b-e07fc1f90ae7', value: 'four' }] },
  },
);

export const CustomFieldWritten = extendApi(CustomFieldDefinition.extend({ invalid: InvalidValuesReport }).strict(), {
  title: 'CustomFieldWritten',
  description: 'The definition as written, with the stored values it does not accept (see a dry run first)',
  example: { ...example, invalid: { count: 0, examples: [] } },
});

export const CreateCustomFieldBody = extendApi(
  z
    .object({
      kind: CustomFieldKind,
      name: FieldName,
      label: text(200).optional().describe('Display name, e.g. Rack units'),
      description: text().optional().describe('Free-text description'),
      type: CustomFieldType,
      required: z.boolean().optional().describe('Default false'),
      default: Value.optional().describe('A valid value of the type, given to new resources without it'),
      choices: Choices.optional(),
    })
    .strict(),
  {
    title: 'CreateCustomFieldBody',
    description: 'A new definition; `choices` are given exactly for type select',
    example: { kind: 'subnet', name: 'rack_units', label: 'Rack units', type: 'integer', default: 42 },
  },
);

export const UpdateCustomFieldBody = extendApi(
  z
    .object({
      label: text(200).optional().describe('Display name'),
      description: text().optional().describe('Free-text description'),
      type: CustomFieldType.optional(),
      required: z
        .boolean()
        .optional()
        .describe('Whether every new or changed resource of the kind must hold the field'),
      default: Value.nullable().optional().describe('A valid value of the type; null removes the default'),
      choices: Choices.optional(),
    })
    .strict(),
  {
    title: 'UpdateCustomFieldBody',
    description:
      'Only the fields given change; `kind` and `name` cannot (the stored values live under the name). The default ' +
      'and the choices must suit the type the definition ends up with',
    example: { required: true },
  },
);

/** A query parameter filtering by a custom field: `cf_<name>`, or `cf_<name>__gte` (`lte`, `gt`, `lt`). */
export const CUSTOM_FIELD_FILTER = /^cf_([a-z][a-z0-9_]{0,49}?)(?:__(gte|lte|gt|lt))?$/;

/** What a list that takes custom field filters says of them (its route's description). */
export const CUSTOM_FIELD_FILTERS_DOC =
  'Custom fields filter it too (`/custom-fields`): `cf_<name>=<value>` keeps the resources whose field equals the ' +
  'value, read as the field’s type (`cf_rack_units=4`, `cf_monitored=true`, `cf_site=ams1`); for integer and date ' +
  'fields `cf_<name>__gte=`, `__lte=`, `__gt=` and `__lt=` bound it (only values of the field’s type pass them). ' +
  'A `cf_` parameter naming no field of the kind, or a value not of its type, is a 400 naming the parameter.';

/**
 * A list's query that also takes custom field filters (`cf_…`, each a string); any other parameter it does not
 * declare is a 400 naming it, as a strict object's.
 */
export function withCustomFieldFilters<T extends z.ZodRawShape>(query: z.ZodObject<T, 'strict'>) {
  return query.catchall(z.string().max(CUSTOM_FIELD_TEXT_MAX_LENGTH)).superRefine((value, ctx) => {
    for (const key of Object.keys(value)) {
      if (key in query.shape || CUSTOM_FIELD_FILTER.test(key)) continue;
      ctx.addIssue({
        code: z.ZodIssueCode.custom,
        path: [key],
        message: 'not a parameter of this list (custom field filters are cf_<name>, cf_<name>__gte, __lte, __gt, __lt)',
      });
    }
  });
}

export const ListCustomFieldsQuery = z
  .object({ kind: CustomFieldKind.optional().describe('Only the definitions of this kind') })
  .strict();

export const customFieldsContract = c.router({
  listCustomFields: {
    method: 'GET',
    path: '/custom-fields',
    summary: 'List the custom field definitions',
    description: 'The organisation’s definitions, by kind then name.',
    metadata: meta.read,
    query: ListCustomFieldsQuery,
    responses: { 200: z.array(CustomFieldDefinition), ...errors(400, 401, 403, 429) },
  },
  createCustomField: {
    method: 'POST',
    path: '/custom-fields',
    summary: 'Define a custom field',
    description:
      'Types the key `name` of the `custom_fields` of every subnet or every address (`kind`). From then on a write ' +
      'that gives the key must give a valid value (400 naming `custom_fields.<name>`), a create without it gets the ' +
      'default, and a required field without a default must be given. Values stored before stay as they are: the ' +
      'answer reports those the definition does not accept (`invalid`; `?dry_run=true` shows it first). ' +
      `At most ${CUSTOM_FIELDS_PER_KIND_MAX} definitions per kind (400); the name is unique per kind (400 duplicate).`,
    metadata: dryRunnable(idempotent(meta.write)),
    headers: IdempotencyHeaders,
    query: DryRunQuery,
    body: CreateCustomFieldBody,
    responses: { 201: CustomFieldWritten, ...errors(400, 401, 403, 409, 413, 415, 422, 429) },
  },
  getCustomField: {
    method: 'GET',
    path: '/custom-fields/:id',
    summary: 'Get a custom field definition',
    description: 'The definition, without the report of stored values (its create and change answer that).',
    metadata: meta.read,
    pathParams: IdParams,
    responses: { 200: CustomFieldDefinition, ...errors(400, 401, 403, 404, 429) },
  },
  updateCustomField: {
    method: 'PATCH',
    path: '/custom-fields/:id',
    summary: 'Change a custom field definition',
    description:
      'Changes the fields given; stored values are not rewritten. The answer reports the stored values the changed ' +
      'definition does not accept (`invalid`): send it with `?dry_run=true` to see them before changing anything.',
    metadata: dryRunnable(meta.write),
    query: DryRunQuery,
    pathParams: IdParams,
    body: UpdateCustomFieldBody,
    responses: { 200: CustomFieldWritten, ...errors(400, 401, 403, 404, 413, 415, 429) },
  },
  deleteCustomField: {
    method: 'DELETE',
    path: '/custom-fields/:id',
    summary: 'Delete a custom field definition',
    description: 'Removes the definition; the stored values stay, free-form again.',
    metadata: meta.write,
    pathParams: IdParams,
    responses: { 204: c.noBody(), ...errors(400, 401, 403, 404, 429) },
  },
});
