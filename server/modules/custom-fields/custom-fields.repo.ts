/** The SQL of custom field definitions (migration 0024). */
import type { Db } from '../../db/connection';
import { prepared } from '../../db/prepared';

export type Kind = 'subnet' | 'address';

/** A definition as stored. */
export interface DefinitionRow {
  id: string;
  kind: Kind;
  name: string;
  label: string;
  description: string;
  type: string;
  required: boolean;
  default_value: string | number | boolean | null;
  choices: string[] | null;
  created_at: Date;
  updated_at: Date;
}

const COLUMNS = `id, kind, name, label, description, type, required, default_value, choices, created_at, updated_at`;

/** The organisation's definitions with the version they are at (one row with nulls when it has none). */
const withVersion = prepared<Partial<DefinitionRow> & { version: string }, { orgId: string }>(
  'custom_fields_with_version',
  `SELECT v.version, d.id, d.kind, d.name, d.label, d.description, d.type, d.required, d.default_value, d.choices,
     d.created_at, d.updated_at
   FROM (SELECT coalesce((SELECT version FROM custom_field_versions WHERE org_id = :orgId), 0)::text AS version) v
   LEFT JOIN custom_field_definitions d ON d.org_id = :orgId
   ORDER BY d.kind, d.name`,
);

/** Every definition of the organisation, and its version (0 before its first definition). */
export async function definitionsWithVersion(db: Db, orgId: string) {
  const rows = await withVersion(db, { orgId });
  return {
    version: Number(rows[0]?.version ?? 0),
    definitions: rows.filter((row): row is DefinitionRow & { version: string } => row.id != null),
  };
}

const list = prepared<DefinitionRow, { orgId: string; kind: Kind | null }>(
  'custom_fields_list',
  `SELECT ${COLUMNS} FROM custom_field_definitions
   WHERE org_id = :orgId AND (:kind::text IS NULL OR kind = :kind::text) ORDER BY kind, name`,
);

/** The organisation's definitions (of one kind, or all), by kind then name. */
export const definitionsOf = (db: Db, orgId: string, kind: Kind | null) => list(db, { orgId, kind });

const one = prepared<DefinitionRow, { orgId: string; id: string }>(
  'custom_fields_get',
  `SELECT ${COLUMNS} FROM custom_field_definitions WHERE org_id = :orgId AND id = :id`,
);

export const get = async (db: Db, orgId: string, id: string) => (await one(db, { orgId, id }))[0];

/**
 * Moves the organisation's version on, locking its row until the transaction ends: definition writes of an
 * organisation take turns (the count per kind holds), and caches of its definitions see they are stale.
 */
const bumped = prepared<{ version: string }, { orgId: string }>(
  'custom_fields_bump_version',
  `INSERT INTO custom_field_versions (org_id, version) VALUES (:orgId, 1)
   ON CONFLICT (org_id) DO UPDATE SET version = custom_field_versions.version + 1 RETURNING version::text`,
);

export const bumpVersion = async (db: Db, orgId: string) => {
  await bumped(db, { orgId });
};

/** A step of a write's pipeline that fails (a Refusal, rule `custom_fields_changed`) unless the version is `version`. */
const unchanged = prepared<unknown, { orgId: string; version: number }>(
  'custom_fields_unchanged',
  `SELECT ipam_require(
     coalesce((SELECT version FROM custom_field_versions WHERE org_id = :orgId), 0) = :version::bigint,
     '{"rule":"custom_fields_changed"}')`,
);

export const unchangedStep = (orgId: string, version: number) => unchanged.step({ orgId, version });

const counted = prepared<{ count: number }, { orgId: string; kind: Kind }>(
  'custom_fields_count',
  'SELECT count(*)::int AS count FROM custom_field_definitions WHERE org_id = :orgId AND kind = :kind',
);

export const countOfKind = async (db: Db, orgId: string, kind: Kind) => (await counted(db, { orgId, kind }))[0]!.count;

/** A definition's values as written: the default and the choices as JSON text (null: none). */
export interface DefinitionValues {
  label: string;
  description: string;
  type: string;
  required: boolean;
  defaultValue: string | null;
  choices: string | null;
}

