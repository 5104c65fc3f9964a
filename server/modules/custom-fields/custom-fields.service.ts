/**
 * Typed custom fields (issue 24, part 2): definitions per organisation and kind (`subnet`, `address`) of keys of
 * `custom_fields`, and the checks the subnet, address and import writes make with them. A definition never rewrites
 * a stored value; its create and change answer which stored values it does not accept.
 *
 * Other modules call only the functions exported below the definitions' routes: `withCreateFields` (a create
 * pipeline: the fields checked against this process's copy of the definitions, and a guard step that fails the
 * write when they changed since, then checked again), `assertUpdateFields` and `importRules` (in a transaction,
 * read there), and `listFilter` (the `cf_` parameters of a list).
 */
import type { z } from 'zod';
import {
  type CreateCustomFieldBody,
  CUSTOM_FIELD_EXAMPLES_MAX,
  CUSTOM_FIELDS_PER_KIND_MAX,
  type CustomFieldDefinition,
  type CustomFieldWritten,
  type UpdateCustomFieldBody,
} from '../../../contract/custom-fields.contract';
import type { Db } from '../../db/connection';
import type { Step } from '../../db/pipeline';
import { badRequest, isRequirementFailed, refusalOf } from '../../errors';
import type { Principal } from '../../principal';
import { recordCreate, recordDelete, recordUpdate } from '../activity/activity.service';
import { orNotFound, uniqueOr } from '../shared/results';
import { commitTransaction } from '../writes/writes';
import * as repo from './custom-fields.repo';
import {
  assertFieldsForUpdate,
  type CustomFieldFilter,
  type FieldType,
  failsRule,
  fieldsForCreate,
  filterOf,
  problemOf,
  type Rule,
} from './custom-fields.rules';

export type { CustomFieldFilter } from './custom-fields.rules';
export { matchesFilter } from './custom-fields.rules';
export type Kind = repo.Kind;

type DefinitionDto = z.infer<typeof CustomFieldDefinition>;

const toDto = (row: repo.DefinitionRow): DefinitionDto => ({
  id: row.id,
  kind: row.kind,
  name: row.name,
  label: row.label,
  description: row.description,
  type: row.type as FieldType,
  required: row.required,
  ...(row.default_value === null ? {} : { default: row.default_value }),
  ...(row.choices === null ? {} : { choices: row.choices }),
  created_at: new Date(row.created_at).toISOString(),
  updated_at: new Date(row.updated_at).toISOString(),
});

/** The fields a definition's activity entries record. */
const fieldsOf = (d: DefinitionDto) => ({
  kind: d.kind,
  name: d.name,
  label: d.label,
  description: d.description,
  type: d.type,
  required: d.required,
  default: d.default ?? null,
  choices: d.choices ?? null,
});

// ---- The definitions' routes ----

export async function listDefinitions(db: Db, caller: Principal, kind: Kind | undefined) {
  return (await repo.definitionsOf(db, caller.orgId, kind ?? null)).map(toDto);
}

export async function getDefinition(db: Db, caller: Principal, id: string) {
  return toDto(orNotFound(await repo.get(db, caller.orgId, id), 'Custom field'));
}

/** A definition's values checked together: choices exactly for a select, a default valid for the type. */
function checkedValues(definition: {
  label: string;
  description: string;
  type: FieldType;
  required: boolean;
  default: DefinitionDto['default'] | null;
  choices: string[] | null;
}): repo.DefinitionValues {
  const { type, choices } = definition;
  if (type === 'select' && choices === null) throw badRequest('choices: a select needs its choices');
  if (type !== 'select' && choices !== null) throw badRequest(`choices: only a select has choices, not ${type}`);
  if (definition.default !== null) {
    const problem = problemOf({ type, choices: choices ?? undefined }, definition.default);
    if (problem) throw badRequest(`default: ${problem}`);
  }
  return {
    label: definition.label,
    description: definition.description,
    type,
    required: definition.required,
    defaultValue: definition.default === null ? null : JSON.stringify(definition.default),
    choices: choices === null ? null : JSON.stringify(choices),
  };
}

/** The stored values of the kind the definition does not accept: their count and the first few. */
async function invalidValues(tx: Db, orgId: string, definition: DefinitionDto) {
  const rule: Rule = definition;
  const rows = await repo.storedValues(tx, orgId, definition.kind, definition.name, definition.required);
  const failing = rows.filter((row) => failsRule(rule, row.value));
  return {
    count: failing.length,
    examples: failing
      .slice(0, CUSTOM_FIELD_EXAMPLES_MAX)
      .map((row) => ({ resource_id: row.id, value: row.value ?? null })),
  };
}