const inserted = prepared<DefinitionRow, DefinitionValues & { orgId: string; kind: Kind; name: string }>(
  'custom_fields_insert',
  `INSERT INTO custom_field_definitions (org_id, kind, name, label, description, type, required, default_value, choices)
   VALUES (:orgId, :kind, :name, :label, :description, :type, :required::boolean, :defaultValue::jsonb, :choices::jsonb)
   RETURNING ${COLUMNS}`,
);

export const insert = async (db: Db, orgId: string, kind: Kind, name: string, values: DefinitionValues) =>
  (await inserted(db, { orgId, kind, name, ...values }))[0]!;

const updated = prepared<DefinitionRow, DefinitionValues & { orgId: string; id: string }>(
  'custom_fields_update',
  `UPDATE custom_field_definitions SET label = :label, description = :description, type = :type,
     required = :required::boolean, default_value = :defaultValue::jsonb, choices = :choices::jsonb, updated_at = now()
   WHERE org_id = :orgId AND id = :id RETURNING ${COLUMNS}`,
);

export const update = async (db: Db, orgId: string, id: string, values: DefinitionValues) =>
  (await updated(db, { orgId, id, ...values }))[0];

const removed = prepared<DefinitionRow, { orgId: string; id: string }>(
  'custom_fields_delete',
  `DELETE FROM custom_field_definitions WHERE org_id = :orgId AND id = :id RETURNING ${COLUMNS}`,
);

export const remove = async (db: Db, orgId: string, id: string) => (await removed(db, { orgId, id }))[0];

/** The value under `name` of the resources of the kind that hold it, or every resource of it with `all`. */
const storedOf = (table: 'subnets' | 'addresses') =>
  prepared<{ id: string; value: unknown }, { orgId: string; name: string; all: boolean }>(
    `custom_fields_stored_${table}`,
    `SELECT id, custom_fields -> :name::text AS value FROM ${table}
     WHERE org_id = :orgId AND (:all::boolean OR custom_fields ? :name::text) ORDER BY id`,
  );

const stored = { subnet: storedOf('subnets'), address: storedOf('addresses') };

/** The stored values of the field `name` of the kind (with `all`, also of the resources without it: null). */
export const storedValues = (db: Db, orgId: string, kind: Kind, name: string, all: boolean) =>
  stored[kind](db, { orgId, name, all });

/**
 * The condition of a list's `cf_` filter on the custom fields `column`, with two parameters (`filterParameters`):
 * `:cfEquals`, an object the fields must contain (the GIN index answers it: jsonb_path_ops, rows without custom
 * fields left out), and `:cfRanges`, bounds of integer and date fields. A bound compares only a value of its type
 * (a JSON integer; a YYYY-MM-DD string, as text, which orders days): the CASEs keep every other value from a cast,
 * so a stored value of another type fails the filter and never the query.
 */
export const filterCondition = (column: string) => {
  const value = `${column} -> r.name`;
  const text = `(${column} ->> r.name) COLLATE "C"`;
  const compared = (left: string, right: string) =>
    `CASE r.op WHEN 'gte' THEN ${left} >= ${right} WHEN 'lte' THEN ${left} <= ${right}
       WHEN 'gt' THEN ${left} > ${right} ELSE ${left} < ${right} END`;
  return `${column} @> :cfEquals::jsonb AND NOT EXISTS (
    SELECT 1 FROM jsonb_to_recordset(:cfRanges::jsonb) AS r(name text, type text, op text, value text)
    WHERE NOT CASE
      WHEN r.type = 'integer' THEN CASE WHEN jsonb_typeof(${value}) = 'number'
        THEN CASE WHEN (${value})::numeric = trunc((${value})::numeric)
          THEN ${compared(`(${value})::numeric`, 'r.value::numeric')} ELSE false END
        ELSE false END
      ELSE CASE WHEN jsonb_typeof(${value}) = 'string' AND ${text} ~ '^[0-9]{4}-[0-9]{2}-[0-9]{2}$'
        THEN ${compared(text, 'r.value COLLATE "C"')} ELSE false END
    END)`;
};

/** The parameters of `filterCondition`, as JSON text. */
export const filterParameters = (filter: {
  equals: Record<string, unknown>;
  ranges: { name: string; type: string; op: string; value: number | string }[];
}) => ({
  cfEquals: JSON.stringify(filter.equals),
  cfRanges: JSON.stringify(filter.ranges.map((range) => ({ ...range, value: String(range.value) }))),
});