type Written = z.infer<typeof CustomFieldWritten>;

export async function createDefinition(
  db: Db,
  caller: Principal,
  input: z.infer<typeof CreateCustomFieldBody>,
): Promise<Written> {
  const orgId = caller.orgId;
  const values = checkedValues({
    label: input.label ?? '',
    description: input.description ?? '',
    type: input.type,
    required: input.required ?? false,
    default: input.default ?? null,
    choices: input.choices ?? null,
  });
  try {
    return await commitTransaction(db, async (tx) => {
      await repo.bumpVersion(tx, orgId);
      if ((await repo.countOfKind(tx, orgId, input.kind)) >= CUSTOM_FIELDS_PER_KIND_MAX) {
        throw badRequest(
          `custom_fields: the organisation has ${CUSTOM_FIELDS_PER_KIND_MAX} custom fields of kind ${input.kind}, ` +
            'the most a kind may have',
        );
      }
      const row = await uniqueOr(
        () => repo.insert(tx, orgId, input.kind, input.name, values),
        `name: a custom field ${input.name} of kind ${input.kind} already exists`,
      );
      const definition = toDto(row);
      await recordCreate(tx, caller, 'custom_field', definition.id, fieldsOf(definition));
      return { ...definition, invalid: await invalidValues(tx, orgId, definition) };
    });
  } finally {
    forget(orgId);
  }
}

export async function updateDefinition(
  db: Db,
  caller: Principal,
  id: string,
  input: z.infer<typeof UpdateCustomFieldBody>,
): Promise<Written> {
  const orgId = caller.orgId;
  try {
    return await commitTransaction(db, async (tx) => {
      // Another organisation's id is a 404 before anything is written; read again once the version row is held.
      orNotFound(await repo.get(tx, orgId, id), 'Custom field');
      await repo.bumpVersion(tx, orgId);
      const before = toDto(orNotFound(await repo.get(tx, orgId, id), 'Custom field'));
      const type = input.type ?? before.type;
      // Choices go with a select: a change to another type drops them unless given (then refused).
      const keptChoices = type === 'select' ? (before.choices ?? null) : null;
      const values = checkedValues({
        label: input.label ?? before.label,
        description: input.description ?? before.description,
        type,
        required: input.required ?? before.required,
        default: input.default === undefined ? (before.default ?? null) : input.default,
        choices: input.choices ?? keptChoices,
      });
      const definition = toDto(orNotFound(await repo.update(tx, orgId, id, values), 'Custom field'));
      await recordUpdate(tx, caller, 'custom_field', id, fieldsOf(before), fieldsOf(definition));
      return { ...definition, invalid: await invalidValues(tx, orgId, definition) };
    });
  } finally {
    forget(orgId);
  }
}

export async function deleteDefinition(db: Db, caller: Principal, id: string) {
  const orgId = caller.orgId;
  try {
    await commitTransaction(db, async (tx) => {
      orNotFound(await repo.get(tx, orgId, id), 'Custom field');
      await repo.bumpVersion(tx, orgId);
      const before = toDto(orNotFound(await repo.remove(tx, orgId, id), 'Custom field'));
      await recordDelete(tx, caller, 'custom_field', id, fieldsOf(before));
    });
  } finally {
    forget(orgId);
  }
}

// ---- What the subnet, address and import writes use ----

const rulesOf = (rows: readonly repo.DefinitionRow[], kind: Kind): Rule[] =>
  rows.filter((row) => row.kind === kind).map(toDto);

/** The definitions of an organisation as this process last read them, with the version they were at. */
interface Known {
  version: number;
  rules: Record<Kind, Rule[]>;
}

/** Organisations whose definitions this process keeps (the oldest read is dropped past it). */
const KNOWN_MAX = 1000;
const known = new Map<string, Known>();

function forget(orgId: string) {
  known.delete(orgId);
}

/** The organisation's definitions, as this process keeps them (`kept`) or read now. */
async function knownDefinitions(db: Db, orgId: string): Promise<Known & { kept: boolean }> {
  const found = known.get(orgId);
  if (found) return { ...found, kept: true };
  const { version, definitions } = await repo.definitionsWithVersion(db, orgId);
  const read = { version, rules: { subnet: rulesOf(definitions, 'subnet'), address: rulesOf(definitions, 'address') } };
  if (known.size >= KNOWN_MAX) known.delete(known.keys().next().value!);
  known.set(orgId, read);
  return { ...read, kept: false };
}

/**
 * Whether a write failed because the organisation's definitions changed since this process read them (the guard of
 * `withCreateFields`): a write that retries its own refusals must let this one through.
 */
export const isDefinitionsChanged = (error: unknown) =>
  isRequirementFailed(error) && refusalOf<{ rule: string }>(error).rule === 'custom_fields_changed';

/** Attempts of a create whose definitions keep changing under it before the last error is answered. */
const CREATE_ATTEMPTS = 4;

/**
 * Runs a create (one pipeline) with its `custom_fields` checked against the definitions of the kind (400 naming
 * the field) and completed with their defaults, and `guard`, a step the pipeline must include: it fails the write
 * when the definitions changed since this process read them, which are then read again and the create run again.
 * No round trip is added once this process knows the organisation's definitions (none is a version too); a 400 by
 * kept definitions is answered only once they are read again and still refuse.
 */
export async function withCreateFields<T>(
  db: Db,
  orgId: string,
  kind: Kind,
  given: Record<string, unknown> | undefined,
  create: (fields: Record<string, unknown> | undefined, guard: Step<unknown>, version: number) => Promise<T>,
): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    const definitions = await knownDefinitions(db, orgId);
    let fields: Record<string, unknown> | undefined;
    try {
      fields = fieldsForCreate(definitions.rules[kind], given);
    } catch (error) {
      // Refused by definitions kept from before: they may have changed since. Read them again before answering.
      if (!definitions.kept) throw error;
      forget(orgId);
      continue;
    }
    try {
      return await create(fields, repo.unchangedStep(orgId, definitions.version), definitions.version);
    } catch (error) {
      if (!isDefinitionsChanged(error) || attempt === CREATE_ATTEMPTS) throw error;
      forget(orgId);
    }
  }
}

/** A PATCH's `custom_fields` (when given) checked in its transaction against the definitions of the kind. */
export async function assertUpdateFields(
  tx: Db,
  orgId: string,
  kind: Kind,
  given: Record<string, unknown> | null | undefined,
) {
  if (!given) return;
  assertFieldsForUpdate(rulesOf(await repo.definitionsOf(tx, orgId, kind), kind), given);
}

/**
 * The check of an import's rows, the definitions read in its transaction: a row's `custom_fields` completed with
 * the defaults, or the 400 (an HttpError) that is the row's error.
 */
export async function importRules(tx: Db, orgId: string, kind: Kind) {
  const rules = rulesOf(await repo.definitionsOf(tx, orgId, kind), kind);
  return (given: Record<string, unknown> | null | undefined) => fieldsForCreate(rules, given ?? undefined);
}

/**
 * The filter the `cf_` parameters of a list make (null without any), typed by the definitions of the kind: a
 * parameter naming no definition or a value not of its type is a 400 naming the parameter. Read only when a `cf_`
 * parameter is given.
 */
export async function listFilter(
  db: Db,
  orgId: string,
  kind: Kind,
  query: Record<string, unknown>,
): Promise<CustomFieldFilter | null> {
  const parameters = Object.fromEntries(
    Object.entries(query).filter((entry): entry is [string, string] => entry[0].startsWith('cf_')),
  );
  if (Object.keys(parameters).length === 0) return null;
  return filterOf(rulesOf(await repo.definitionsOf(db, orgId, kind), kind), kind, parameters);
}

/** The SQL of a list's filter (`filterCondition`, on the custom fields column given) and its parameters. */
export {
  filterCondition as customFieldFilterSql,
  filterParameters as customFieldFilterParameters,
} from './custom-fields.repo';

/**
 * For the search: per kind, a JSON path matching custom fields whose text or select field equals `q` (null when
 * the kind has no such field). The GIN index of `custom_fields` answers it (`@@`).
 */
export async function textFieldsEqualTo(db: Db, orgId: string, q: string): Promise<Record<Kind, string | null>> {
  const rows = await repo.definitionsOf(db, orgId, null);
  const path = (kind: Kind) => {
    const names = rows.filter((r) => r.kind === kind && (r.type === 'text' || r.type === 'select')).map((r) => r.name);
    // Names are identifiers ([a-z0-9_]); the value is a JSON string literal, which a JSON path reads as such.
    return names.length === 0 ? null : names.map((name) => `$."${name}" == ${JSON.stringify(q)}`).join(' || ');
  };
  return { subnet: path('subnet'), address: path('address') };
}
